/**
 * `regexWorkers`: the process's few worker threads that run grep's regexes, shared by every
 * grep call of every conversation (`RegexWorkerPool`).
 *
 * Why one pool: a worker per grep call made every call pay for a `new Worker` on the main
 * thread (tens of milliseconds, hundreds on a loaded machine: 100 concurrent greps held the event
 * loop for seconds and took 750 MB), and as many threads as calls fought for the cores, so plain
 * patterns ran past their budget. Here at most `size` workers exist, started on demand and kept;
 * when every worker is busy the next one is started ahead (while fewer than `size` exist), so
 * the worker kept for other conversations is ready when one of them calls.
 *
 * Fair sharing: a batch (one grep call's next files, see `guarded-matcher.ts`) is submitted for
 * an owner (the conversation making the call; calls that name none share one bucket) and waits
 * in its owner's line (`round-robin-queue.ts`): free workers go to the owners in turns, so 16
 * calls of one conversation do not queue another conversation's call behind their 16 batches.
 * An owner holds at most `share` workers at once (`size - 1`, at least 1): one worker stays for
 * the others, so a conversation whose regexes run to their budget never makes another wait for
 * that budget. A call has at most one batch queued or running, so calls of one owner take turns.
 *
 * Budget: it starts when a running worker takes the batch (time spent waiting or starting a
 * worker is not charged); past it the worker is terminated (a regex cannot be interrupted
 * otherwise) and the batch rejects with `BatchTimeout`. The slot is free at once: a new worker
 * may start before the old thread has exited (termination is asynchronous, a few ms). Threads
 * being terminated are counted apart: a worker starts only while live and exiting threads are
 * fewer than `2 × size`, so the process never holds more regex threads than that however many
 * batches time out.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { LineHits, LineRequest } from './line-matcher.js';
import { CodedError } from '../../vfs/coded-error.js';
import { REGEX_WORKER_SOURCE } from './regex-worker-source.js';
import { RoundRobinQueue } from './round-robin-queue.js';

/** The owner of batches submitted without one (calls that name no conversation share it). */
export const SHARED_OWNER = '';

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
  owner: string;
  resolve(results: LineHits[]): void;
  reject(e: unknown): void;
  cancelled: boolean;
}

interface Slot {
  worker: Worker;
  online: boolean;
  current?: { id: number; pending: Pending; timer?: ReturnType<typeof setTimeout> };
}

/** A bounded set of regex workers shared fairly between owners (see the module comment). */
export class RegexWorkerPool {
  /** Most workers one owner holds at once: all but one, at least one. */
  readonly share: number;
  private readonly slots: Slot[] = [];
  private readonly queue = new RoundRobinQueue<Pending>();
  /** Batches running, by owner. */
  private readonly running = new Map<string, number>();
  /** Threads terminated whose exit has not been seen yet. */
  private terminating = 0;
  private nextId = 0;

  /** `size`: most workers alive at once (at least 1). */
  constructor(readonly size: number) {
    this.share = Math.max(1, size - 1);
  }

  /**
   * Queues `batch` in `owner`'s line (default `SHARED_OWNER`); `done` resolves with one
   * `LineHits` per job, in order, or rejects with `BatchTimeout` past `budgetMs` of running,
   * `RegexEngineFailure` when the regex engine threw (the worker stays), or the worker's error.
   */
  submit(batch: RegexBatch, budgetMs: number, owner: string = SHARED_OWNER): BatchHandle {
    let pending!: Pending;
    const done = new Promise<LineHits[]>((resolve, reject) => {
      pending = { batch, budgetMs, owner, resolve, reject, cancelled: false };
    });
    this.queue.push(owner, pending);
    this.dispatch();
    return {
      done,
      cancel: () => {
        pending.cancelled = true;
        this.queue.remove(owner, pending);
      },
    };
  }

  /** Workers alive now (for tests and status). */
  get workers(): number {
    return this.slots.length;
  }

  /** Threads being terminated now (for tests and status). */
  get exiting(): number {
    return this.terminating;
  }

  /** Batches of `owner` running now (for tests and status). */
  runningFor(owner: string = SHARED_OWNER): number {
    return this.running.get(owner) ?? 0;
  }

  private dispatch(): void {
    while (this.queue.size > 0) {
      let slot = this.slots.find((s) => !s.current);
      if (!slot && !this.maySpawn()) break;
      const next = this.queue.next((owner) => this.runningFor(owner) < this.share);
      if (!next) break;
      slot ??= this.spawn();
      this.run(slot, next.item);
    }
    // Every worker busy: start the next one now, so the batch of another conversation arriving
    // meanwhile finds it ready instead of paying for a thread start (tens of ms).
    if (this.slots.length > 0 && this.slots.every((s) => s.current) && this.maySpawn()) this.spawn();
  }

  /** True when one more worker may start: fewer than `size` alive, fewer than `2 × size` threads with those exiting. */
  private maySpawn(): boolean {
    const size = Math.max(1, this.size);
    return this.slots.length < size && this.slots.length + this.terminating < 2 * size;
  }

  private run(slot: Slot, pending: Pending): void {
    const id = ++this.nextId;
    const current: NonNullable<Slot['current']> = { id, pending };
    slot.current = current;
    this.running.set(pending.owner, this.runningFor(pending.owner) + 1);
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

  /** The slot's batch is over: its owner holds one worker less. */
  private finish(slot: Slot): NonNullable<Slot['current']> | undefined {
    const current = slot.current;
    slot.current = undefined;
    if (!current) return undefined;
    clearTimeout(current.timer);
    const left = this.runningFor(current.pending.owner) - 1;
    if (left > 0) this.running.set(current.pending.owner, left);
    else this.running.delete(current.pending.owner);
    return current;
  }

  /** Starts the budget of the batch the slot runs. */
  private arm(slot: Slot, current: NonNullable<Slot['current']>): void {
    current.timer = setTimeout(() => {
      if (slot.current !== current) return;
      this.retire(slot, new BatchTimeout(current.pending.budgetMs));
    }, current.pending.budgetMs);
  }

  private spawn(): Slot {
    const worker = new Worker(REGEX_WORKER_SOURCE, { eval: true });
    const slot: Slot = { worker, online: false };
    worker.once('online', () => {
      slot.online = true;
      if (slot.current && !slot.current.timer) this.arm(slot, slot.current);
    });
    worker.on('message', (msg: { id: number; results?: LineHits[]; error?: string }) => {
      if (!slot.current || msg.id !== slot.current.id) return;
      const current = this.finish(slot)!;
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

  /**
   * Ends a slot (timed out or failed): its batch rejects with `e`, the worker is terminated and
   * counted as exiting until its thread is gone; the freed place is offered at once.
   */
  private retire(slot: Slot, e: Error): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    const current = this.finish(slot);
    if (current && !current.pending.cancelled) current.pending.reject(e);
    this.terminating++;
    const exited = () => {
      this.terminating--;
      this.dispatch();
    };
    slot.worker.terminate().then(exited, exited);
    this.dispatch();
  }
}

/** The process's pool: as many workers as cores, between 2 and 4. */
export const regexWorkers = new RegexWorkerPool(Math.max(2, Math.min(4, availableParallelism())));
