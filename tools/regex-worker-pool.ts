/**
 * `regexWorkers`: the process's few worker threads that run grep's regexes, shared by every
 * grep call of every conversation (`RegexWorkerPool`).
 *
 * Why one pool: a worker per grep call made every call pay for a `new Worker` on the main
 * thread (tens of milliseconds, hundreds on a loaded machine: 100 concurrent greps held the event
 * loop for seconds and took 750 MB), and as many threads as calls fought for the cores, so plain
 * patterns ran past their budget. Here at most `size` workers exist, started on demand and kept.
 *
 * A batch (one grep call's next files, see `guarded-matcher.ts`) waits in one FIFO queue until a
 * worker is free; a call has at most one batch queued or running, so concurrent calls take
 * turns. Its budget starts when a running worker takes it (time spent waiting or starting a
 * worker is not charged); past it the worker is terminated (a regex cannot be interrupted
 * otherwise), replaced on demand, and the batch rejects with `BatchTimeout`. A worker keeps the
 * last `CACHED_REGEXES` compiled patterns.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { LineHits, LineRequest } from './line-matcher.js';
import { CodedError } from '../vfs/coded-error.js';

/** Patterns a worker keeps compiled. */
const CACHED_REGEXES = 32;

const WORKER_SOURCE = `
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

/** One batch of files searched with one regex. */
export interface RegexBatch {
  source: string;
  flags: string;
  /** Test the whole text first (only for a regex that cannot match a line break). */
  pretest: boolean;
  /** Run the regex over the whole text (flags `g` and `m` added), not line by line. */
  multiline: boolean;
  maxLineChars: number;
  /** Most lines of text of one multiline hit (then a line '…'). */
  maxBlockLines: number;
  /** The files: their bytes (transferred to the worker) and what to find in each. */
  jobs: ({ bytes: Uint8Array } & LineRequest)[];
}

/** The batch ran past its budget (its worker was terminated); `data.budgetMs` is that budget. */
export class BatchTimeout extends CodedError<'BATCH_TIMEOUT', { readonly budgetMs: number }> {
  override readonly name = 'BatchTimeout';

  constructor(budgetMs: number) {
    super('BATCH_TIMEOUT', `the batch ran past its budget of ${budgetMs} ms`, { budgetMs });
  }

  /** The budget the batch ran past, in milliseconds. */
  get budgetMs(): number {
    return this.data.budgetMs;
  }
}

/** The regex engine threw while searching the batch (its stack overflowed on a long line). */
export class RegexEngineFailure extends CodedError<'REGEX_ENGINE_FAILURE'> {
  override readonly name = 'RegexEngineFailure';

  constructor(message: string) {
    super('REGEX_ENGINE_FAILURE', message, {});
  }
}

/** A submitted batch: its results, and a way to drop it (a batch still queued is never sent). */
export interface BatchHandle {
  readonly done: Promise<LineHits[]>;
  cancel(): void;
}

interface Pending {
  batch: RegexBatch;
  budgetMs: number;
  resolve(results: LineHits[]): void;
  reject(e: unknown): void;
  cancelled: boolean;
}

interface Slot {
  worker: Worker;
  online: boolean;
  current?: { id: number; pending: Pending; timer?: ReturnType<typeof setTimeout> };
}

/** A bounded set of regex workers with one FIFO queue of batches (see the module comment). */
export class RegexWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;

  /** `size`: most workers alive at once (at least 1). */
  constructor(readonly size: number) {}

  /**
   * Queues `batch`; `done` resolves with one `LineHits` per job, in order, or rejects with
   * `BatchTimeout` past `budgetMs` of running, `RegexEngineFailure` when the regex engine threw
   * (the worker stays), or the worker's error.
   */
  submit(batch: RegexBatch, budgetMs: number): BatchHandle {
    let pending!: Pending;
    const done = new Promise<LineHits[]>((resolve, reject) => {
      pending = { batch, budgetMs, resolve, reject, cancelled: false };
    });
    this.queue.push(pending);
    this.dispatch();
    return {
      done,
      cancel: () => {
        pending.cancelled = true;
        const at = this.queue.indexOf(pending);
        if (at >= 0) this.queue.splice(at, 1);
      },
    };
  }

  /** Workers alive now (for tests and status). */
  get workers(): number {
    return this.slots.length;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.current);
      if (!slot && this.slots.length < Math.max(1, this.size)) slot = this.spawn();
      if (!slot) return;
      this.run(slot, this.queue.shift()!);
    }
  }

  private run(slot: Slot, pending: Pending): void {
    const id = ++this.nextId;
    const current: NonNullable<Slot['current']> = { id, pending };
    slot.current = current;
    slot.worker.ref(); // a batch in a worker keeps the process alive, an idle worker does not
    if (slot.online) this.arm(slot, current);
    const { batch } = pending;
    slot.worker.postMessage(
      {
        id,
        source: batch.source,
        flags: batch.flags,
        pretest: batch.pretest,
        multiline: batch.multiline,
        maxLineChars: batch.maxLineChars,
        maxBlockLines: batch.maxBlockLines,
        jobs: batch.jobs,
      },
      batch.jobs.map((j) => j.bytes.buffer as ArrayBuffer),
    );
  }

  /** Starts the budget of the batch the slot runs. */
  private arm(slot: Slot, current: NonNullable<Slot['current']>): void {
    current.timer = setTimeout(() => {
      if (slot.current !== current) return;
      this.retire(slot, new BatchTimeout(current.pending.budgetMs));
    }, current.pending.budgetMs);
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    const slot: Slot = { worker, online: false };
    worker.once('online', () => {
      slot.online = true;
      if (slot.current && !slot.current.timer) this.arm(slot, slot.current);
    });
    worker.on('message', (msg: { id: number; results?: LineHits[]; error?: string }) => {
      const current = slot.current;
      if (!current || msg.id !== current.id) return;
      clearTimeout(current.timer);
      slot.current = undefined;
      slot.worker.unref();
      if (!current.pending.cancelled) {
        if (msg.results) current.pending.resolve(msg.results);
        else current.pending.reject(new RegexEngineFailure(msg.error ?? 'the regex engine failed'));
      }
      this.dispatch();
    });
    worker.on('error', (e) => this.retire(slot, new Error(`grep worker failed: ${e.message}`)));
    worker.on('exit', () => this.retire(slot, new Error('grep worker stopped')));
    // After the listeners (a 'message' listener refs the worker's port again): an idle worker
    // never keeps the process alive (`run` refs it while it holds a batch).
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  /** Ends a slot (timed out or failed): its batch rejects with `e`, the worker is terminated. */
  private retire(slot: Slot, e: Error): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    const current = slot.current;
    slot.current = undefined;
    if (current) {
      clearTimeout(current.timer);
      if (!current.pending.cancelled) current.pending.reject(e);
    }
    void slot.worker.terminate();
    this.dispatch();
  }
}

/** The process's pool: as many workers as cores, between 2 and 4. */
export const regexWorkers = new RegexWorkerPool(Math.max(2, Math.min(4, availableParallelism())));
