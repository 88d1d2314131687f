/**
 * `LiteralMatcher`: grep's case-sensitive literal search over a file's bytes, on the main
 * thread, in bounded slices.
 *
 * The needle is found with `Buffer.indexOf` (native, linear); line numbers come from counting
 * '\n' bytes up to each hit; only the matching lines (and their context) are decoded, each at
 * most `4 × MAX_LINE_CHARS` bytes, so a 20 MiB one-line file costs one scan and one short
 * decode. Context lines (`before`, `after`) are found the same way around each hit. Work is done in slices of `SLICE_BYTES` scanned; between slices the search yields to
 * the event loop, so no file holds it for long. A needle holds no '\n', '\r' or U+FFFD
 * (`compileMatcher` sends those to the worker), so bytes and decoded lines agree.
 */
import type { LineHits, LineMatcher, LineRequest, MatchedLine } from './line-matcher.js';
import { MAX_LINE_CHARS } from './line-matcher.js';

/** Bytes scanned between two yields to the event loop. */
const SLICE_BYTES = 1024 * 1024;
const NL = 10;
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** See the module comment. */
export class LiteralMatcher implements LineMatcher {
  readonly needle: Buffer;
  /** The needle is the pattern: a file holding it has a hit. */
  readonly needleIsHit = true;

  constructor(pattern: string) {
    this.needle = Buffer.from(pattern, 'utf8');
  }

  search(bytes: Uint8Array, request: LineRequest, owned = false): LineHits | Promise<LineHits> {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (request.limit === 1 && !request.texts) return { count: buf.indexOf(this.needle) === -1 ? 0 : 1 };
    const state: ScanState = { pos: 0, line: 0, hits: { count: 0, lines: request.texts ? [] : undefined } };
    if (this.scanSlice(buf, request, state)) return state.hits; // small files: one slice, no await
    // Unless the bytes are handed over, the caller may reuse them once `search` returns: the
    // later slices then scan a copy.
    return this.scanRest(owned ? buf : Buffer.from(buf), request, state);
  }

  async close(): Promise<void> {}

  private async scanRest(buf: Buffer, request: LineRequest, state: ScanState): Promise<LineHits> {
    do await new Promise<void>((resolve) => setImmediate(resolve));
    while (!this.scanSlice(buf, request, state));
    return state.hits;
  }

  /** Scans about `SLICE_BYTES` from `state.pos`; true when the file is done. */
  private scanSlice(buf: Buffer, request: LineRequest, state: ScanState): boolean {
    const stop = Math.min(buf.length, state.pos + SLICE_BYTES);
    while (state.hits.count < request.limit) {
      const hit = buf.indexOf(this.needle, state.pos);
      if (hit === -1) return true;
      if (hit >= stop) {
        state.line += countNewlines(buf, state.pos, stop);
        state.pos = stop;
        return false;
      }
      state.line += countNewlines(buf, state.pos, hit);
      const start = hit === 0 ? 0 : buf.lastIndexOf(NL, hit - 1) + 1;
      const nl = buf.indexOf(NL, hit);
      const end = nl === -1 ? buf.length : nl;
      state.hits.count++;
      if (state.hits.lines) state.hits.lines.push(matched(buf, start, end, state.line, request));
      state.pos = end + 1;
      state.line++;
      if (nl === -1 || state.pos >= buf.length) return true;
      if (state.pos >= stop) return false;
    }
    return true;
  }
}

interface ScanState {
  /** Next byte to scan; `line` is the 0-based line it is in. */
  pos: number;
  line: number;
  hits: LineHits & { lines?: MatchedLine[] };
}

function countNewlines(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (buf[i] === NL) n++;
  return n;
}

/** The line `buf[start, end)` (0-based index `line`) with the context lines `request` asks for. */
function matched(buf: Buffer, start: number, end: number, line: number, request: LineRequest): MatchedLine {
  const m: MatchedLine = { line: line + 1, text: lineText(buf, start, end) };
  if (request.before > 0) {
    const before: string[] = [];
    for (let e = start - 1; before.length < request.before && e >= 0; ) {
      const s = e === 0 ? 0 : buf.lastIndexOf(NL, e - 1) + 1;
      before.unshift(lineText(buf, s, e));
      e = s - 1;
    }
    m.before = before;
  }
  if (request.after > 0) {
    const after: string[] = [];
    for (let s = end + 1; after.length < request.after && s < buf.length; ) {
      const nl = buf.indexOf(NL, s);
      const e = nl === -1 ? buf.length : nl;
      after.push(lineText(buf, s, e));
      s = e + 1;
    }
    m.after = after;
  }
  return m;
}

/** One line's text: without its '\r', cut at `MAX_LINE_CHARS` (decoding at most 4 bytes a character). */
function lineText(buf: Buffer, start: number, end: number): string {
  const cap = 4 * MAX_LINE_CHARS + 4;
  let text = decoder.decode(buf.subarray(start, Math.min(end, start + cap)));
  if (end - start <= cap && text.endsWith('\r')) text = text.slice(0, -1);
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
}
