/**
 * `findNearMiss`: when edit's `oldString` does not occur, the region of the file closest to it
 * and how the two differ — above all in whitespace, the most common reason (tabs against spaces,
 * trailing blanks, CRLF against LF), so the next call can copy the file's exact text.
 *
 * Two tiers, both line-based and linear in the file's size:
 * 1. Equal ignoring whitespace: every line of oldString equals a line of the file once all
 *    whitespace is removed (its first line may be the end of a file line, its last line the start
 *    of one). The first such region is the candidate; `whitespaceOnly` is true.
 * 2. Otherwise the region where most lines of oldString occur (ignoring whitespace), found by
 *    letting each line vote for the start it implies; a one-line oldString is matched to the line
 *    sharing most of its words. No candidate when nothing is similar.
 *
 * It never edits: it only describes, and edit still refuses with `NO_MATCH` (an automatic match
 * would also have to guess the whitespace of newString).
 */
import { lineStarts } from './text-content.js';

/** One way the candidate region differs from oldString; `line` is a file line number (1-based). */
export interface NearMissDifference {
  kind: 'indentation' | 'trailing-whitespace' | 'inner-whitespace' | 'line-endings' | 'text';
  line: number;
  /** What the file has there (a whitespace description, or the line's text for `text`). */
  file: string;
  /** What oldString has there. */
  oldString: string;
}

/** The closest candidate region for an oldString that does not occur. */
export interface NearMiss {
  /** First and last file lines of the region (1-based, inclusive). */
  line: number;
  endLine: number;
  /** The exact text of those lines in the file (line breaks included), at most `CANDIDATE_MAX_CHARS`. */
  text: string;
  /** True when the region equals oldString once all whitespace is removed. */
  whitespaceOnly: boolean;
  /** Lines of oldString that occur in the region ignoring whitespace, out of `oldStringLines`. */
  matchingLines: number;
  oldStringLines: number;
  /** How the region differs (the first `MAX_DIFFERENCES`). */
  differences: NearMissDifference[];
}

/** Longest candidate text returned. */
export const CANDIDATE_MAX_CHARS = 2000;
const MAX_DIFFERENCES = 8;
/** A line of oldString occurring more often than this in the file casts no vote (`}`, blank lines). */
const MAX_VOTES_PER_LINE = 200;

interface FileLines {
  text: string;
  starts: number[];
  /** Line i without its terminator (and without a '\r' before the '\n'). */
  line(i: number): string;
  /** True when line i ends with '\r\n'. */
  crlf(i: number): boolean;
  /** Line i with all whitespace removed, computed once. */
  key(i: number): string;
}

function fileLines(text: string): FileLines {
  const starts = lineStarts(text);
  const keys: (string | undefined)[] = new Array(starts.length);
  const endOf = (i: number) => (i + 1 < starts.length ? starts[i + 1] - 1 : text.endsWith('\n') ? text.length - 1 : text.length);
  const crlf = (i: number) => {
    const end = endOf(i);
    return end > starts[i] && text.charCodeAt(end - 1) === 13 && end < text.length;
  };
  const line = (i: number) => {
    const end = endOf(i);
    return text.slice(starts[i], end > starts[i] && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
  };
  return {
    text,
    starts,
    line,
    crlf,
    key: (i) => (keys[i] ??= squeeze(line(i))),
  };
}

const squeeze = (s: string) => s.replace(/\s+/g, '');

/** The closest region of `text` to `oldString` (see the module comment), or undefined when nothing is similar. */
export function findNearMiss(text: string, oldString: string): NearMiss | undefined {
  const rawNeedle = oldString.split('\n');
  const needle = rawNeedle.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  // A final line break leaves an empty last line that matches the start of any line: drop it.
  if (needle.length > 1 && needle[needle.length - 1] === '') {
    needle.pop();
    rawNeedle.pop();
  }
  const keys = needle.map(squeeze);
  if (keys.every((k) => k === '')) return undefined;
  const file = fileLines(text);
  if (file.starts.length === 0) return undefined;
  const exact = whitespaceMatch(file, keys);
  if (exact !== undefined) return describe(file, needle, rawNeedle, keys, exact, true);
  const start = keys.length === 1 ? closestLine(file, needle[0]) : votedStart(file, keys);
  return start === undefined ? undefined : describe(file, needle, rawNeedle, keys, start, false);
}

/** The first line where `keys` match ignoring whitespace (first line by suffix, last by prefix). */
function whitespaceMatch(file: FileLines, keys: readonly string[]): number | undefined {
  const n = file.starts.length;
  const k = keys.length;
  if (k === 1) {
    for (let i = 0; i < n; i++) if (file.key(i).includes(keys[0])) return i;
    return undefined;
  }
  const fits = (s: number) => {
    if (s < 0 || s + k > n) return false;
    if (!file.key(s).endsWith(keys[0]) || !file.key(s + k - 1).startsWith(keys[k - 1])) return false;
    for (let j = 1; j < k - 1; j++) if (file.key(s + j) !== keys[j]) return false;
    return true;
  };
  // Anchor on a middle line when there is one (exact key equality), else scan every start.
  const anchor = k > 2 ? rarestMiddle(keys) : -1;
  if (anchor < 0) {
    for (let s = 0; s + k <= n; s++) if (fits(s)) return s;
    return undefined;
  }
  for (let i = 0; i < n; i++) if (file.key(i) === keys[anchor] && fits(i - anchor)) return i - anchor;
  return undefined;
}

/** The index of the longest non-empty middle key (the likeliest to be rare), or -1. */
function rarestMiddle(keys: readonly string[]): number {
  let best = -1;
  for (let j = 1; j < keys.length - 1; j++) if (keys[j] !== '' && (best < 0 || keys[j].length > keys[best].length)) best = j;
  return best;
}

/** The start line most lines of oldString vote for (each line equal ignoring whitespace), or undefined. */
function votedStart(file: FileLines, keys: readonly string[]): number | undefined {
  const wanted = new Map<string, number[]>();
  keys.forEach((key, j) => {
    if (key === '') return;
    const list = wanted.get(key);
    if (list) list.push(j);
    else wanted.set(key, [j]);
  });
  const hits = new Map<string, number>();
  const votes = new Map<number, number>();
  for (let i = 0; i < file.starts.length; i++) {
    const at = wanted.get(file.key(i));
    if (!at) continue;
    const seen = (hits.get(file.key(i)) ?? 0) + 1;
    hits.set(file.key(i), seen);
    if (seen > MAX_VOTES_PER_LINE) continue;
    for (const j of at) votes.set(i - j, (votes.get(i - j) ?? 0) + 1);
  }
  let best: number | undefined;
  let bestVotes = 0;
  for (const [start, n] of votes) {
    if (n > bestVotes || (n === bestVotes && best !== undefined && start < best)) {
      best = start;
      bestVotes = n;
    }
  }
  if (best === undefined) return closestLine(file, keys.find((k) => k !== '') ?? '');
  return Math.max(0, best);
}

/** The line sharing most words with `wanted` (at least half of them), or undefined. */
function closestLine(file: FileLines, wanted: string): number | undefined {
  const words = [...new Set(wanted.match(/[\p{L}\p{N}_$]+/gu) ?? [])].sort((a, b) => b.length - a.length).slice(0, 8);
  if (words.length === 0) return undefined;
  let best: number | undefined;
  let bestScore = 0;
  for (let i = 0; i < file.starts.length; i++) {
    const line = file.line(i);
    let score = 0;
    for (const w of words) if (line.includes(w)) score++;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return bestScore * 2 >= words.length ? best : undefined;
}

/** The near miss at file line `start` for oldString's lines. */
function describe(
  file: FileLines,
  needle: readonly string[],
  rawNeedle: readonly string[],
  keys: readonly string[],
  start: number,
  whitespaceOnly: boolean,
): NearMiss {
  const n = file.starts.length;
  const k = Math.min(needle.length, n - start);
  const differences: NearMissDifference[] = [];
  let matching = 0;
  for (let j = 0; j < k; j++) {
    const i = start + j;
    const fileLine = file.line(i);
    const wanted = needle[j];
    const lineNo = i + 1;
    const partialStart = j === 0 && file.key(i) !== keys[j];
    const partialEnd = j === needle.length - 1 && file.key(i) !== keys[j];
    const same =
      file.key(i) === keys[j] || (partialStart && file.key(i).endsWith(keys[j])) || (partialEnd && file.key(i).startsWith(keys[j]));
    if (same && keys[j] !== '') matching++;
    if (!same) {
      differences.push({ kind: 'text', line: lineNo, file: clip(fileLine), oldString: clip(wanted) });
      continue;
    }
    const fileLead = leading(fileLine);
    const wantLead = leading(wanted);
    if (!partialStart && fileLead !== wantLead)
      differences.push({ kind: 'indentation', line: lineNo, file: whitespaceWords(fileLead), oldString: whitespaceWords(wantLead) });
    const fileTrail = trailing(fileLine);
    const wantTrail = trailing(wanted);
    if (!partialEnd && fileTrail !== wantTrail && (fileTrail.length < fileLine.length || wantTrail.length < wanted.length))
      differences.push({
        kind: 'trailing-whitespace',
        line: lineNo,
        file: whitespaceWords(fileTrail),
        oldString: whitespaceWords(wantTrail),
      });
    if (inner(fileLine) !== inner(wanted) && !partialStart && !partialEnd)
      differences.push({ kind: 'inner-whitespace', line: lineNo, file: clip(fileLine.trim()), oldString: clip(wanted.trim()) });
    if (j < needle.length - 1 && file.crlf(i) !== rawNeedle[j].endsWith('\r'))
      differences.push({
        kind: 'line-endings',
        line: lineNo,
        file: file.crlf(i) ? 'CRLF' : 'LF',
        oldString: rawNeedle[j].endsWith('\r') ? 'CRLF' : 'LF',
      });
  }
  const endLine = start + Math.max(k, 1);
  const from = file.starts[start];
  const to = endLine < n ? file.starts[endLine] : file.text.length;
  const text = file.text.slice(from, Math.min(to, from + CANDIDATE_MAX_CHARS));
  const nonEmpty = keys.filter((key) => key !== '').length;
  return {
    line: start + 1,
    endLine,
    text,
    whitespaceOnly: whitespaceOnly && differences.every((d) => d.kind !== 'text'),
    matchingLines: matching,
    oldStringLines: nonEmpty,
    differences: differences.slice(0, MAX_DIFFERENCES),
  };
}

const leading = (s: string) => /^[ \t]*/.exec(s)![0];
const trailing = (s: string) => /[ \t]*$/.exec(s)![0];
const inner = (s: string) => s.trim();

/** Whitespace in words: 'none', '1 tab', '4 spaces', '1 tab + 2 spaces', other blanks by code point. */
export function whitespaceWords(ws: string): string {
  if (ws === '') return 'none';
  const parts: string[] = [];
  let at = 0;
  while (at < ws.length) {
    const c = ws[at];
    let end = at;
    while (end < ws.length && ws[end] === c) end++;
    const n = end - at;
    const name = c === ' ' ? 'space' : c === '\t' ? 'tab' : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    parts.push(`${n} ${name}${n === 1 ? '' : 's'}`);
    at = end;
  }
  return parts.join(' + ');
}

function clip(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** One sentence for the message: where the candidate is and how it differs. */
export function nearMissSentence(miss: NearMiss): string {
  const where = miss.line === miss.endLine ? `line ${miss.line}` : `lines ${miss.line}-${miss.endLine}`;
  const diffs = miss.differences.slice(0, 4).map(differenceWords);
  if (miss.whitespaceOnly) {
    return `${where} match it except for whitespace: ${diffs.join('; ')}. Copy the file's exact text (details.candidate.text, or read offset ${miss.line}).`;
  }
  const first = diffs.length > 0 ? `; ${diffs[0]}` : '';
  return `the closest region is ${where} (${miss.matchingLines} of ${miss.oldStringLines} lines match ignoring whitespace)${first}.`;
}

function differenceWords(d: NearMissDifference): string {
  switch (d.kind) {
    case 'indentation':
      return `line ${d.line} is indented with ${d.file} in the file, ${d.oldString} in oldString`;
    case 'trailing-whitespace':
      return `line ${d.line} ends with ${d.file} of trailing whitespace in the file, ${d.oldString} in oldString`;
    case 'inner-whitespace':
      return `line ${d.line} has different spacing inside it: the file has ${JSON.stringify(d.file)}`;
    case 'line-endings':
      return `line ${d.line} ends with ${d.file} in the file, ${d.oldString} in oldString`;
    case 'text':
      return `line ${d.line} differs: the file has ${JSON.stringify(d.file)}, oldString has ${JSON.stringify(d.oldString)}`;
  }
}
