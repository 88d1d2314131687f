/**
 * `WorkerPool`: the process's few worker threads (`workerPool`), shared by every kind of work
 * that must not run on the event loop: the host layer's batch reads (vfs/host-read-workers.ts)
 * and grep's regexes (tools/grep/regex-worker-pool.ts). A task names the program that runs it, a
 * module of this package started by URL (vfs/worker-program.ts); every worker runs
 * vfs/pool-worker.ts, which loads the programs and runs one task at a time.
 *
 * Why one pool: a worker per call made every call pay for a `new Worker` on the main thread
 * (tens of milliseconds, hundreds on a loaded machine), and as many threads as calls fought for
 * the cores. Here at most `size` workers exist, started on demand and kept; when every worker
 * is busy the next one is started ahead (while fewer than `size` exist), so a worker is ready
 * when another conversation calls. An idle worker never keeps the process alive.
 *
 * Fair sharing: a task submitted for an owner (a conversation) waits in its owner's line
 * (vfs/round-robin-queue.ts): free workers go to the lines in turns, so 16 calls of one
 * conversation do not queue another conversation's call behind their 16 tasks, and an owner
 * holds at most `share` workers at once (default `size - 1`, at least 1), so a worker stays for
 * the others. A task without an owner (the host layer's reads: short, bounded by a slab) waits
 * in the pool's common line, FIFO, which takes its turn like an owner's and holds at most
 * `commonShare` workers (default all): reads in flight never take the worker a regex waits for.
 *
 * The process's pool (`workerPool`) has as many threads as the read workers and the regex
 * workers had together before they became one pool (one per core, 1 to 4, for reads; one per
 * core, 2 to 4, for regexes), and the same limits: reads hold at most one per core, an owner one
 * fewer than the regexes had (at least one). Measured on 2 cores, 2 threads for both made a
 * regex grep 20 % slower (its batches waited behind reads); 4 threads with reads capped at 2 made
 * it as fast as before or faster.
 *
 * Slabs: `slabs` shared buffers of `SLAB_BYTES`, handed to every worker once at its start. A
 * task asking for one (`PoolTask.slab`) waits until one is free, fills it in the worker, and its
 * result holds it until `release`; other tasks never need one.
 *
 * Budget: a task's `budgetMs` starts when a ready worker takes it (waiting, a worker's start,
 * loading a program for the first time are not charged); past it the worker is terminated (a
 * regex cannot be interrupted otherwise) and the task rejects with `BatchTimeout`. Its place is
 * free at once: a new worker may start before the old thread has exited (termination is
 * asynchronous, a few ms). Threads being terminated are counted apart: a worker starts only
 * while live and exiting threads are fewer than `2 × size`, so the process never holds more
 * threads than that however many tasks time out. A worker that fails rejects its task and is
 * replaced on demand.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { CodedError } from './coded-error.js';
import type { PoolTaskMessage, PoolWorkerData, PoolWorkerMessage } from './pool-worker.js';
import { RoundRobinQueue } from './round-robin-queue.js';

/** Bytes of one slab (a read batch fills one). */
export const SLAB_BYTES = 2 * 1024 * 1024;
/** Slabs per worker the pool may hold: one being filled, the others being read by their callers. */
const SLABS_PER_WORKER = 3;
/** The program every worker runs. */
const POOL_WORKER = new URL('./pool-worker.js', import.meta.url);

/** The task ran past its budget (its worker was terminated); `data.budgetMs` is that budget. */
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

/** The task's program threw (the worker stays); the message is what it threw. */
export class TaskFailure extends CodedError<'TASK_FAILED'> {
  override readonly name = 'TaskFailure';

  constructor(message: string) {
    super('TASK_FAILED', message, {});
  }
}

/** One task: the program that runs it and its input. */
interface PoolTask {
  /** The program's module (vfs/worker-program.ts), a file of this package. */
  readonly program: URL;
  /** Posted to the worker (a structured clone), with `transfer` moved instead of copied. */
  readonly input: unknown;
  readonly transfer?: readonly ArrayBuffer[];
  /** Lend the task a slab (it waits until one is free); the result holds it until `release`. */
  readonly slab?: boolean;
}

/** How a task waits and runs (see the module comment). */
interface TaskOptions {
  /** The conversation the task serves; absent: the pool's common line (`commonShare`). */
  readonly owner?: string;
  /** Most milliseconds of running, else `BatchTimeout`; absent: no limit. */
  readonly budgetMs?: number;
}

/** A task's answer: the program's result, and the slab it was lent (until `release`). */
interface TaskResult<R> {
  readonly value: R;
  readonly slab?: SharedArrayBuffer;
  /** Gives the slab back (views into it must not be used afterwards); calling it again does nothing. */
  release(): void;
}

/** A submitted task: its answer, and a way to drop it (a task still queued is never sent). */
interface TaskHandle<R> {
  readonly done: Promise<TaskResult<R>>;
  cancel(): void;
}

/** The line of tasks without an owner. */
const COMMON = Symbol('common');
type Line = string | typeof COMMON;

/** Limits of a pool besides its size (see the module comment). */
interface WorkerPoolOptions {
  /** Most workers one owner holds at once (default `size - 1`, at least 1). */
  readonly share?: number;
  /** Most workers the tasks without an owner hold at once (default `size`). */
  readonly commonShare?: number;
  /** Slabs the tasks share (default 3 a worker). */
  readonly slabs?: number;
}

interface Pending {
  readonly task: PoolTask;
  readonly options: TaskOptions;
  readonly line: Line;
  resolve(result: TaskResult<unknown>): void;
  reject(e: unknown): void;
  cancelled: boolean;
}

interface Running {
  readonly id: number;
  readonly pending: Pending;
  readonly slab?: number;
  timer?: ReturnType<typeof setTimeout>;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  current?: Running;
}

/** A bounded set of worker threads shared fairly between owners (see the module comment). */
export class WorkerPool {
  /** Most workers one owner holds at once. */
  readonly share: number;
  /** Most workers the tasks without an owner hold at once. */
  readonly commonShare: number;
  private readonly slots: Slot[] = [];
  private readonly queue = new RoundRobinQueue<Pending, Line>();
  /** Tasks running, by line. */
  private readonly running = new Map<Line, number>();
  /** Programs every worker started from now on loads before it says ready. */
  private readonly programs = new Set<string>();
  private slabs?: SharedArrayBuffer[];
  private readonly freeSlabs: number[];
  /** Threads terminated whose exit has not been seen yet. */
  private terminating = 0;
  private nextId = 0;

  /** `size`: most workers alive at once (at least 1); `options`: the shares and slabs (see `WorkerPoolOptions`). */
  constructor(
    readonly size: number,
    options: WorkerPoolOptions = {},
  ) {
    this.share = Math.max(1, options.share ?? size - 1);
    this.commonShare = Math.max(1, options.commonShare ?? size);
    const slabs = options.slabs ?? SLABS_PER_WORKER * Math.max(1, size);
    this.freeSlabs = Array.from({ length: Math.max(1, slabs) }, (_, i) => i);
  }

  /**
   * Queues `task` in its owner's line, or the common line without one (see `TaskOptions`); `done` resolves with the program's
   * result, or rejects with `BatchTimeout` past `budgetMs` of running, `TaskFailure` when the
   * program threw (the worker stays), or the worker's error when its thread failed.
   */
  submit<R>(task: PoolTask, options: TaskOptions = {}): TaskHandle<R> {
    this.programs.add(task.program.href);
    const line: Line = options.owner ?? COMMON;
    let pending!: Pending;
    const done = new Promise<TaskResult<R>>((resolve, reject) => {
      pending = { task, options, line, resolve: resolve as Pending['resolve'], reject, cancelled: false };
    });
    this.queue.push(line, pending);
    this.dispatch();
    return {
      done,
      cancel: () => {
        pending.cancelled = true;
        this.queue.remove(line, pending);
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

  /** Tasks of `owner` running now (for tests and status). */
  runningFor(owner: string): number {
    return this.runningIn(owner);
  }

  /** Tasks without an owner running now (for tests and status). */
  get commonRunning(): number {
    return this.runningIn(COMMON);
  }

  private runningIn(line: Line): number {
    return this.running.get(line) ?? 0;
  }

  private dispatch(): void {
    while (this.queue.size > 0) {
      let slot = this.slots.find((s) => !s.current);
      if (!slot && !this.maySpawn()) break;
      const next = this.queue.next((line, first) => this.mayRun(line, first));
      if (!next) break;
      slot ??= this.spawn();
      this.run(slot, next.item);
    }
    // Every worker busy: start the next one now, so the task of another conversation arriving
    // meanwhile finds it ready instead of paying for a thread start (tens of ms).
    if (this.slots.length > 0 && this.slots.every((s) => s.current) && this.maySpawn()) this.spawn();
  }

  /** True when the first task of `line` may run now: its line below its share, a slab free if it needs one. */
  private mayRun(line: Line, first: Pending): boolean {
    if (first.task.slab && this.freeSlabs.length === 0) return false;
    return this.runningIn(line) < (line === COMMON ? this.commonShare : this.share);
  }

  /** True when one more worker may start: fewer than `size` alive, fewer than `2 × size` threads with those exiting. */
  private maySpawn(): boolean {
    const size = Math.max(1, this.size);
    return this.slots.length < size && this.slots.length + this.terminating < 2 * size;
  }

  private run(slot: Slot, pending: Pending): void {
    const slab = pending.task.slab ? this.freeSlabs.pop() : undefined;
    const current: Running = { id: ++this.nextId, pending, slab };
    slot.current = current;
    this.running.set(pending.line, this.runningIn(pending.line) + 1);
    slot.worker.ref(); // a task in a worker keeps the process alive, an idle worker does not
    if (slot.ready) this.arm(slot, current);
    const message: PoolTaskMessage = { id: current.id, program: pending.task.program.href, input: pending.task.input, slab };
    try {
      slot.worker.postMessage(message, pending.task.transfer ?? []);
    } catch (e) {
      // The input cannot be posted (a value structured clone refuses): the task fails, the worker is free.
      this.finish(slot);
      slot.worker.unref();
      if (slab !== undefined) this.freeSlabs.push(slab);
      pending.reject(e);
    }
  }

  /** (Re)starts the budget of the task the slot runs, if it has one. */
  private arm(slot: Slot, current: Running): void {
    const budgetMs = current.pending.options.budgetMs;
    if (budgetMs === undefined) return;
    clearTimeout(current.timer);
    current.timer = setTimeout(() => {
      if (slot.current === current) this.retire(slot, new BatchTimeout(budgetMs));
    }, budgetMs);
  }

  /** The slot's task is over: its line holds one worker less. */
  private finish(slot: Slot): Running | undefined {
    const current = slot.current;
    slot.current = undefined;
    if (!current) return undefined;
    clearTimeout(current.timer);
    const { line } = current.pending;
    const left = this.runningIn(line) - 1;
    if (left > 0) this.running.set(line, left);
    else this.running.delete(line);
    return current;
  }

  private spawn(): Slot {
    this.slabs ??= this.freeSlabs.map(() => new SharedArrayBuffer(SLAB_BYTES));
    const workerData: PoolWorkerData = { slabs: this.slabs, programs: [...this.programs] };
    const worker = new Worker(POOL_WORKER, { workerData });
    const slot: Slot = { worker, ready: false };
    worker.on('message', (msg: PoolWorkerMessage) => this.answered(slot, msg));
    worker.on('error', (e) => this.retire(slot, new Error(`pool worker failed: ${e.message}`)));
    worker.on('exit', () => this.retire(slot, new Error('pool worker stopped')));
    // After the listeners (a 'message' listener refs the worker's port again): an idle worker
    // never keeps the process alive (`run` refs it while it holds a task).
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  /** A message of the slot's worker: ready, a program loaded for the current task, or its answer. */
  private answered(slot: Slot, msg: PoolWorkerMessage): void {
    if ('ready' in msg) {
      slot.ready = true;
      if (slot.current) this.arm(slot, slot.current);
      return;
    }
    const current = slot.current;
    if (!current || msg.id !== current.id) return;
    if ('loaded' in msg) return this.arm(slot, current);
    this.finish(slot);
    slot.worker.unref();
    this.settle(current, msg);
    this.dispatch();
  }

  /** Resolves or rejects a finished task; a slab nobody will read goes back at once. */
  private settle(current: Running, msg: { result: unknown } | { error: string }): void {
    const { pending, slab } = current;
    if (pending.cancelled || 'error' in msg) {
      if (slab !== undefined) this.freeSlabs.push(slab);
      if (!pending.cancelled && 'error' in msg) pending.reject(new TaskFailure(msg.error));
      return;
    }
    let released = slab === undefined;
    pending.resolve({
      value: msg.result,
      slab: slab === undefined ? undefined : this.slabs![slab],
      release: () => {
        if (released) return;
        released = true;
        this.freeSlabs.push(slab!);
        this.dispatch();
      },
    });
  }

  /**
   * Ends a slot (timed out or failed): its task rejects with `e`, the worker is terminated and
   * counted as exiting until its thread is gone (then the slab it was filling is free again);
   * the freed place is offered at once.
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
      if (current?.slab !== undefined) this.freeSlabs.push(current.slab);
      this.dispatch();
    };
    slot.worker.terminate().then(exited, exited);
    this.dispatch();
  }
}

/** Cores the process's pool plans for (1 to 4). */
const CORES = Math.max(1, Math.min(4, availableParallelism()));
/** Workers of the process's pool for regexes: one per core, at least 2. */
const SEARCHERS = Math.max(2, CORES);

/**
 * The process's pool (see the module comment): one worker per core for reads and one per core
 * (at least 2) for regexes, 3 to 8 threads; reads hold at most one per core, with 3 slabs each;
 * an owner holds at most `SEARCHERS - 1` workers.
 */
export const workerPool = new WorkerPool(CORES + SEARCHERS, { share: SEARCHERS - 1, commonShare: CORES, slabs: 3 * CORES });
