/**
 * `GuardedMatcher`: grep's regex matching in worker threads, so no regex (catastrophic or just
 * quadratic on a long line) ever runs on the main thread. A worker decodes each file, splits it
 * into lines and tests them; the main thread only copies bytes in and results out.
 *
 * The workers are the process's shared pool (`regex-worker-pool.ts`): a call does not start one
 * of its own. Files are sent in batches (up to `BATCH_FILES` files or `BATCH_BYTES` bytes, or
 * one larger file) and a call has one batch in the pool at a time, so each batch's time is its
 * own (waiting for a worker is not part of it) and calls take turns (per conversation, `owner`:
 * round-robin between conversations, see `regex-worker-pool.ts`): past `budgetMs` the worker
 * is terminated and every pending search of the call rejects with `INVALID_INPUT` naming
 * `pattern`; a regex the engine gives up on (its stack overflows on a long line) answers
 * `INVALID_INPUT` too.
 *
 * A file without the literal every match needs (`regex-literal.ts`: "strict" for
 * `use\s+strict`) is answered on the main thread by a byte search and never sent. With
 * `multiline` the worker runs the regex over the whole text (`regex-worker-pool.ts`).
 *
 * Cost: a copy of each searched file (none for large files handed over); the whole-text
 * pre-test (one regex run over the file, skipping the line split when nothing matches) is used
 * only when the regex cannot match a line break.
 */
import { ToolFailure } from '../result.js';
import type { LineHits, LineMatcher, LineRequest } from './line-matcher.js';
import { requiredLiteral } from './regex-literal.js';
import { BatchTimeout, RegexEngineFailure, regexWorkers, type BatchHandle, type RegexWorkerPool } from './regex-worker-pool.js';

/** Files per batch sent to the worker. */
const BATCH_FILES = 64;
/** Handed-over bytes at least this large (in a buffer with at most this much else) move to the worker uncopied. */
const OWN_BUFFER_BYTES = 64 * 1024;
/** Bytes per batch sent to the worker (a larger file goes alone). */
const BATCH_BYTES = 1024 * 1024;

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

/** A `LineMatcher` running in the shared worker pool with a per-batch time budget (see the module comment). */
export class GuardedMatcher implements LineMatcher {
  private queue: Job[] = [];
  /** The batch in the pool (queued or running), if any. */
  private inFlight?: BatchHandle;
  private scheduled = false;
  private closed = false;
  private failed?: ToolFailure;
  private readonly required?: Buffer;
  /** The literal every match needs (`regex-literal.ts`), when there is one. */
  readonly needle?: Uint8Array;
  private readonly pretest: boolean;

  constructor(
    private readonly source: string,
    private readonly flags: string,
    private readonly options: {
      budgetMs: number;
      maxLineChars: number;
      maxBlockLines: number;
      multiline: boolean;
      pool?: RegexWorkerPool;
      /** The conversation the call serves: the pool shares its workers fairly between them. */
      owner?: string;
    },
  ) {
    const literal = requiredLiteral(source, flags);
    if (literal) this.required = this.needle = Buffer.from(literal, 'utf8');
    this.pretest = !options.multiline && cannotMatchLineBreak(source, flags);
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
    if (this.inFlight || this.scheduled || this.queue.length === 0 || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.sendBatch();
    });
  }

  private sendBatch(): void {
    if (this.inFlight || this.queue.length === 0 || this.failed || this.closed) return;
    let bytes = 0;
    let n = 0;
    while (n < this.queue.length && n < BATCH_FILES && (n === 0 || bytes + this.queue[n].bytes.byteLength <= BATCH_BYTES))
      bytes += this.queue[n++].bytes.byteLength;
    const batch = this.queue.splice(0, n);
    const pool = this.options.pool ?? regexWorkers;
    const handle = pool.submit(
      {
        source: this.source,
        flags: this.flags,
        pretest: this.pretest,
        multiline: this.options.multiline,
        maxLineChars: this.options.maxLineChars,
        maxBlockLines: this.options.maxBlockLines,
        jobs: batch.map((j) => ({ bytes: j.bytes, ...j.request })),
      },
      this.options.budgetMs,
      this.options.owner,
    );
    this.inFlight = handle;
    handle.done.then(
      (results) => {
        this.inFlight = undefined;
        batch.forEach((job, i) => job.resolve(results[i]));
        this.schedule();
      },
      (e: unknown) => {
        this.inFlight = undefined;
        this.fail(e, batch);
      },
    );
  }

  /** Ends the matcher: the batch that failed and everything queued reject with the failure. */
  private fail(e: unknown, batch: Job[]): void {
    const failure =
      e instanceof BatchTimeout
        ? new ToolFailure(
            'INVALID_INPUT',
            `pattern: matching one file took longer than ${this.options.budgetMs} ms (catastrophic backtracking?); simplify the pattern, avoid nested quantifiers with backreferences or lookaround, or use literal: true`,
          )
        : e instanceof RegexEngineFailure
          ? new ToolFailure(
              'INVALID_INPUT',
              `pattern: the regex engine gave up on a file here (${e.message}); simplify the pattern (lookaround over long lines), or use literal: true`,
            )
          : new Error(`grep worker failed: ${(e as Error).message}`);
    if (failure instanceof ToolFailure) this.failed = failure;
    for (const job of [...batch, ...this.queue.splice(0)]) job.reject(failure);
  }

  /** Drops what this call still has queued; a batch already running finishes in its worker. */
  async close(): Promise<void> {
    this.closed = true;
    this.inFlight?.cancel();
    this.inFlight = undefined;
    this.queue = [];
  }
}
