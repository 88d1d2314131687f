/**
 * `findNearMiss`: when edit's `oldString` does not occur, the region of the file closest to it
 * and how the two differ — above all in whitespace, the most common reason (tabs against spaces,
 * trailing blanks, CRLF against LF), so the next call can copy the file's exact text.
 *
 * Two tiers, both line-based:
 * 1. Equal ignoring whitespace: every line of oldString equals a line of the file once all
 *    whitespace is removed (its first line may be the end of a file line, its last line the start
 *    of one). The first such region is the candidate; `whitespaceOnly` is true.
 * 2. Otherwise the region where most lines of oldString occur (ignoring whitespace), found by
 *    letting each line vote for the start it implies; a one-line oldString is matched to the line
 *    sharing most of its words. No candidate when nothing is similar.
 *
 * Work is bounded whatever the file's size: candidate lines are found by searching the text for
 * the longest words of oldString (`MAX_ANCHOR_WORDS` words, `MAX_HITS_PER_WORD` lines each), and
 * only those lines are compared. An oldString without a word of two letters or digits is
 * compared line by line only in files of up to `MAX_SCANNED_LINES` lines.
 *
 * Time: the search runs in slices with a turn of the event loop between them (tools/sliced-work.ts;
 * the text side, with its slice sizes, in tools/near-miss-lines.ts): the line index, the words of
 * a long oldString, the text searched for a word, lines compared and candidates scored. A near
 * miss in a 10 MiB file took up to ~90 ms of CPU in one stretch before; now ~30–60 ms in all,
 * in turns of a few milliseconds.
 *
 * It never edits: it only describes, and edit still refuses with `NO_MATCH` (an automatic match
 * would also have to guess the whitespace of newString).
 */
import { runSliced, sortSliced, type SlicedWork } from './sliced-work.js';
import { COMPARED_PER_SLICE, fileLines, squeezed, wordsOf, type FileLines } from './near-miss-lines.js';

/** One way the candidate region differs from oldString; `line` is a file line number (1-based). */
interface NearMissDifference {
  kind: 'indentation' | 'trailing-whitespace' | 'inner-whitespace' | 'line-endings' | 'text';
  line: number;
  /** What the file has there (a whitespace description, or the line's text for `text`). */
  file: string;
  /** What oldString has there. */
  oldString: string;
}

/** The closest candidate region for an oldString that does not occur. */
interface NearMiss {
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
const CANDIDATE_MAX_CHARS = 2000;
const MAX_DIFFERENCES = 8;
/** Words of oldString searched for in the file to find candidate lines. */
const MAX_ANCHOR_WORDS = 8;
/** Without a word to search for, files up to this many lines are compared line by line. */
const MAX_SCANNED_LINES = 20_000;

/**
 * Candidate lines for needle line `j` of `needle`: the lines holding its longest word, or, when
 * it has none, every line of a small file (undefined for a large one).
 */
function* anchorLines(file: FileLines, needleLine: string): SlicedWork<number[] | undefined> {
  const [word] = yield* wordsOf(needleLine, 1);
  if (word !== undefined) return yield* file.linesWith(word);
  if (file.starts.length > MAX_SCANNED_LINES) return undefined;
  return Array.from({ length: file.starts.length }, (_, i) => i);
}

/**
 * The closest region of `text` to `oldString` (see the module comment), or undefined when nothing
 * is similar. Never rejects; the work is sliced (see the module comment).
 */
export async function findNearMiss(text: string, oldString: string): Promise<NearMiss | undefined> {
  return runSliced(nearMiss(text, oldString));
}

function* nearMiss(text: string, oldString: string): SlicedWork<NearMiss | undefined> {
  const rawNeedle = oldString.split('\n');
  const needle = rawNeedle.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  // A final line break leaves an empty last line that matches the start of any line: drop it.
  if (needle.length > 1 && needle[needle.length - 1] === '') {
    needle.pop();
    rawNeedle.pop();
  }
  const keys: string[] = [];
  for (const l of needle) {
    keys.push(yield* squeezed(l));
    if (keys.length % COMPARED_PER_SLICE === 0) yield;
  }
  if (keys.every((k) => k === '')) return undefined;
  const file = yield* fileLines(text);
  if (file.starts.length === 0) return undefined;
  const exact = yield* whitespaceMatch(file, needle, keys);
  if (exact !== undefined) return yield* describe(file, needle, rawNeedle, keys, exact, true);
  const start = keys.length === 1 ? yield* closestLine(file, needle[0]) : yield* votedStart(file, needle, keys);
  return start === undefined ? undefined : yield* describe(file, needle, rawNeedle, keys, start, false);
}

/** The first line where `keys` match ignoring whitespace (first line by suffix, last by prefix). */
function* whitespaceMatch(file: FileLines, needle: readonly string[], keys: readonly string[]): SlicedWork<number | undefined> {
  const n = file.starts.length;
  const k = keys.length;
  let compared = 0;
  if (k === 1) {
    for (const i of (yield* anchorLines(file, needle[0])) ?? []) {
      if ((yield* file.key(i)).includes(keys[0])) return i;
      if (++compared % COMPARED_PER_SLICE === 0) yield;
    }
    return undefined;
  }
  function* fits(s: number): SlicedWork<boolean> {
    if (s < 0 || s + k > n) return false;
    if (!(yield* file.key(s)).endsWith(keys[0]) || !(yield* file.key(s + k - 1)).startsWith(keys[k - 1])) return false;
    for (let j = 1; j < k - 1; j++) {
      if ((yield* file.key(s + j)) !== keys[j]) return false;
      if (++compared % COMPARED_PER_SLICE === 0) yield;
    }
    return true;
  }
  // Anchor on the line of oldString with the longest word: every match holds that word there.
  let anchor = 0;
  let longest = '';
  for (let j = 0; j < needle.length; j++) {
    const [word] = yield* wordsOf(needle[j], 1);
    if (word !== undefined && word.length > longest.length) {
      anchor = j;
      longest = word;
    }
    if ((j + 1) % COMPARED_PER_SLICE === 0) yield;
  }
  const lines = longest === '' ? yield* anchorLines(file, '') : yield* file.linesWith(longest);
  for (const i of lines ?? []) {
    if (yield* fits(i - anchor)) return i - anchor;
    if (++compared % COMPARED_PER_SLICE === 0) yield;
  }
  return undefined;
}

/** The start line most lines of oldString vote for (each line equal ignoring whitespace), or undefined. */
function* votedStart(file: FileLines, needle: readonly string[], keys: readonly string[]): SlicedWork<number | undefined> {
  const votes = new Map<number, number>();
  // The lines of oldString with the longest words vote (the others would find too much).
  const all: { j: number; word: string }[] = [];
  for (let j = 0; j < needle.length; j++) {
    const word = (yield* wordsOf(needle[j], 1))[0] ?? '';
    if (word !== '' && keys[j] !== '') all.push({ j, word });
    if ((j + 1) % COMPARED_PER_SLICE === 0) yield;
  }
  const voters = (yield* sortSliced(all, (a, b) => b.word.length - a.word.length)).slice(0, MAX_ANCHOR_WORDS);
  let compared = 0;
  for (const { j, word } of voters) {
    for (const i of yield* file.linesWith(word)) {
      if ((yield* file.key(i)) === keys[j]) votes.set(i - j, (votes.get(i - j) ?? 0) + 1);
      if (++compared % COMPARED_PER_SLICE === 0) yield;
    }
  }
  let best: number | undefined;
  let bestVotes = 0;
  for (const [start, n] of votes) {
    if (n > bestVotes || (n === bestVotes && best !== undefined && start < best)) {
      best = start;
      bestVotes = n;
    }
  }
  if (best === undefined) return yield* closestLine(file, needle.find((l) => l.trim() !== '') ?? '');
  return Math.max(0, best);
}

/** The line sharing most words with `wanted` (at least half of them), or undefined. */
function* closestLine(file: FileLines, wanted: string): SlicedWork<number | undefined> {
  const words = yield* wordsOf(wanted, MAX_ANCHOR_WORDS);
  if (words.length === 0) return undefined;
  const found: number[] = [];
  for (const w of words) found.push(...(yield* file.linesWith(w)));
  const candidates = [...new Set(found)].sort((a, b) => a - b);
  let best: number | undefined;
  let bestScore = 0;
  for (let c = 0; c < candidates.length; c++) {
    const i = candidates[c];
    const line = file.line(i);
    let score = 0;
    for (const w of words) if (line.includes(w)) score++;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
    if ((c + 1) % COMPARED_PER_SLICE === 0) yield;
  }
  return bestScore * 2 >= words.length ? best : undefined;
}

/** The near miss at file line `start` for oldString's lines. */
function* describe(
  file: FileLines,
  needle: readonly string[],
  rawNeedle: readonly string[],
  keys: readonly string[],
  start: number,
  whitespaceOnly: boolean,
): SlicedWork<NearMiss> {
  const n = file.starts.length;
  const k = Math.min(needle.length, n - start);
  const differences: NearMissDifference[] = [];
  let matching = 0;
  for (let j = 0; j < k; j++) {
    if (j > 0 && j % COMPARED_PER_SLICE === 0) yield;
    const i = start + j;
    const fileLine = file.line(i);
    const fileKey = yield* file.key(i);
    const wanted = needle[j];
    const lineNo = i + 1;
    const partialStart = j === 0 && fileKey !== keys[j];
    const partialEnd = j === needle.length - 1 && fileKey !== keys[j];
    const same = fileKey === keys[j] || (partialStart && fileKey.endsWith(keys[j])) || (partialEnd && fileKey.startsWith(keys[j]));
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
function whitespaceWords(ws: string): string {
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
