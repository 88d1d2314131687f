/**
 * The program a pool worker runs for grep's regexes (vfs/worker-program.ts, submitted by
 * `regex-worker-pool.ts`). It receives a batch (a regex and the bytes of some files), decodes
 * each file, and answers the hits line by line (`searchLines`) or over the whole text for
 * `multiline` (`searchText`), cut as grep shows them; it keeps the last `CACHED_REGEXES`
 * compiled patterns. A regex the engine gives up on (V8's stack overflows on a lookahead over a
 * 10 MB line) throws out of `run`: the pool answers the batch with that message, and the worker
 * stays.
 *
 * It runs in the worker thread only, so it imports nothing that runs code at load (the types
 * from `line-matcher.ts` are erased; that module's V8 flags are process-wide and already set).
 */
import type { LineHits, LineRequest, MatchedLine } from './line-matcher.js';
import type { RegexBatch } from './regex-worker-pool.js';

/** Patterns a worker keeps compiled. */
const CACHED_REGEXES = 32;

/** A batch's regexes: the one run per line (or over the text), and the whole-text pre-test. */
interface Compiled {
  readonly re: RegExp;
  readonly whole?: RegExp;
}

/** One file of a batch: its bytes and what to find. */
type Job = { readonly bytes: Uint8Array } & LineRequest;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const compiled = new Map<string, Compiled>();

/** The compiled regexes of a batch, from the cache (most recently used kept last). */
function regexes(source: string, flags: string, pretest: boolean, multiline: boolean): Compiled {
  const key = `${flags}/${pretest ? 1 : 0}${multiline ? 1 : 0}/${source}`;
  let c = compiled.get(key);
  if (c) {
    compiled.delete(key);
    compiled.set(key, c);
    return c;
  }
  c = {
    re: new RegExp(source, multiline ? `${flags}gm` : flags),
    whole: pretest ? new RegExp(source, `${flags}m`) : undefined,
  };
  compiled.set(key, c);
  if (compiled.size > CACHED_REGEXES) compiled.delete(compiled.keys().next().value!);
  return c;
}

/** A line without its trailing '\r'. */
const strip = (l: string): string => (l.length > 0 && l.charCodeAt(l.length - 1) === 13 ? l.slice(0, -1) : l);

/** The hits of `re` line by line, after the whole-text pre-test when there is one. */
function searchLines({ re, whole }: Compiled, cut: (l: string) => string, { bytes, limit, texts, before, after }: Job): LineHits {
  const text = decoder.decode(bytes);
  if (whole) {
    whole.lastIndex = 0;
    if (!whole.test(text)) return { count: 0 };
  }
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let count = 0;
  const found: MatchedLine[] | undefined = texts ? [] : undefined;
  for (let i = 0; i < lines.length && count < limit; i++) {
    const line = strip(lines[i]);
    re.lastIndex = 0;
    if (!re.test(line)) continue;
    count++;
    if (!found) continue;
    const m: MatchedLine = { line: i + 1, text: cut(line) };
    if (before > 0) m.before = lines.slice(Math.max(0, i - before), i).map((l) => cut(strip(l)));
    if (after > 0) m.after = lines.slice(i + 1, i + 1 + after).map((l) => cut(strip(l)));
    found.push(m);
  }
  return found ? { count, lines: found } : { count };
}

/** Line breaks in `text` from `from` up to (not including) `to`. */
function countBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The line starting at offset p: [text, offset after its line break (or -1 at the end)]. */
function lineAt(text: string, p: number): [string, number] {
  const nl = text.indexOf('\n', p);
  return nl === -1 ? [text.slice(p), -1] : [text.slice(p, nl), nl + 1];
}

/** A multiline hit: its first and last line (0-based) and where its first match starts. */
interface Span {
  readonly start: number;
  end: number;
  readonly at: number;
}

/** The spans of the matches of `re` (flags g, m) over the whole text; matches sharing a line are one span. */
function spansOf(re: RegExp, text: string, limit: number): Span[] {
  const hits: Span[] = [];
  let pos = 0;
  let line = 0;
  let last: Span | undefined;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const s = m.index;
    const e = s + m[0].length;
    if (e === s) re.lastIndex = s + 1;
    line += countBreaks(text, pos, s);
    pos = s;
    const endLine = line + countBreaks(text, s, e > s && text.charCodeAt(e - 1) === 10 ? e - 1 : e);
    if (last && line <= last.end) {
      if (endLine > last.end) last.end = endLine;
      continue;
    }
    if (hits.length >= limit) break;
    last = { start: line, end: endLine, at: s };
    hits.push(last);
  }
  return hits;
}

/** The `before` lines ending at the line break before offset `p`, nearest last. */
function linesBefore(text: string, p: number, before: number, cut: (l: string) => string): string[] {
  const out: string[] = [];
  for (let q = p; out.length < before && q > 0; ) {
    const from = q - 1 === 0 ? 0 : text.lastIndexOf('\n', q - 2) + 1;
    out.unshift(cut(strip(text.slice(from, q - 1))));
    q = from;
  }
  return out;
}

/** One span as grep shows it: its lines (at most `maxBlockLines`, then '…') and context. */
function showSpan(text: string, h: Span, cut: (l: string) => string, maxBlockLines: number, job: Job): MatchedLine {
  let p = h.at === 0 ? 0 : text.lastIndexOf('\n', h.at - 1) + 1;
  const m: MatchedLine = { line: h.start + 1, text: '' };
  if (h.end > h.start) m.endLine = h.end + 1;
  if (job.before > 0) m.before = linesBefore(text, p, job.before, cut);
  const shown: string[] = [];
  for (let n = h.start; n <= h.end && p !== -1; n++) {
    const [l, next] = lineAt(text, p);
    if (shown.length < maxBlockLines) shown.push(cut(strip(l)));
    else if (shown.length === maxBlockLines) shown.push('\u2026');
    p = next;
  }
  m.text = shown.join('\n');
  if (job.after > 0) {
    m.after = [];
    while (m.after.length < job.after && p !== -1 && p < text.length) {
      const [l, next] = lineAt(text, p);
      m.after.push(cut(strip(l)));
      p = next;
    }
  }
  return m;
}

/** Multiline: the regex (flags g, m) over the whole text; matches sharing a line are one hit. */
function searchText({ re }: Compiled, cut: (l: string) => string, maxBlockLines: number, job: Job): LineHits {
  const text = decoder.decode(job.bytes);
  const hits = spansOf(re, text, job.limit);
  if (!job.texts) return { count: hits.length };
  return { count: hits.length, lines: hits.map((h) => showSpan(text, h, cut, maxBlockLines, job)) };
}

/** Runs one batch: one `LineHits` per job, in order (see the module comment). */
export function run(batch: RegexBatch): LineHits[] {
  const { maxLineChars, maxBlockLines, multiline } = batch;
  const cut = (l: string) => (l.length > maxLineChars ? `${l.slice(0, maxLineChars)}\u2026` : l);
  const c = regexes(batch.source, batch.flags, batch.pretest, multiline);
  return batch.jobs.map((job) => (multiline ? searchText(c, cut, maxBlockLines, job) : searchLines(c, cut, job)));
}
