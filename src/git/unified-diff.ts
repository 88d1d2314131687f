/**
 * `unifiedFilePatch`: one file's part of a `git diff` patch — the `diff --git` header, mode and
 * `index` lines, `---`/`+++` names (`/dev/null` for an added or deleted side), and hunks with
 * three lines of context, or `Binary files … differ` when either side holds a NUL byte in its
 * first 8 KiB (git's test). A side without a final newline is marked
 * `\ No newline at end of file`. Rename detection and function-name hunk headers are not done.
 * With `fullIndex` (`git diff --binary --full-index`), the `index` line holds whole oids and a
 * binary file's new bytes follow as a `GIT binary patch` literal, so `git apply` can apply it.
 */
import { diffLines, type LineEdit } from '../../tools/text/index.js';
import { gitBinaryPatch } from './git-binary-patch.js';

/** One side of a changed file: its git mode (`100644`, `100755`, `120000`), blob oid and bytes. */
export interface PatchSide {
  mode: string;
  oid: string;
  bytes: Uint8Array;
}

const CONTEXT = 3;
const BINARY_PROBE = 8000;
const NO_NEWLINE = '\\ No newline at end of file\n';
const SHORT_ZERO = '0000000';

/** True when git would treat these bytes as binary (a NUL in the first 8000 bytes). */
function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE).includes(0);
}

/**
 * The patch text for `path` going from `before` to `after` (null: the file is absent on that
 * side; both null is an error of the caller and gives ''). Same bytes and mode: ''.
 */
export function unifiedFilePatch(
  path: string,
  before: PatchSide | null,
  after: PatchSide | null,
  options: { fullIndex?: boolean } = {},
): string {
  const short = options.fullIndex ? (oid: string) => oid : shortOid;
  const ZERO = options.fullIndex ? '0'.repeat((after ?? before)?.oid.length ?? 40) : SHORT_ZERO;
  if (!before && !after) return '';
  if (before && after && before.oid === after.oid && before.mode === after.mode) return '';
  let out = `diff --git a/${path} b/${path}\n`;
  if (!before && after) out += `new file mode ${after.mode}\nindex ${ZERO}..${short(after.oid)}\n`;
  else if (before && !after) out += `deleted file mode ${before.mode}\nindex ${short(before.oid)}..${ZERO}\n`;
  else if (before && after) {
    if (before.mode !== after.mode) out += `old mode ${before.mode}\nnew mode ${after.mode}\n`;
    if (before.oid === after.oid) return out;
    out += `index ${short(before.oid)}..${short(after.oid)}${before.mode === after.mode ? ` ${after.mode}` : ''}\n`;
  }
  const oldName = before ? `a/${path}` : '/dev/null';
  const newName = after ? `b/${path}` : '/dev/null';
  const binary = options.fullIndex ? (b: Uint8Array) => isBinary(b) || !isUtf8(b) : isBinary;
  if ((before && binary(before.bytes)) || (after && binary(after.bytes))) {
    if (options.fullIndex) return `${out}${gitBinaryPatch(after?.bytes ?? new Uint8Array())}`;
    return `${out}Binary files ${oldName} and ${newName} differ\n`;
  }
  const a = splitLines(before?.bytes);
  const b = splitLines(after?.bytes);
  return `${out}--- ${oldName}\n+++ ${newName}\n${hunks(a, b, diffLines(a, b))}`;
}

/** True when the bytes decode as UTF-8 (a text patch of them keeps them). */
function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function shortOid(oid: string): string {
  return oid.slice(0, 7);
}

/** Lines with their `\n` kept (a last line without one stays without). */
function splitLines(bytes: Uint8Array | undefined): string[] {
  if (!bytes || bytes.length === 0) return [];
  const text = Buffer.from(bytes).toString('utf8');
  const lines = text.split(/(?<=\n)/);
  return lines;
}

function hunks(a: readonly string[], b: readonly string[], edits: readonly LineEdit[]): string {
  const ordered = deletionsFirst(edits);
  const changed: number[] = [];
  ordered.forEach((e, i) => {
    if (e.op !== ' ') changed.push(i);
  });
  let out = '';
  let i = 0;
  while (i < changed.length) {
    let j = i;
    while (j + 1 < changed.length && (changed[j + 1] as number) - (changed[j] as number) <= 2 * CONTEXT) j++;
    const from = Math.max(0, (changed[i] as number) - CONTEXT);
    const to = Math.min(ordered.length, (changed[j] as number) + CONTEXT + 1);
    out += hunk(a, b, ordered, from, to);
    i = j + 1;
  }
  return out;
}

/** Reorders each run of changes so its deletions come before its insertions, as git prints them. */
function deletionsFirst(edits: readonly LineEdit[]): LineEdit[] {
  const out: LineEdit[] = [];
  let run: LineEdit[] = [];
  const flush = () => {
    out.push(...run.filter((e) => e.op === '-'), ...run.filter((e) => e.op === '+'));
    run = [];
  };
  for (const e of edits) {
    if (e.op === ' ') {
      flush();
      out.push(e);
    } else run.push(e);
  }
  flush();
  return out;
}

function hunk(a: readonly string[], b: readonly string[], edits: readonly LineEdit[], from: number, to: number): string {
  // Line positions at `from`: count old and new lines consumed by the edits before it.
  let oldAt = 0;
  let newAt = 0;
  for (let k = 0; k < from; k++) {
    const op = (edits[k] as LineEdit).op;
    if (op !== '+') oldAt++;
    if (op !== '-') newAt++;
  }
  let body = '';
  let oldCount = 0;
  let newCount = 0;
  for (let k = from; k < to; k++) {
    const e = edits[k] as LineEdit;
    const line = e.op === '+' ? (b[e.index] as string) : (a[e.index] as string);
    if (e.op !== '+') oldCount++;
    if (e.op !== '-') newCount++;
    body += e.op + line + (line.endsWith('\n') ? '' : `\n${NO_NEWLINE}`);
  }
  return `@@ -${range(oldAt, oldCount)} +${range(newAt, newCount)} @@\n${body}`;
}

/** `start,count` as unified diff writes it: 1-based; `,1` left out; an empty range names the line before. */
function range(at: number, count: number): string {
  if (count === 0) return `${at},0`;
  return count === 1 ? `${at + 1}` : `${at + 1},${count}`;
}
