/**
 * `REGEX_WORKER_SOURCE`: the program each regex worker thread runs (`regex-worker-pool.ts`).
 * It receives a batch (a regex and the bytes of some files), decodes each file, and answers
 * the hits line by line (`searchLines`) or over the whole text for `multiline`
 * (`searchText`), cut as grep shows them; it keeps the last `CACHED_REGEXES` compiled
 * patterns. A regex the engine gives up on answers `{ id, error }`; the worker stays.
 */

/** Patterns a worker keeps compiled. */
const CACHED_REGEXES = 32;

/** The worker's program, run with `new Worker(source, { eval: true })`. */
export const REGEX_WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const compiled = new Map();
function regexes(source, flags, pretest, multiline) {
  const key = flags + '/' + (pretest ? 1 : 0) + (multiline ? 1 : 0) + '/' + source;
  let c = compiled.get(key);
  if (c) { compiled.delete(key); compiled.set(key, c); return c; }
  c = {
    re: new RegExp(source, multiline ? flags + 'gm' : flags),
    whole: pretest ? new RegExp(source, flags + 'm') : undefined,
  };
  compiled.set(key, c);
  if (compiled.size > ${CACHED_REGEXES}) compiled.delete(compiled.keys().next().value);
  return c;
}
const strip = (l) => (l.length > 0 && l.charCodeAt(l.length - 1) === 13 ? l.slice(0, -1) : l);
function searchLines({ re, whole }, cut, { bytes, limit, texts, before, after }) {
  const text = decoder.decode(bytes);
  if (whole) { whole.lastIndex = 0; if (!whole.test(text)) return { count: 0 }; }
  const lines = text.split('\\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let count = 0;
  const found = texts ? [] : undefined;
  for (let i = 0; i < lines.length && count < limit; i++) {
    const line = strip(lines[i]);
    re.lastIndex = 0;
    if (!re.test(line)) continue;
    count++;
    if (!found) continue;
    const m = { line: i + 1, text: cut(line) };
    if (before > 0) m.before = lines.slice(Math.max(0, i - before), i).map((l) => cut(strip(l)));
    if (after > 0) m.after = lines.slice(i + 1, i + 1 + after).map((l) => cut(strip(l)));
    found.push(m);
  }
  return found ? { count, lines: found } : { count };
}
function countBreaks(text, from, to) {
  let n = 0;
  for (let i = text.indexOf('\\n', from); i !== -1 && i < to; i = text.indexOf('\\n', i + 1)) n++;
  return n;
}
/** The line starting at offset p: [text, offset after its line break (or -1 at the end)]. */
function lineAt(text, p) {
  const nl = text.indexOf('\\n', p);
  return nl === -1 ? [text.slice(p), -1] : [text.slice(p, nl), nl + 1];
}
/** Multiline: the regex (flags g, m) over the whole text; matches sharing a line are one hit. */
function searchText({ re }, cut, maxBlockLines, { bytes, limit, texts, before, after }) {
  const text = decoder.decode(bytes);
  const hits = [];
  let pos = 0;
  let line = 0;
  let last;
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
  if (!texts) return { count: hits.length };
  const found = hits.map((h) => {
    let p = h.at === 0 ? 0 : text.lastIndexOf('\\n', h.at - 1) + 1;
    const m = { line: h.start + 1, text: '' };
    if (h.end > h.start) m.endLine = h.end + 1;
    if (before > 0) {
      m.before = [];
      for (let q = p; m.before.length < before && q > 0; ) {
        const from = q - 1 === 0 ? 0 : text.lastIndexOf('\\n', q - 2) + 1;
        m.before.unshift(cut(strip(text.slice(from, q - 1))));
        q = from;
      }
    }
    const shown = [];
    for (let n = h.start; n <= h.end && p !== -1; n++) {
      const [l, next] = lineAt(text, p);
      if (shown.length < maxBlockLines) shown.push(cut(strip(l)));
      else if (shown.length === maxBlockLines) shown.push('\\u2026');
      p = next;
    }
    m.text = shown.join('\\n');
    if (after > 0) {
      m.after = [];
      while (m.after.length < after && p !== -1 && p < text.length) {
        const [l, next] = lineAt(text, p);
        m.after.push(cut(strip(l)));
        p = next;
      }
    }
    return m;
  });
  return { count: hits.length, lines: found };
}
parentPort.on('message', ({ id, source, flags, pretest, multiline, maxLineChars, maxBlockLines, jobs }) => {
  let results;
  const cut = (l) => (l.length > maxLineChars ? l.slice(0, maxLineChars) + '\\u2026' : l);
  try {
    const c = regexes(source, flags, pretest, multiline);
    results = jobs.map((job) => (multiline ? searchText(c, cut, maxBlockLines, job) : searchLines(c, cut, job)));
  } catch (e) {
    // V8 gives up on some regexes over long lines (a lookahead over 10 MB: its stack overflows).
    parentPort.postMessage({ id, error: String(e && e.message) });
    return;
  }
  parentPort.postMessage({ id, results });
});`;
