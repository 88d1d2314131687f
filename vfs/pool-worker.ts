/**
 * The program of every worker thread of a `WorkerPool` (vfs/worker-pool.ts), started by URL.
 *
 * At start it takes the pool's slabs and the programs to load (`workerData`), imports those
 * programs, then says `ready`. Each message is one task: `{ id, program, input, slab? }`; it runs
 * the named program's `run` (vfs/worker-program.ts; a program not loaded yet is imported first,
 * then `{ id, loaded }` said) and answers `{ id, result }`, or `{ id, error }` with the message
 * of what the program threw.
 * One task at a time: the pool sends the next one after the answer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerProgram } from './worker-program.js';

/** What the pool hands a worker at its start. */
export interface PoolWorkerData {
  /** The pool's slabs, shared with every worker once (posting one per task would cost ~0.1 ms). */
  readonly slabs: readonly SharedArrayBuffer[];
  /** URLs of the programs to load before saying `ready`. */
  readonly programs: readonly string[];
}

/** One task, as the pool posts it. */
export interface PoolTaskMessage {
  readonly id: number;
  readonly program: string;
  readonly input: unknown;
  readonly slab?: number;
}

/**
 * What a worker posts: `ready` once its programs are loaded; per task, `loaded` first when its
 * program had to be imported (the pool restarts the task's budget), then one answer.
 */
export type PoolWorkerMessage =
  | { readonly ready: true }
  | { readonly id: number; readonly loaded: true }
  | { readonly id: number; readonly result: unknown }
  | { readonly id: number; readonly error: string };

const port = parentPort;
if (!port) throw new Error('vfs/pool-worker.ts runs only as a worker thread of a WorkerPool');
const data = workerData as PoolWorkerData;
const slabs = data.slabs.map((s) => Buffer.from(s));
const programs = new Map<string, Promise<WorkerProgram>>();

/** The program at `url`, imported once. */
function programAt(url: string): Promise<WorkerProgram> {
  let program = programs.get(url);
  if (!program) programs.set(url, (program = import(url) as Promise<WorkerProgram>));
  return program;
}

/** Runs one task and answers it. */
async function runTask(task: PoolTaskMessage, answer: (m: PoolWorkerMessage) => void): Promise<void> {
  try {
    const loaded = programs.has(task.program);
    const program = await programAt(task.program);
    if (!loaded) answer({ id: task.id, loaded: true });
    const result = await program.run(task.input, { slab: task.slab === undefined ? undefined : slabs[task.slab] });
    answer({ id: task.id, result });
  } catch (e) {
    answer({ id: task.id, error: e instanceof Error ? e.message : String(e) });
  }
}

await Promise.all(data.programs.map(programAt));
port.on('message', (task: PoolTaskMessage) => void runTask(task, (m) => port.postMessage(m)));
port.postMessage({ ready: true } satisfies PoolWorkerMessage);
