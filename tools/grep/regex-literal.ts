/**
 * `requiredLiteral`: a string every match of a JavaScript regex must contain, found by a
 * conservative scan of its source, so grep can skip files without it by a byte search
 * (`Buffer.indexOf`, linear) before any regex runs: `use\s+strict` needs "strict",
 * `foo\.bar\(\d+` needs "foo.bar(".
 *
 * Conservative: undefined for case-insensitive regexes, a top-level `|`, or when no literal run
 * is left; groups, classes, `.`, anchors and escapes that stand for a set end a run; a char
 * followed by `*`, `?` or `{…}` is dropped from it; `+` keeps the char and ends the run. Linear
 * in the source length.
 */

/** The longest literal every match of `/source/flags` contains, or undefined (see the module comment). */
export function requiredLiteral(source: string, flags: string): string | undefined {
  if (flags.includes('i')) return undefined;
  const runs: string[] = [];
  let run = '';
  const end = () => {
    if (run !== '') runs.push(run);
    run = '';
  };
  for (let i = 0; i < source.length; ) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[A-Za-z0-9]/.test(next)) {
        end();
        i += escapeLength(source, i);
      } else {
        run += next;
        i += 2;
      }
    } else if (c === '(' || c === '[') {
      end();
      i = skipGroup(source, i);
    } else if (c === '*' || c === '?' || c === '{') {
      run = run.slice(0, -1); // the char before is optional or repeated a counted number of times
      end();
      i = c === '{' ? skipPast(source, i, '}') : i + 1;
      if (source[i] === '?') i++;
    } else if (c === '+') {
      end();
      i++;
      if (source[i] === '?') i++;
    } else if (c === '|') {
      return undefined;
    } else if (c === '.' || c === '^' || c === '$' || c === ')' || c === ']' || c === '}') {
      end();
      i++;
    } else {
      run += c;
      i++;
    }
  }
  end();
  let best: string | undefined;
  for (const r of runs) if (!best || r.length > best.length) best = r;
  // A char before a quantifier was dropped above only from the run it ended; a run that ends
  // right before a quantifier is already cut. U+FFFD is what invalid bytes decode to: no byte search.
  return best && !best.includes('\ufffd') ? best : undefined;
}

/** Length of the escape at `source[i]` (`\d`, `\x41`, `\u0041`, `\u{1F600}`, `\p{L}`, `\cA`, `\k<n>`, `\12`). */
function escapeLength(source: string, i: number): number {
  const next = source[i + 1];
  if (next === 'x') return 4;
  if (next === 'c') return 3;
  if ((next === 'u' || next === 'p' || next === 'P') && source[i + 2] === '{') return skipPast(source, i, '}') - i;
  if (next === 'u') return 6;
  if (next === 'k' && source[i + 2] === '<') return skipPast(source, i, '>') - i;
  if (/[0-9]/.test(next)) {
    let j = i + 1;
    while (/[0-9]/.test(source[j] ?? '')) j++;
    return j - i;
  }
  return 2;
}

function skipPast(source: string, i: number, close: string): number {
  const at = source.indexOf(close, i);
  return at === -1 ? source.length : at + 1;
}

/** Index after the group or class starting at `source[i]` (escapes and nested classes respected). */
function skipGroup(source: string, i: number): number {
  let depth = 0;
  let inClass = false;
  for (let j = i; j < source.length; j++) {
    const c = source[j];
    if (c === '\\') j++;
    else if (inClass) {
      if (c === ']') {
        inClass = false;
        if (depth === 0) return j + 1;
      }
    } else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return j + 1;
  }
  return source.length;
}
