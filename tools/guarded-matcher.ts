/**
 * `GuardedMatcher`: grep's regex matching in a worker thread, so no regex (catastrophic or just
 * quadratic on a long line) ever runs on the main thread. The worker decodes each file, splits
 * it into lines and tests them; the main thread only copies bytes in and results out.
 *
 * Files are sent in batches (up to `BATCH_FILES` files or `BATCH_BYTES` bytes, or one larger
 * file) and one batch is in the worker at a time, so each batch's time is its own (the worker's
 * start-up is not part of it): past `budgetMs` the worker is terminated and every pending search rejects with `INVALID_INPUT`
 * naming `pattern`. The worker is an eval'd script (no file to ship), started on first use.
 *
 * A file without the literal every match needs (`regex-literal.ts`: "strict" for
 * `use\s+strict`) is answered on the main thread by a byte search and never sent.
 *
 * Cost: a worker start (~tens of ms) per grep call with a regex, and a copy of each searched
 * file (none for large files handed over); the whole-text pre-test (one regex run over the file, skipping the line split when
 * nothing matches) is used only when the regex cannot match a line break.
 */
import { Worker } from 'node:worker_threads';
import { ToolFailure } from './result.js';
import type { LineHits, LineMatcher, LineRequest } from './line-matcher.js';
import { requiredLiteral } from './regex-literal.js';

/** Files per batch sent to the worker. */
const BATCH_FILES = 64;
/** Handed-over bytes at least this large (in a buffer with at most this much else) move to the worker uncopied. */
const OWN_BUFFER_BYTES = 64 * 1024;
/** Bytes per batch sent to the worker (a larger file goes alone). */
const BATCH_BYTES = 1024 * 1024;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { source, flags, maxLineChars, pretest } = workerData;
const re = new RegExp(source, flags);
const whole = pretest ? new RegExp(source, flags + 'm') : undefined;
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const strip = (l) => (l.length > 0 && l.charCodeAt(l.length - 1) === 13 ? l.slice(0, -1) : l);
const cut = (l) => (l.length > maxLineChars ? l.slice(0, maxLineChars) + '\\u2026' : l);
function search({ bytes, limit, texts, context }) {
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
    if (context > 0) {
      m.before = lines.slice(Math.max(0, i - context), i).map((l) => cut(strip(l)));
      m.after = lines.slice(i + 1, i + 1 + context).map((l) => cut(strip(l)));
    }
    found.push(m);
  }
  return found ? { count, lines: found } : { count };
}
parentPort.on('message', ({ id, jobs }) => parentPort.postMessage({ id, results: jobs.map(search) }));`;

/** True when no match of the regex can hold a line break (then a whole-text test is a safe pre-test). */
function cannotMatchLineBreak(source: string, flags: string): boolean {
  return !flags.includes('s') && !/\[\^|\\[sSWDPpnrxuc0-9]|\\$/.test(source);
}

interface Job {
  bytes: Uint8Array;
  request: LineRequest;
  resolve(hits: LineHits): void;
  reject(e: unknown): void;
}

/** A `LineMatcher` running in a terminable worker with a per-batch time budget (see the module comment). */
export class GuardedMatcher implements LineMatcher {
  private worker?: Worker;
  /** The worker runs its script (its start-up is not charged to any batch's budget). */
  private online = false;
  private queue: Job[] = [];
  private busy = false;
  private scheduled = false;
  private failed?: ToolFailure;
  private nextId = 0;
  private readonly required?: Buffer;

  constructor(
    private readonly source: string,
    private readonly flags: string,
    private readonly options: { budgetMs: number; maxLineChars: number },
  ) {
    const literal = requiredLiteral(source, flags);
    if (literal) this.required = Buffer.from(literal, 'utf8');
  }

  search(bytes: Uint8Array, request: LineRequest, owned = false): LineHits | Promise<LineHits> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.required && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(this.required) === -1) return { count: 0 };
    // The worker takes over (transfer, no copy) large bytes handed over whose buffer holds
    // little else (a read's buffer has one spare byte); anything else is copied first (the
    // caller may reuse it, and a small buffer may share Node's pool with other buffers).
    let own = bytes;
    const spare = bytes.buffer.byteLength - bytes.byteLength;
    if (!owned || bytes.byteLength < OWN_BUFFER_BYTES || spare > OWN_BUFFER_BYTES || bytes.buffer instanceof SharedArrayBuffer) {
      own = new Uint8Array(bytes.byteLength);
      own.set(bytes);
    }
    return new Promise<LineHits>((resolve, reject) => {
      this.queue.push({ bytes: own, request, resolve, reject });
      this.schedule();
    });
  }

  /** Sends the next batch once the current one is back, after the caller queued what it has. */
  private schedule(): void {
    if (this.busy || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.sendBatch();
    });
  }

  private sendBatch(): void {
    if (this.busy || this.queue.length === 0 || this.failed) return;
    let bytes = 0;
    let n = 0;
    while (n < this.queue.length && n < BATCH_FILES && (n === 0 || bytes + this.queue[n].bytes.byteLength <= BATCH_BYTES)) bytes += this.queue[n++].bytes.byteLength;
    const batch = this.queue.splice(0, n);
    const worker = (this.worker ??= this.start());
    const id = ++this.nextId;
    this.busy = true;
    // The budget is the batch's own: it starts once the worker runs (starting one takes tens of
    // milliseconds alone, and seconds when many start at once on a loaded machine).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      timer = setTimeout(() => {
        this.fail(
          new ToolFailure(
            'INVALID_INPUT',
            `pattern: matching one file took longer than ${this.options.budgetMs} ms (catastrophic backtracking?); simplify the pattern, avoid nested quantifiers with backreferences or lookaround, or use literal: true`,
          ),
          batch,
        );
      }, this.options.budgetMs);
    };
    if (this.online) arm();
    else worker.once('online', arm);
    const onMessage = (msg: { id: number; results: LineHits[] }) => {
      if (msg.id !== id) return;
      cleanup();
      this.busy = false;
      batch.forEach((job, i) => job.resolve(msg.results[i]));
      this.schedule();
    };
    const onError = (e: Error) => {
      cleanup();
      this.fail(e, batch);
    };
    const cleanup = () => {
      clearTimeout(timer);
      worker.off('online', arm);
      worker.off('message', onMessage);
      worker.off('error', onError);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage({ id, jobs: batch.map((j) => ({ bytes: j.bytes, ...j.request })) }, batch.map((j) => j.bytes.buffer as ArrayBuffer));
  }

  private start(): Worker {
    const workerData = { source: this.source, flags: this.flags, maxLineChars: this.options.maxLineChars, pretest: cannotMatchLineBreak(this.source, this.flags) };
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
    worker.unref();
    worker.once('online', () => {
      if (this.worker === worker) this.online = true;
    });
    return worker;
  }

  /** Ends the matcher: the batch in flight and everything queued reject with `e`. */
  private fail(e: unknown, batch: Job[]): void {
    const failure = e instanceof ToolFailure ? e : new Error(`grep worker failed: ${(e as Error).message}`);
    if (failure instanceof ToolFailure) this.failed = failure;
    for (const job of [...batch, ...this.queue.splice(0)]) job.reject(failure);
    this.busy = false;
    void this.close();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.online = false;
    if (worker) await worker.terminate();
  }
}
