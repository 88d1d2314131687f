/**
 * The text side of edit's near-miss search (tools/near-miss.ts), as sliced passes
 * (tools/sliced-work.ts: run with `runSliced`, or `yield*` from another pass): a file's lines with
 * their whitespace-free keys and the lines holding a word (`fileLines`), the longest words of a
 * text (`wordsOf`), whitespace removed (`squeezed`). Each pauses after a bounded amount of work:
 * `LINES_PER_SLICE` line starts, `WORDS_PER_SLICE` words, `COMPARED_PER_SLICE` hits,
 * `CHARS_PER_SLICE` characters searched or squeezed.
 */
import { ShardedSet } from './sharded-map.js';
import type { SlicedWork } from './sliced-work.js';

/** Lines found per word at most (a word that common says little). */
const MAX_HITS_PER_WORD = 2000;
/** Line starts found per slice of the search. */
const LINES_PER_SLICE = 16_384;
/** Words of oldString read per slice. */
const WORDS_PER_SLICE = 16_384;
/** Lines compared, hits gathered or candidates scored per slice. */
export const COMPARED_PER_SLICE = 500;
/** Characters searched, or a line's whitespace removed from, per slice. */
const CHARS_PER_SLICE = 1024 * 1024;

/** A file's text by lines: their starts, texts, whitespace-free keys, and the lines holding a word. */
export interface FileLines {
  text: string;
  starts: number[];
  /** Line i without its terminator (and without a '\r' before the '\n'). */
  line(i: number): string;
  /** True when line i ends with '\r\n'. */
  crlf(i: number): boolean;
  /** Line i with all whitespace removed, computed once. */
  key(i: number): SlicedWork<string>;
  /** The lines holding `word` (sorted, at most `MAX_HITS_PER_WORD`). */
  linesWith(word: string): SlicedWork<number[]>;
}

/** `lineStarts` (tools/text-content.ts) in slices. */
function* lineStartsOf(text: string): SlicedWork<number[]> {
  const starts: number[] = [];
  if (text.length === 0) return starts;
  starts.push(0);
  let at = text.indexOf('\n');
  while (at !== -1 && at + 1 < text.length) {
    starts.push(at + 1);
    if (starts.length % LINES_PER_SLICE === 0) yield;
    at = text.indexOf('\n', at + 1);
  }
  return starts;
}

/** The `FileLines` of `text`, its line index built in slices. */
export function* fileLines(text: string): SlicedWork<FileLines> {
  const starts = yield* lineStartsOf(text);
  const keys = new Map<number, string>();
  const endOf = (i: number) => (i + 1 < starts.length ? starts[i + 1] - 1 : text.endsWith('\n') ? text.length - 1 : text.length);
  const crlf = (i: number) => {
    const end = endOf(i);
    return end > starts[i] && text.charCodeAt(end - 1) === 13 && end < text.length;
  };
  const line = (i: number) => {
    const end = endOf(i);
    return text.slice(starts[i], end > starts[i] && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
  };
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  function* linesWith(word: string): SlicedWork<number[]> {
    const out: number[] = [];
    for (let at = yield* indexOfSliced(text, word, 0); at !== -1 && out.length < MAX_HITS_PER_WORD; ) {
      const i = lineOf(at);
      out.push(i);
      if (out.length % COMPARED_PER_SLICE === 0) yield;
      at = i + 1 < starts.length ? yield* indexOfSliced(text, word, starts[i + 1]) : -1;
    }
    return out;
  }
  function* key(i: number): SlicedWork<string> {
    const known = keys.get(i);
    if (known !== undefined) return known;
    const k = yield* squeezed(line(i));
    keys.set(i, k);
    return k;
  }
  return { text, starts, line, crlf, key, linesWith };
}

/**
 * The longest words (letters, digits, `_`, `$`; two characters or more) of `s`, longest first
 * (ties in the order they first occur), at most `max`.
 */
export function* wordsOf(s: string, max: number): SlicedWork<string[]> {
  const seen = new ShardedSet<string>();
  const top: string[] = [];
  const words = /[\p{L}\p{N}_$]{2,}/gu;
  let read = 0;
  for (let m = words.exec(s); m !== null; m = words.exec(s)) {
    if (++read % WORDS_PER_SLICE === 0) yield;
    const w = m[0];
    if (seen.has(w)) continue;
    seen.add(w);
    if (top.length === max && w.length <= top[max - 1].length) continue;
    let at = top.length;
    while (at > 0 && top[at - 1].length < w.length) at--;
    top.splice(at, 0, w);
    if (top.length > max) top.pop();
  }
  return top;
}

/** `text.indexOf(word, from)` for a `word` of one character or more, looking through `CHARS_PER_SLICE` characters per slice. */
function* indexOfSliced(text: string, word: string, from: number): SlicedWork<number> {
  for (let at = from; at < text.length; at += CHARS_PER_SLICE) {
    if (at > from) yield;
    const found = text.slice(at, at + CHARS_PER_SLICE + word.length - 1).indexOf(word);
    if (found !== -1) return at + found;
  }
  return -1;
}

const squeeze = (s: string) => s.replace(/\s+/g, '');

/** `s` with all whitespace removed, a long one `CHARS_PER_SLICE` characters at a time (the same text). */
export function* squeezed(s: string): SlicedWork<string> {
  if (s.length <= CHARS_PER_SLICE) return squeeze(s);
  let out = '';
  for (let at = 0; at < s.length; at += CHARS_PER_SLICE) {
    out += squeeze(s.slice(at, at + CHARS_PER_SLICE));
    yield;
  }
  return out;
}
