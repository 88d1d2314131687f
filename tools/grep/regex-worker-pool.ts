/**
 * `regexWorkers`: grep's regexes, run by the process's worker pool (vfs/worker-pool.ts
 * `workerPool`, shared with the host layer's reads) as tasks of the regex program
 * (`regex-search-program.ts`), so no user regex ever runs on the main thread.
 *
 * A batch (one grep call's next files, see `guarded-matcher.ts`) is submitted for an owner (the
 * conversation making the call; calls that name none share one owner, `SHARED_OWNER`): the pool
 * gives free workers to the owners in turns and lets one owner hold at most `share` workers
 * (`size - 1`, at least 1), so a conversation whose regexes run to their budget never makes
 * another wait for that budget. A call has at most one batch queued or running, so calls of one
 * owner take turns. The budget starts when a running worker takes the batch; past it the worker
 * is terminated and replaced at once (`BatchTimeout`); the pool never holds more than `2 × size`
 * threads however many batches time out.
 */
import { BatchTimeout, TaskFailure, WorkerPool, workerPool } from '../../vfs/index.js';
import { CodedError } from '../../vfs/index.js';
import type { LineHits, LineRequest } from './line-matcher.js';

export { BatchTimeout };

/** The owner of batches submitted without one (calls that name no conversation share it). */
const SHARED_OWNER = '';
/** The program the pool's workers run for a batch. */
const REGEX_PROGRAM = new URL('./regex-search-program.js', import.meta.url);

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

/** The regex batches of one worker pool (see the module comment). */
export class RegexWorkerPool {
  /** The pool the batches run in. */
  readonly pool: WorkerPool;

  /** `pool`: the pool to run in, or the size of a pool of its own (tests); default the process's pool. */
  constructor(pool: WorkerPool | number = workerPool) {
    this.pool = typeof pool === 'number' ? new WorkerPool(pool) : pool;
  }

  /** Most workers of the pool. */
  get size(): number {
    return this.pool.size;
  }

  /** Most workers one owner holds at once: all but one, at least one. */
  get share(): number {
    return this.pool.share;
  }

  /**
   * Queues `batch` in `owner`'s line (default `SHARED_OWNER`); `done` resolves with one
   * `LineHits` per job, in order, or rejects with `BatchTimeout` past `budgetMs` of running,
   * `RegexEngineFailure` when the regex engine threw (the worker stays), or the worker's error.
   * The jobs' bytes are transferred to the worker (their buffers are emptied here).
   */
  submit(batch: RegexBatch, budgetMs: number, owner: string = SHARED_OWNER): BatchHandle {
    const task = this.pool.submit<LineHits[]>(
      { program: REGEX_PROGRAM, input: batch, transfer: [...new Set(batch.jobs.map((j) => j.bytes.buffer as ArrayBuffer))] },
      { owner, budgetMs },
    );
    const done = task.done.then(
      (r) => r.value,
      (e: unknown) => {
        throw e instanceof TaskFailure ? new RegexEngineFailure(e.message) : e;
      },
    );
    return { done, cancel: () => task.cancel() };
  }

  /** Workers alive now (for tests and status). */
  get workers(): number {
    return this.pool.workers;
  }

  /** Threads being terminated now (for tests and status). */
  get exiting(): number {
    return this.pool.exiting;
  }

  /** Batches of `owner` running now (for tests and status). */
  runningFor(owner: string = SHARED_OWNER): number {
    return this.pool.runningFor(owner);
  }
}

/** The regex batches of the process's pool (vfs/worker-pool.ts `workerPool`). */
export const regexWorkers = new RegexWorkerPool();
