/**
 * Readable text for a tool result: what an MCP client shows a person or a model that ignores
 * `structuredContent`. One renderer per tool, with a JSON fallback for values it does not know.
 */
import type { ToolResult } from '../../../tools/index.js';
import { numberLines } from '../../../tools/text/index.js';
import { messagesText } from './messages-text.js';

/** A result value, read field by field. */
export type Row = Record<string, unknown>;

/**
 * Renders a gate result as text. An error reads `CODE: message` (with the namespace path when
 * the error carries one), so the stable code is visible in the text as well as the structure.
 */
export function toolResultText(tool: string, result: ToolResult): string {
  if (!result.ok) {
    const { code, message, path, details } = result.error;
    return `${code}: ${message}${path && !message.includes(path) ? ` (${path})` : ''}${candidateText(details)}`;
  }
  const value = result.value as Row;
  switch (tool) {
    case 'read':
      return readText(value);
    case 'list':
      return listText(value);
    case 'grep':
      return grepText(value);
    case 'edit':
      return editText(value);
    case 'write':
      return writeText(value);
    case 'delete':
      return `deleted ${value.path}`;
    case 'move':
      return `moved ${value.from} to ${value.to}`;
    case 'request_files':
      return requestText(value);
    case 'diff':
      return diffText(value);
    case 'commit':
      return commitText(value);
    case 'submit':
      return `submitted ${String(value.commit).slice(0, 12)} for ${value.target} as ${value.submissionId} (position ${value.queuePosition} in the queue); once the lander has run, read the outcome with messages {"requestId": "${value.requestId}"}`;
    case 'messages':
      return messagesText(value);
    case 'exec':
      return typeof value.runId === 'string' && value.exitCode === undefined
        ? [
            `started in the background as ${value.runId}: read its output with exec_output, end it with exec_kill`,
            ...checkpointLines(value),
          ].join('\n')
        : [execText(value), ...checkpointLines(value)].join('\n');
    case 'exec_output':
    case 'exec_kill':
      return runOutputText(value);
    case 'check':
      return checkText(value);
    case 'checkpoint':
      return checkpointText(value);
    case 'rollback':
      return `rolled back to checkpoint ${value.snapshotId}: ${value.written} entries written, ${value.removed} removed; the state before is checkpoint ${value.before}: rollback {"snapshotId": "${value.before}"} undoes this`;
    case 'handoff':
      return handoffText(value);
    case 'end':
      return `ended the run ${value.run} (visit ${value.visit} of this role)${patchLine(value)}; handoff and end now answer VISIT_ENDED`;
    default:
      return JSON.stringify(value, null, 2);
  }
}

/** A handoff accepted: what was collected, what was rejected and why, the patch kept. */
function handoffText(v: Row): string {
  const collected = Array.isArray(v.collected) ? (v.collected as Row[]) : [];
  const rejected = Array.isArray(v.rejected) ? (v.rejected as Row[]) : [];
  const lines = [
    `handed off to ${v.to} in run ${v.run} (visit ${v.visit} of this role): ${collected.length} file(s) collected, ${rejected.length} rejected${patchLine(v)}`,
    ...collected.map((c) => `  collected ${c.path} (${c.bytes} bytes)`),
    ...rejected.map((r) => `  rejected ${r.path}: ${r.code} (${r.reason})`),
    'this visit has ended: handoff and end now answer VISIT_ENDED, your other tools keep working',
  ];
  return lines.join('\n');
}

/** The auto-patch a handoff or end kept, as a clause. */
function patchLine(v: Row): string {
  const p = v.patch as Row | null | undefined;
  return p ? `; auto-patch ${p.n} kept (${p.files} file(s) changed, ${p.bytes} bytes)` : '';
}

/** How a command ended, in words (`exit code 0`, `timed out`, `ended at its memory limit`, `ended by SIGKILL`). */
function endingOf(v: Row): string {
  if (v.timedOut) return `timed out after ${v.durationMs} ms; everything it started was ended`;
  if (typeof v.limit === 'string') return `ended at its ${v.limit} limit after ${v.durationMs} ms; everything it started was ended`;
  if (v.exitCode === null || v.exitCode === undefined) return `ended by ${v.signal ?? 'a signal'} after ${v.durationMs} ms`;
  return `exit code ${v.exitCode} after ${v.durationMs} ms`;
}

/** The output of a command (stdout, then stderr under its own heading) and what it changed. */
function outputLines(v: Row): string[] {
  const lines: string[] = [];
  const stdout = String(v.stdout ?? '');
  const stderr = String(v.stderr ?? '');
  if (v.truncated) lines.push('(the start of the output was cut; the end is kept)');
  if (stdout !== '') lines.push(stdout.replace(/\n$/, ''));
  if (stderr !== '') lines.push('stderr:', stderr.replace(/\n$/, ''));
  return lines;
}

function changedLines(v: Row): string[] {
  const changed = (v.changed as Row[] | undefined) ?? [];
  const letter: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D' };
  const lines = changed.map((c) => `${letter[String(c.status)] ?? '?'} ${c.path}`);
  const count = Number(v.changedCount ?? changed.length);
  if (count > changed.length) lines.push(`(and ${count - changed.length} more)`);
  const notKept = ((v.notKept as Row[] | undefined) ?? []).map((n) => `not kept: ${n.path} (${n.code}: ${n.message})`);
  return [...(lines.length > 0 ? [`changed ${count} file(s):`, ...lines] : []), ...notKept];
}

/** A checkpoint taken: its id, label and size, and how to return to it. */
function checkpointText(v: Row): string {
  const label = typeof v.label === 'string' ? ` (${JSON.stringify(v.label)})` : '';
  return `checkpoint ${v.snapshotId}${label}: ${v.files} file(s), ${v.bytes} bytes, ${v.storedBytes} bytes new in the store; rollback {"snapshotId": "${v.snapshotId}"} returns to it`;
}

/** The checkpoint an `exec` took before its command (`exec: { checkpoint: true }`), when it took one. */
function checkpointLines(v: Row): string[] {
  if (typeof v.checkpoint !== 'string') return [];
  return [`checkpoint ${v.checkpoint} was taken before the command: rollback {"snapshotId": "${v.checkpoint}"} undoes what it did`];
}

/** An ended command: its output, how it ended, what it changed. */
function execText(v: Row): string {
  return [...outputLines(v), endingOf(v), ...changedLines(v)].join('\n');
}

/** A background run's output since the last call, and its end once it has one. */
function runOutputText(v: Row): string {
  const lines = [`run ${v.runId}: ${v.state === 'ended' ? 'ended' : 'running'}`, ...outputLines(v)];
  const result = v.result as Row | undefined;
  if (result) lines.push(endingOf(result), ...changedLines(result));
  else if (String(v.stdout ?? '') === '' && String(v.stderr ?? '') === '') lines.push('(no new output)');
  return lines.join('\n');
}

/** A check: its diagnostics as `path:line:column: severity: message`, then the command's text. */
function checkText(v: Row): string {
  const diagnostics = ((v.diagnostics as Row[] | undefined) ?? []).map(
    (d) => `${d.path}:${d.line}${d.column === undefined ? '' : `:${d.column}`}: ${d.severity}: ${d.message}`,
  );
  const head = `check ${v.name}: ${v.exitCode === 0 ? 'passed' : 'failed'}, ${diagnostics.length} diagnostic(s)`;
  return [head, ...diagnostics, '', execText(v)].join('\n');
}

/** A change letter per file, then the patch (the file list alone when nothing changed). */
function diffText(v: Row): string {
  const files = (v.files as Row[] | undefined) ?? [];
  const letter: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D', typechange: 'T' };
  const against =
    typeof v.landedOn === 'string'
      ? `changes not yet on ${v.landedOn} (since ${String(v.baseSha).slice(0, 12)}, where your landed work ends)`
      : `changes against ${v.base} (${String(v.baseSha).slice(0, 12)})`;
  const head = `${against}: ${files.length} file(s)`;
  if (files.length === 0) return `${head}\n(no changes)`;
  const list = files.map((f) => `${letter[String(f.status)] ?? '?'} ${f.path}`);
  const cut = v.truncated ? ['(patch truncated: pass a path to see one file or folder)'] : [];
  return [head, ...list, '', String(v.patch ?? ''), ...cut].join('\n');
}

function commitText(v: Row): string {
  const files = (v.files as Row[] | undefined) ?? [];
  if (files.length === 0) return `nothing to commit; ${v.branch} is at ${String(v.sha).slice(0, 12)}`;
  return `committed ${String(v.sha).slice(0, 12)} on ${v.branch}: ${files.length} file(s)\n${files.map((f) => `${f.status} ${f.path}`).join('\n')}`;
}

/**
 * A read: one header line (path, the window, the totals, the sha256 to pass as expectedSha256,
 * where to continue, which lines were cut) and the lines numbered like `cat -n`; an image: one
 * line saying what it is (the image itself is the next content block).
 */
function readText(v: Row): string {
  if (v.kind === 'image') {
    const size = typeof v.width === 'number' && typeof v.height === 'number' ? `, ${v.width}x${v.height}` : '';
    return `${v.path}: image ${v.mimeType}${size}, ${v.bytes} bytes, sha256 ${v.sha256} (the image follows)`;
  }
  const parts = [`${v.path}: lines ${v.startLine}-${v.endLine} of ${v.totalLines}, sha256 ${v.sha256}`];
  if (typeof v.nextOffset === 'number') parts.push(`more lines follow: continue with offset ${v.nextOffset}`);
  else if (v.truncated) parts.push('cut at the size limit of one read');
  const cut = v.cutLines as number[] | undefined;
  if (cut && cut.length > 0)
    parts.push(`line${cut.length === 1 ? '' : 's'} ${cut.join(', ')} cut for length (read one with limit 1 to see it whole)`);
  const body = numberLines(String(v.content ?? ''), Number(v.startLine));
  return `${parts.join('; ')}\n${body === '' ? '(no lines)' : body}`;
}

/** An edit: what changed and the new sha256, the syntax check, the numbered snippet, the diff. */
function editText(v: Row): string {
  const n = Number(v.replacements);
  const count = `${n} replacement${n === 1 ? '' : 's'}`;
  const head = v.dryRun
    ? `dry run, nothing written: ${v.path} would get ${count}, sha256 ${v.sha256}`
    : `edited ${v.path}: ${count}, sha256 ${v.sha256}`;
  const lines = [head, ...syntaxLines(v.syntax as Row | undefined)];
  if (v.snippet) lines.push('', 'after the edit:', String(v.snippet));
  if (v.diff) lines.push('', String(v.diff));
  return lines.join('\n');
}

function writeText(v: Row): string {
  return [
    `${v.created ? 'created' : 'wrote'} ${v.path}: ${v.bytes} bytes, sha256 ${v.sha256}`,
    ...syntaxLines(v.syntax as Row | undefined),
  ].join('\n');
}

/** The syntax check of an edit or write, when the file is a source file (no lines otherwise). */
export function syntaxLines(s: Row | undefined): string[] {
  if (!s) return [];
  if (!s.checked) return [`syntax (${s.language}): not checked, ${s.reason}`];
  const found = (s.introduced as Row[] | undefined) ?? [];
  const count = Number(s.introducedCount ?? found.length);
  if (count === 0) return [`syntax (${s.language}): no errors introduced`];
  const more = count > found.length ? ` (first ${found.length} shown)` : '';
  return [
    `syntax (${s.language}): ${count} error${count === 1 ? '' : 's'} introduced by this change${more}:`,
    ...found.map((e) => `  line ${e.line}, column ${e.column}: ${e.message}`),
  ];
}

/** For edit's NO_MATCH: the closest region's exact text, numbered, so a text-only client can copy it. */
function candidateText(details: Record<string, unknown> | undefined): string {
  const c = details?.candidate as Row | null | undefined;
  if (!c || typeof c.text !== 'string') return '';
  return `\nthe file's text at lines ${c.line}-${c.endLine}:\n${numberLines(c.text, Number(c.line))}`;
}

/**
 * One entry a line: a folder ends with '/', a file or link shows its size (`src/a.ts  1234 B`),
 * `mtime` follows when the list was sorted by it; then what is left: the next page's offset, the
 * walk's limit, the entries `.gitignore` hid.
 */
function listText(v: Row): string {
  const entries = (v.entries as Row[] | undefined) ?? [];
  const lines = entries.map((e) => {
    const when = typeof e.mtime === 'string' ? `  ${e.mtime}` : '';
    if (e.type === 'directory') return `${e.path}/${when}`;
    if (e.type === 'symlink') return `${e.path}  (symlink, ${e.size} B)${when}`;
    if (e.type === 'other') return `${e.path}  (special file)${when}`;
    return `${e.path}  ${e.size} B${when}`;
  });
  if (entries.length === 0) lines.push('(no entries)');
  lines.push(...pageNotes(v, 'entries', 'narrow the path or pattern'));
  if (typeof v.ignored === 'number') lines.push(`(${v.ignored} ignored by .gitignore not shown; includeIgnored: true lists them)`);
  return lines.join('\n');
}

/** The paging lines of a list or grep value: where the next page starts, or that the walk was cut. */
function pageNotes(v: Row, what: string, narrow: string): string[] {
  if (typeof v.nextOffset === 'number') return [`(more ${what}: continue with offset ${v.nextOffset})`];
  if (v.truncated) return [`(truncated: the walk stopped at its entry limit; ${narrow})`];
  return [];
}

/**
 * ripgrep's shapes: file paths; `path:count`; content as `path:line:text` for a matching line and
 * `path-line-text` for a context line, each line once, `--` between groups that do not touch
 * (when context was asked for). An empty answer says how many files were searched and skipped.
 */
function grepText(v: Row): string {
  const lines: string[] = [];
  if (Array.isArray(v.files)) lines.push(...(v.files as string[]));
  if (Array.isArray(v.matches)) lines.push(...contentLines(v.matches as Row[]));
  if (Array.isArray(v.counts)) {
    for (const c of v.counts as Row[]) lines.push(`${c.path}:${c.count}`);
  }
  if (lines.length === 0) lines.push(`(no matches; ${searchedNote(v)})`);
  lines.push(...pageNotes(v, 'results', 'search a narrower path'));
  if (typeof v.hint === 'string') lines.push(`(${v.hint})`);
  return lines.join('\n');
}

/** "searched 12 files, skipped 3 ignored by .gitignore, 1 binary". */
export function searchedNote(v: Row): string {
  const n = Number(v.filesSearched ?? 0);
  const parts = [`searched ${n} file${n === 1 ? '' : 's'}`];
  const skipped = (v.skipped as Row | undefined) ?? {};
  const why: string[] = [];
  if (skipped.ignored) why.push(`${skipped.ignored} ignored by .gitignore`);
  if (skipped.binary) why.push(`${skipped.binary} binary`);
  if (skipped.tooLarge) why.push(`${skipped.tooLarge} over 32 MiB`);
  if (why.length > 0) parts.push(`skipped ${why.join(', ')}`);
  return parts.join('; ');
}

/**
 * Content output as ripgrep prints it (see `grepText`); a multiline hit shows each of its lines.
 * `lineNumbers: false` prints `path:text` and `path-text` (rg without `-n`); `shownPath` maps
 * each path as the value holds it to the path printed.
 */
export function contentLines(
  matches: readonly Row[],
  { lineNumbers = true, shownPath = (p: string) => p }: { lineNumbers?: boolean; shownPath?: (path: string) => string } = {},
): string[] {
  const out: string[] = [];
  const withContext = matches.some((m) => Array.isArray(m.before) || Array.isArray(m.after));
  let file: string | undefined;
  let rows = new Map<number, { text: string; isMatch: boolean }>();
  const flush = () => {
    let last: number | undefined;
    const shown = file === undefined ? '' : shownPath(file);
    for (const n of [...rows.keys()].sort((a, b) => a - b)) {
      if (withContext && last !== undefined && n > last + 1) out.push('--');
      if (withContext && last === undefined && out.length > 0) out.push('--');
      const row = rows.get(n)!;
      const sep = row.isMatch ? ':' : '-';
      out.push(lineNumbers ? `${shown}${sep}${n}${sep}${row.text}` : `${shown}${sep}${row.text}`);
      last = n;
    }
    rows = new Map();
  };
  for (const m of matches) {
    if (m.path !== file) {
      flush();
      file = String(m.path);
    }
    const line = Number(m.line);
    const before = (m.before as string[] | undefined) ?? [];
    before.forEach((text, i) => {
      const n = line - before.length + i;
      if (!rows.has(n)) rows.set(n, { text, isMatch: false });
    });
    const texts = String(m.text).split('\n');
    const end = typeof m.endLine === 'number' ? m.endLine : line;
    for (let i = 0; i < texts.length && line + i <= end; i++) {
      const cut = i === texts.length - 1 && texts.length - 1 < end - line + 1 && texts[i] === '\u2026';
      if (cut) rows.set(line + i, { text: `\u2026 (through line ${end})`, isMatch: true });
      else rows.set(line + i, { text: texts[i], isMatch: true });
    }
    ((m.after as string[] | undefined) ?? []).forEach((text, i) => {
      const n = end + 1 + i;
      if (!rows.has(n)) rows.set(n, { text, isMatch: false });
    });
  }
  flush();
  return out;
}

function requestText(v: Row): string {
  const disclosed = (v.disclosedPaths as string[] | undefined) ?? [];
  const lines = [`${v.outcome}${disclosed.length ? `: ${disclosed.join(', ')}` : ''}`];
  for (const p of (v.problems as Row[] | undefined) ?? []) lines.push(`${p.path}: ${p.code}`);
  return lines.join('\n');
}
