/**
 * `WorkerProgram`: what a module run by the pool's worker threads exports (vfs/worker-pool.ts,
 * vfs/pool-worker.ts). A program is a module of this package, named by its URL
 * (`new URL('./x-program.js', import.meta.url)`), compiled and linted like any other; a worker
 * loads it once and runs every task sent for it.
 */

/** What a worker lends a task besides its input. */
export interface ProgramContext {
  /** The pool slab lent to this task (`PoolTask.slab`), as bytes the task may fill; else undefined. */
  readonly slab?: Buffer;
}

/**
 * A program's `run`: one task's input (a structured clone of what was posted) to its result
 * (posted back the same way). A throw answers the task with `TaskFailure` carrying the error's
 * message; the worker stays.
 */
type ProgramRun<I, R> = (input: I, context: ProgramContext) => R | Promise<R>;

/** The shape of a program module: it exports `run`. */
export interface WorkerProgram<I = unknown, R = unknown> {
  readonly run: ProgramRun<I, R>;
}
