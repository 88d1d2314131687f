/**
 * Diagnostics from a code-checking command run in a sandbox: reads the command's output (tsc,
 * ESLint JSON, Biome JSON, vitest/jest JSON, `prettier --check`, and the common
 * `file:line:col: message` style) and returns what an agent can act on — a file, a line and a
 * one-line message. Every path is shown in the agent's namespace: relative to the workspace root,
 * or absolute when the agent can reach it; anything else is dropped, and an outside path quoted in
 * a message is hidden. Output that matches no known format is ignored; no input makes it throw.
 */

/** One problem a checking tool reported: where (`path` relative to the workspace root, or absolute when reachable) and what. */
export interface Diagnostic {
  path: string;
  line: number;
  column?: number;
  severity: 'error' | 'warning' | 'info';
  message: string;
}

/** Where the command ran, and which paths the agent may be shown. */
export interface DiagnosticPlace {
  /** The command's working folder, an absolute namespace path, e.g. '/worktrees/c1' or '/worktrees/c1/pkg'. */
  cwd: string;
  /** The workspace root, e.g. '/worktrees/c1'. */
  root: string;
  /** True for an absolute namespace path the agent can reach (inside the workspace root or a mount). */
  reachable(path: string): boolean;
}

/** At most this many diagnostics are returned (the first ones in output order). */
export const MAX_DIAGNOSTICS = 200;

const MAX_MESSAGE = 500;
const OUTSIDE_PATH = '<outside path>';

type Severity = Diagnostic['severity'];

/** What a format reader found, before its path is placed and its message cleaned. */
interface Found {
  path: string;
  line: number;
  column?: number;
  severity: Severity;
  message: string;
}

/**
 * Reads the diagnostics in a command's output: stdout first, then stderr, each in output order;
 * several formats may appear in one output. A JSON document (the whole stream, one line, or from
 * the first line opening one to the end) is read by its shape; every other line is read as text
 * (colour codes removed). Relative paths are taken from `place.cwd`. A diagnostic is dropped when
 * its path is outside the root and not reachable, or its line is not a positive integer (a column
 * that is not is left out). Identical diagnostics are returned once, at most `MAX_DIAGNOSTICS`.
 * Messages are one trimmed line of at most 500 characters, with outside paths in them replaced by
 * `<outside path>` — which also hides a message's text that merely looks like one (`'/api/x'`).
 */
export function parseDiagnostics(output: { stdout: string; stderr: string }, place: DiagnosticPlace): Diagnostic[] {
  const sink = new DiagnosticSink(place);
  for (const stream of [output?.stdout, output?.stderr]) {
    if (typeof stream === 'string' && !sink.full()) readStream(stripAnsi(stream), sink);
  }
  return sink.diagnostics;
}

/** Places, cleans, deduplicates and counts diagnostics as the readers find them. */
class DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];
  private readonly seen = new Set<string>();
  private readonly cwd: string;
  private readonly root: string;

  constructor(private readonly place: DiagnosticPlace) {
    this.cwd = normalize(String(place.cwd)) ?? '/';
    this.root = normalize(String(place.root)) ?? '/';
  }

  full(): boolean {
    return this.diagnostics.length >= MAX_DIAGNOSTICS;
  }

  add(found: Found): void {
    if (this.full() || !isPositiveInteger(found.line)) return;
    const path = this.show(found.path);
    const message = cleanMessage(found.message, (p) => this.show(p) ?? OUTSIDE_PATH);
    if (path === undefined || message === '') return;
    const diagnostic: Diagnostic = { path, line: found.line, severity: found.severity, message };
    if (isPositiveInteger(found.column)) diagnostic.column = found.column;
    const key = JSON.stringify([path, diagnostic.line, diagnostic.column ?? 0, diagnostic.severity, message]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.diagnostics.push(diagnostic);
  }

  /** The path as the agent sees it, or undefined when it must not be shown. */
  show(raw: string): string | undefined {
    if (typeof raw !== 'string' || raw === '' || hasControlCharacter(raw)) return undefined;
    const bare = raw.startsWith('file://') ? raw.slice('file://'.length) : raw;
    const absolute = normalize(bare.startsWith('/') ? bare : `${this.cwd}/${bare}`);
    if (absolute === undefined) return undefined;
    const prefix = this.root === '/' ? '/' : `${this.root}/`;
    if (absolute === this.root) return '.';
    if (absolute.startsWith(prefix)) return absolute.slice(prefix.length);
    return this.isReachable(absolute) ? absolute : undefined;
  }

  private isReachable(path: string): boolean {
    try {
      return this.place.reachable(path) === true;
    } catch {
      return false;
    }
  }
}

/** Resolves `.` and `..` in an absolute posix path; undefined when it climbs above `/`. */
function normalize(path: string): string | undefined {
  if (!path.startsWith('/')) path = `/${path}`;
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.pop() === undefined) return undefined;
  }
  return `/${parts.join('/')}`;
}

// ANSI control sequences (colours, cursor moves) and OSC sequences (terminal hyperlinks). Each
// part's character class is disjoint from the next, so matching stays linear.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?/g;

function stripAnsi(text: string): string {
  return text.includes('\x1b') ? text.replace(ANSI, '') : text;
}

// A JSON document starts like one and ends like one; other lines are not handed to `JSON.parse`.
const JSON_START = /^(?:\{\s*["}]|\[\s*[[{"\]\d-]|\[\s*(?:true|false|null))/;
const JSON_END = /[}\]]$/;

/** Lines that look like JSON but are not, per stream, before the rest are read only as text (each costs a thrown error). */
const MAX_FAILED_JSON_LINES = 50;

function readStream(text: string, sink: DiagnosticSink): void {
  const whole = text.trim();
  if (mightBeJson(whole) && readJson(whole, sink)) return;
  const lines = text.split(/\r\n|\r|\n/);
  let failedJson = 0;
  let triedRest = false;
  for (let i = 0; i < lines.length && !sink.full(); i++) {
    const line = lines[i].trim();
    if (line !== whole && failedJson < MAX_FAILED_JSON_LINES && mightBeJson(line)) {
      if (readJson(line, sink)) continue;
      failedJson++;
    }
    // A pretty-printed document after other output: tried once, so the work stays linear.
    if (!triedRest && (line === '{' || line === '[')) {
      triedRest = true;
      if (readJson(lines.slice(i).join('\n'), sink)) return;
    }
    readTextLine(lines[i], sink);
  }
}

function mightBeJson(text: string): boolean {
  return JSON_START.test(text) && JSON_END.test(text);
}

/** Reads a JSON document of a known shape; false when it is not JSON or not a shape we know. */
function readJson(text: string, sink: DiagnosticSink): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (Array.isArray(value)) return readEslint(value, sink);
  if (!isObject(value)) return false;
  if (Array.isArray(value.testResults)) return readTestResults(value.testResults, sink);
  if (Array.isArray(value.diagnostics)) return readBiome(value.diagnostics, sink);
  return false;
}

/** `eslint -f json`: `[{ filePath, messages: [{ line, column, severity: 1 | 2, message, ruleId }] }]`. */
function readEslint(files: unknown[], sink: DiagnosticSink): boolean {
  if (!files.every((f) => isObject(f) && typeof f.filePath === 'string' && Array.isArray(f.messages))) return false;
  for (const file of files as { filePath: string; messages: unknown[] }[]) {
    for (const m of file.messages) {
      if (sink.full()) return true;
      if (!isObject(m) || typeof m.message !== 'string' || (m.severity !== 1 && m.severity !== 2)) continue;
      const rule = typeof m.ruleId === 'string' ? `${m.ruleId}: ` : '';
      sink.add({
        path: file.filePath,
        line: m.line === undefined || m.line === null ? 1 : (m.line as number),
        column: m.column as number,
        severity: m.severity === 2 ? 'error' : 'warning',
        message: rule + m.message,
      });
    }
  }
  return true;
}

/**
 * Biome's JSON reporter. Biome 2: `{ summary, diagnostics: [{ severity, message, category,
 * location: { path, start: { line, column } } }], command }`, line 0 meaning the whole file.
 * Biome 1: `location: { path: { file }, span: [from, to], sourceCode }` with UTF-8 byte offsets
 * and the message as markup (`description` holds it as text).
 */
function readBiome(diagnostics: unknown[], sink: DiagnosticSink): boolean {
  for (const d of diagnostics) {
    if (sink.full()) break;
    if (!isObject(d) || !isObject(d.location)) continue;
    const location = d.location;
    const path = typeof location.path === 'string' ? location.path : isObject(location.path) ? location.path.file : undefined;
    const text = typeof d.description === 'string' ? d.description : markupText(d.message);
    if (typeof path !== 'string' || text === '') continue;
    const category = d.category;
    const place = biomePlace(location);
    if (place === undefined) continue;
    sink.add({
      path,
      ...place,
      severity: biomeSeverity(d.severity),
      message: typeof category === 'string' ? `${category}: ${text}` : text,
    });
  }
  return true;
}

function biomePlace(location: Record<string, unknown>): { line: number; column?: number } | undefined {
  const start = location.start;
  if (isObject(start) && typeof start.line === 'number') {
    if (start.line === 0 && !start.column) return { line: 1 };
    return isPositiveInteger(start.line) ? { line: start.line, column: start.column as number } : undefined;
  }
  const span = location.span;
  if (Array.isArray(span) && typeof span[0] === 'number' && typeof location.sourceCode === 'string') {
    return placeOfByte(location.sourceCode, span[0]) ?? { line: 1 };
  }
  return { line: 1 };
}

/** Line and column (1-based, in characters) of a UTF-8 byte offset in `source`; undefined when past its end. */
function placeOfByte(source: string, offset: number): { line: number; column: number } | undefined {
  let bytes = 0;
  let line = 1;
  let column = 1;
  for (const char of source) {
    if (bytes >= offset) break;
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (char === '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return bytes === offset ? { line, column } : undefined;
}

function biomeSeverity(severity: unknown): Severity {
  const word = typeof severity === 'string' ? severity.toLowerCase() : '';
  if (word === 'warning') return 'warning';
  if (word === 'information' || word === 'info' || word === 'hint') return 'info';
  return 'error';
}

/** The text of Biome 1's markup (`[{ content, elements }]`) or of a plain string. */
function markupText(message: unknown): string {
  if (typeof message === 'string') return message;
  if (!Array.isArray(message)) return '';
  return message.map((part) => (isObject(part) && typeof part.content === 'string' ? part.content : '')).join('');
}

/**
 * `vitest run --reporter=json` and `jest --json`: `{ testResults: [{ name, status, message,
 * assertionResults: [{ status, fullName, title, failureMessages, location? }] }] }`. One error per
 * failed test, at `location`, else the first stack line naming the file, else line 1; a file that
 * failed without a failed test (it did not load, a hook threw) gives one error at line 1.
 */
function readTestResults(files: unknown[], sink: DiagnosticSink): boolean {
  for (const file of files) {
    if (sink.full()) break;
    if (!isObject(file) || typeof file.name !== 'string') continue;
    const name = file.name;
    const tests = Array.isArray(file.assertionResults) ? file.assertionResults : [];
    let failed = 0;
    for (const test of tests) {
      if (!isObject(test) || test.status !== 'failed') continue;
      failed++;
      const failures = Array.isArray(test.failureMessages) ? test.failureMessages.filter((m): m is string => typeof m === 'string') : [];
      const title =
        typeof test.fullName === 'string' && test.fullName !== '' ? test.fullName : typeof test.title === 'string' ? test.title : '';
      const reason = failures.length > 0 ? firstMeaningfulLine(failures[0]) : '';
      const where = isObject(test.location) && isPositiveInteger(test.location.line) ? test.location : stackPlace(failures, name);
      sink.add({
        path: name,
        line: (where?.line as number) ?? 1,
        column: where?.column as number,
        severity: 'error',
        message: reason === '' ? title : `${title}: ${reason}`,
      });
    }
    if (failed === 0 && file.status === 'failed' && typeof file.message === 'string' && file.message.trim() !== '') {
      sink.add({ path: name, line: 1, severity: 'error', message: `test file failed to run: ${firstMeaningfulLine(file.message)}` });
    }
  }
  return true;
}

const LINE_AND_COLUMN = /(\d{1,9}):(\d{1,9})/y;

/** The first `file:line:col` naming `file` in the failure messages' stack lines. */
function stackPlace(failures: string[], file: string): { line: number; column: number } | undefined {
  for (const failure of failures) {
    for (let at = failure.indexOf(`${file}:`); at !== -1; at = failure.indexOf(`${file}:`, at + 1)) {
      LINE_AND_COLUMN.lastIndex = at + file.length + 1;
      const match = LINE_AND_COLUMN.exec(failure);
      if (match) return { line: Number(match[1]), column: Number(match[2]) };
    }
  }
  return undefined;
}

/** The first non-empty line, skipping jest's `● title` headers. */
function firstMeaningfulLine(text: string): string {
  for (const line of stripAnsi(text).split(/\r\n|\r|\n/)) {
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('●')) return trimmed;
  }
  return '';
}

// Every pattern below is searched in one line; bounded repeats keep each linear in its length.
const TSC = /\((\d{1,9}),(\d{1,9})\): (error|warning|message) (TS\d{1,6}): ?/;
const TSC_PRETTY = /:(\d{1,9}):(\d{1,9}) - (error|warning|message) (TS\d{1,6}): ?/;
const COMPILER = /^(\d{1,9})(?::(\d{1,9}))?:(.*)$/s;
const COMPILER_SEVERITY = /^(fatal error|error|warning|note|info|information|hint)\s{0,8}:\s{0,8}/i;
const ESLINT_UNIX_TAIL = /\s\[(Error|Warning)(?:\/([^\]\s]{1,200}))?\]$/;
const PRETTIER_ERROR_PLACE = /\((\d{1,9}):(\d{1,9})\)$/;
const FILE_EXTENSION = /\.[A-Za-z][A-Za-z0-9]{0,9}$/;

/** One line of text output: tsc, then `prettier --check`, then the `file:line:col: message` fallback. */
function readTextLine(line: string, sink: DiagnosticSink): void {
  for (const pattern of [TSC, TSC_PRETTY]) {
    const match = pattern.exec(line);
    if (match && match.index > 0) {
      const path = line.slice(0, match.index).trim();
      const severity = match[3] === 'message' ? 'info' : (match[3] as Severity);
      sink.add({
        path,
        line: Number(match[1]),
        column: Number(match[2]),
        severity,
        message: `${match[4]}: ${line.slice(match.index + match[0].length)}`,
      });
      return;
    }
  }
  if (line.startsWith('[warn] ') || line.startsWith('[error] ')) readPrettierLine(line, sink);
  else readCompilerLine(line, sink);
}

/** `[warn] src/a.ts` for a file `prettier --check` would change; `[error] src/a.ts: SyntaxError: … (3:5)` for one it cannot parse. */
function readPrettierLine(line: string, sink: DiagnosticSink): void {
  if (line.startsWith('[warn] ')) {
    const path = line.slice('[warn] '.length).trim();
    if (looksLikeFilePath(path)) sink.add({ path, line: 1, severity: 'warning', message: 'not formatted (prettier --check)' });
    return;
  }
  const rest = line.slice('[error] '.length);
  const colon = rest.indexOf(': ');
  if (colon === -1 || !looksLikeFilePath(rest.slice(0, colon))) return;
  const message = rest.slice(colon + 2);
  const place = PRETTIER_ERROR_PLACE.exec(message);
  sink.add({
    path: rest.slice(0, colon),
    line: place ? Number(place[1]) : 1,
    column: place ? Number(place[2]) : undefined,
    severity: 'error',
    message,
  });
}

/** `file:line[:col]: [severity:] message` (gcc, ruff, mypy, eslint's unix formatter), only when `file` looks like a file with an extension. */
function readCompilerLine(line: string, sink: DiagnosticSink): void {
  const colon = line.indexOf(':');
  if (colon <= 0 || !looksLikeFilePath(line.slice(0, colon))) return;
  const match = COMPILER.exec(line.slice(colon + 1));
  if (!match) return;
  let message = match[3].trim();
  let severity: Severity = 'error';
  const word = COMPILER_SEVERITY.exec(message);
  if (word) {
    const w = word[1].toLowerCase();
    severity = w === 'warning' ? 'warning' : w.endsWith('error') ? 'error' : 'info';
    message = message.slice(word[0].length);
  }
  const tail = ESLINT_UNIX_TAIL.exec(message);
  if (tail) {
    severity = tail[1] === 'Warning' ? 'warning' : 'error';
    message = (tail[2] ? `${tail[2]}: ` : '') + message.slice(0, tail.index).trim();
  }
  sink.add({ path: line.slice(0, colon), line: Number(match[1]), column: match[2] ? Number(match[2]) : undefined, severity, message });
}

function looksLikeFilePath(text: string): boolean {
  return text !== '' && !/\s/.test(text) && !text.startsWith('-') && FILE_EXTENSION.test(text);
}

// An absolute path (or file:// URL) quoted in a message; its first character is not `/`, so
// `// comment` and `https://` are left alone.
const PATH_IN_TEXT = /(?:file:\/\/)?\/[^\s/'"`()<>[\]{},;:|*?][^\s'"`()<>[\]{},;:|*?]*/g;

/**
 * One trimmed line, absolute paths shown through `show`, cut to `MAX_MESSAGE` characters with `…`.
 * A long line is shortened before its paths are looked at, so the work per message is bounded; a
 * path cut there is looked at as it is left, and hidden like any other outside path.
 */
function cleanMessage(text: string, show: (path: string) => string): string {
  if (typeof text !== 'string') return '';
  let line = stripAnsi(text.slice(0, 4 * MAX_MESSAGE))
    .split(/\r\n|\r|\n/, 1)[0]
    .trim();
  line = line.replace(PATH_IN_TEXT, (match: string, offset: number, whole: string) => {
    if (offset > 0 && !match.startsWith('file:') && /[\w.~/-]/.test(whole[offset - 1])) return match;
    let end = match.length;
    while (end > 0 && match[end - 1] === '.') end--; // a sentence's full stop, not part of the path
    return show(match.slice(0, end)) + match.slice(end);
  });
  line = line.replace(/[\x00-\x1f\x7f]/g, ' ').trim();
  if (line.length <= MAX_MESSAGE) return line;
  let cut = MAX_MESSAGE - 1;
  if (/[\ud800-\udbff]/.test(line[cut - 1])) cut--;
  return `${line.slice(0, cut)}…`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function hasControlCharacter(text: string): boolean {
  return /[\x00-\x1f\x7f]/.test(text);
}
