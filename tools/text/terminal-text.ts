/**
 * Text made safe to show on a person's terminal (attack class T of SECURITY.md): agent- and
 * repository-written text — file names, summaries, commit messages, check output — can carry
 * bytes a terminal acts on instead of showing (ESC sequences: OSC 52 sets the clipboard, CSI
 * moves the cursor or hides text; a lone carriage return rewrites the line; C1 controls; Unicode
 * bidi overrides and invisible format characters that reorder or hide what is shown).
 *
 * Each such character is shown as a visible escape instead: `\x1b`, `\r`, `\x7f`, `\u{9b}`,
 * `\u{202e}`. What is left is printable text, so what the terminal shows is what the text holds.
 * A backslash is shown as it is: the escapes are for reading, not for parsing back (`--json`
 * gives the exact strings, see `terminalSafeJson`).
 */

/**
 * Every character a terminal may act on or that hides text: Unicode controls (C0, DEL, C1),
 * format characters (bidi embeddings, overrides and isolates, zero-width characters, soft
 * hyphen, BOM, tags), the line and paragraph separators, and lone surrogates.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** The visible form of one unsafe character. */
function visible(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  const code = c.codePointAt(0)!;
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * `text` as a block of lines for a terminal: every unsafe character escaped except the line
 * feed and the tab (which only move to the next line or column), and a carriage return right
 * before a line feed (a CRLF line ending rewrites nothing).
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c, at: number) =>
    c === '\n' || c === '\t' || (c === '\r' && text.charCodeAt(at + 1) === 10) ? c : visible(c),
  );
}

/**
 * `text` as one line for a terminal: every unsafe character escaped, line feeds and tabs too,
 * so a file name or a branch name can neither hide text nor start a line of its own.
 */
export function terminalSafeLine(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** Everything `UNSAFE` holds except the C0 controls, which JSON.stringify escapes already. */
const JSON_UNSAFE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * `value` as JSON (`JSON.stringify(value, null, indent)`) in which every character a terminal
 * may act on is a `\uXXXX` escape: it parses back to exactly the same strings. Outside strings
 * JSON holds only ASCII, so every such character is inside a string, where the escape is exact.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) ?? 'null';
  return json.replace(JSON_UNSAFE, (c) => {
    let out = '';
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

/**
 * A copy of `value` for rendering as one-line fields: every string in it (in objects and arrays,
 * at any depth) made `terminalSafeLine`, except the strings under one of `blockKeys` (file
 * content, a patch, check output: text meant to span lines), which are left for
 * `terminalSafe` to treat as a block.
 */
export function withSafeFields<T>(value: T, blockKeys: ReadonlySet<string>): T {
  const walk = (v: unknown, block: boolean): unknown => {
    if (typeof v === 'string') return block ? v : terminalSafeLine(v);
    if (Array.isArray(v)) return v.map((item) => walk(item, block));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[k] = walk(item, block || blockKeys.has(k));
      return out;
    }
    return v;
  };
  return walk(value, false) as T;
}
