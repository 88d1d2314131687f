/**
 * `GuardedMatcher`: line matching in a worker thread for regexes V8's linear engine cannot run
 * (backreferences, lookaround), so a catastrophic pattern can be stopped. Each file's lines go
 * to the worker with a time budget; when it runs out the worker is terminated and `matchLines`
 * throws `INVALID_INPUT` naming `pattern`. The worker is an eval'd script (no file to ship).
 *
 * Cost: a worker start (~tens of ms) per grep call that needs it, and a copy of each searched
 * file's lines; patterns the linear engine accepts never come here.
 */
import { Worker } from 'node:worker_threads';
import { ToolFailure } from './result.js';
import type { LineMatcher } from './line-matcher.js';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const re = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', ({ id, lines, limit }) => {
  const out = [];
  for (let i = 0; i < lines.length && out.length < limit; i++) { re.lastIndex = 0; if (re.test(lines[i])) out.push(i); }
  parentPort.postMessage({ id, out });
});`;

/** A `LineMatcher` whose matching runs in a terminable worker with a per-file time budget. */
export class GuardedMatcher implements LineMatcher {
  readonly bytesDecide = false;
  private worker?: Worker;
  private nextId = 0;
  private failed?: ToolFailure;

  constructor(private readonly source: string, private readonly flags: string, private readonly budgetMs: number) {}

  mayMatch(): boolean {
    return true;
  }

  async matchLines(lines: readonly string[], _text: string, limit: number): Promise<number[]> {
    if (this.failed) throw this.failed;
    const worker = (this.worker ??= new Worker(WORKER_SOURCE, { eval: true, workerData: { source: this.source, flags: this.flags } }));
    const id = ++this.nextId;
    return new Promise<number[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        this.failed = new ToolFailure(
          'INVALID_INPUT',
          `pattern: matching one file took longer than ${this.budgetMs} ms (catastrophic backtracking?); simplify the pattern, avoid nested quantifiers with backreferences or lookaround, or use literal: true`,
        );
        void this.close();
        reject(this.failed);
      }, this.budgetMs);
      const onMessage = (msg: { id: number; out: number[] }) => {
        if (msg.id !== id) return;
        cleanup();
        resolve(msg.out);
      };
      const onError = (e: Error) => {
        cleanup();
        reject(e);
      };
      const cleanup = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ id, lines, limit });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
