/**
 * The shared regex workers (tools/grep/regex-worker-pool.ts): a bounded number of threads whatever
 * the number of batches, a batch's budget counted from when a worker takes it, a runaway batch's
 * worker replaced at once, a regex the engine gives up on answered without losing the worker, and
 * the workers shared fairly between owners (turns across owners, at most a share each).
 */
import { describe, expect, it } from 'vitest';
import '../../../tools/grep/line-matcher.js'; // sets the V8 regex flags grep runs with
import { BatchTimeout, RegexEngineFailure, RegexWorkerPool, type RegexBatch } from '../../../tools/grep/regex-worker-pool.js';

const batch = (source: string, texts: string[], flags = ''): RegexBatch => ({
  source,
  flags,
  pretest: false,
  multiline: false,
  maxLineChars: 2000,
  maxBlockLines: 100,
  jobs: texts.map((t) => ({ bytes: new Uint8Array(Buffer.from(t)), limit: Infinity, texts: false, before: 0, after: 0 })),
});

describe('RegexWorkerPool', () => {
  it('runs any number of batches on at most its size of workers, each answering its own files', async () => {
    const pool = new RegexWorkerPool(2);
    let most = 0;
    const handles = Array.from({ length: 40 }, (_, i) => {
      const h = pool.submit(batch(`n${i}\\b`, [`n${i}\nx\nn${i} n${i}0\n`, 'none\n']), 60_000);
      most = Math.max(most, pool.workers);
      return h.done;
    });
    const results = await Promise.all(handles);
    expect(results).toEqual(Array.from({ length: 40 }, () => [{ count: 2 }, { count: 0 }]));
    expect(most).toBeLessThanOrEqual(2);
    expect(pool.workers).toBeLessThanOrEqual(2);
  });

  it('ends a batch past its budget (the worker is replaced) and answers the next one', async () => {
    const pool = new RegexWorkerPool(1);
    // A backreference keeps V8 on its backtracking engine: cubic on 3,000 'a's, seconds.
    const slow = pool.submit(batch('(a*)\\1*b', ['a'.repeat(3000)]), 100);
    await expect(slow.done).rejects.toBeInstanceOf(BatchTimeout);
    expect(await pool.submit(batch('b', ['abc']), 60_000).done).toEqual([{ count: 1 }]);
    expect(pool.workers).toBe(1);
  });

  it('charges a batch only from when a worker takes it: one queued behind a slow batch keeps its whole budget', async () => {
    const pool = new RegexWorkerPool(1);
    const slow = pool.submit(batch('(a*)\\1*b', ['a'.repeat(1500)]), 60_000); // about a second in the worker
    const quick = pool.submit(batch('q', ['q\n']), 300);
    expect(await quick.done).toEqual([{ count: 1 }]);
    expect(await slow.done).toEqual([{ count: 0 }]);
  });

  it('answers RegexEngineFailure when V8 gives up on a regex (its stack overflows on a 10 MB line); the worker stays', async () => {
    const pool = new RegexWorkerPool(1);
    const failed = pool.submit(batch('(?=(a|b)*c)', ['ab'.repeat(5_000_000)]), 60_000);
    await expect(failed.done).rejects.toBeInstanceOf(RegexEngineFailure);
    expect(await pool.submit(batch('c', ['abc']), 60_000).done).toEqual([{ count: 1 }]);
  });

  it('never sends a batch cancelled while it waits for a worker', async () => {
    const pool = new RegexWorkerPool(1);
    const first = pool.submit(batch('(a*)\\1*b', ['a'.repeat(800)]), 60_000);
    let settled = false;
    const dropped = pool.submit(batch('(a*)\\1*b', ['a'.repeat(3000)]), 100); // would time out if sent
    dropped.done.then(
      () => (settled = true),
      () => (settled = true),
    );
    dropped.cancel();
    await first.done;
    expect(await pool.submit(batch('b', ['b']), 60_000).done).toEqual([{ count: 1 }]);
    expect(settled).toBe(false);
    expect(pool.workers).toBe(1); // no timeout happened: the same worker answered
  });

  it('serves owners in turns: a batch of another owner runs after at most one more of the busy owner', async () => {
    const pool = new RegexWorkerPool(1);
    const order: string[] = [];
    const submit = (owner: string, name: string) =>
      pool.submit(batch('(a*)\\1*b', ['a'.repeat(200)]), 60_000, owner).done.then(() => order.push(name));
    const done = [submit('A', 'A1'), submit('A', 'A2'), submit('A', 'A3'), submit('A', 'A4'), submit('B', 'B1'), submit('C', 'C1')];
    await Promise.all(done);
    // A1 was running and A2 waiting before B and C came: then each owner takes one turn a round.
    expect(order).toEqual(['A1', 'A2', 'B1', 'C1', 'A3', 'A4']);
  });

  it('lets one owner hold at most all workers but one: another owner is served while it runs slow batches', async () => {
    const pool = new RegexWorkerPool(3);
    expect(pool.share).toBe(2);
    const order: string[] = [];
    let most = 0;
    const slow = Array.from({ length: 5 }, (_, i) =>
      pool.submit(batch('(a*)\\1*b', ['a'.repeat(1200)]), 60_000, 'A').done.then(() => order.push(`A${i + 1}`)),
    );
    most = Math.max(most, pool.runningFor('A'));
    const quick = pool.submit(batch('q', ['q\n']), 60_000, 'B');
    most = Math.max(most, pool.runningFor('A'));
    expect(await quick.done).toEqual([{ count: 1 }]);
    order.push('B');
    await Promise.all(slow);
    expect(most).toBe(2);
    // B's batch had the third worker: it was answered before any slow batch of A (each a second or so).
    expect(order[0]).toBe('B');
    expect(pool.workers).toBeLessThanOrEqual(3);
  });

  it("gives a timed-out batch's place to the next batch at once, before the old thread has exited", async () => {
    const pool = new RegexWorkerPool(1);
    const slow = pool.submit(batch('(a*)\\1*b', ['a'.repeat(3000)]), 100, 'A');
    const next = pool.submit(batch('b', ['abc']), 60_000, 'A');
    const seen = await slow.done.then(
      () => undefined,
      (e: unknown) => ({ timeout: e instanceof BatchTimeout, workers: pool.workers, exiting: pool.exiting, running: pool.runningFor('A') }),
    );
    // When the timeout is answered the next batch already runs on a new worker; the old one is still exiting.
    expect(seen).toEqual({ timeout: true, workers: 1, exiting: 1, running: 1 });
    expect(await next.done).toEqual([{ count: 1 }]);
  });

  it('never holds more than twice its size of threads, however many batches time out in a row', async () => {
    const pool = new RegexWorkerPool(2);
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, pool.workers + pool.exiting)), 1);
    const runaway = Array.from({ length: 12 }, (_, i) => pool.submit(batch('(a*)\\1*b', ['a'.repeat(3000)]), 30, `owner${i % 4}`).done);
    const results = await Promise.allSettled(runaway);
    clearInterval(watch);
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof BatchTimeout)).toBe(true);
    expect(most).toBeLessThanOrEqual(4);
    expect(await pool.submit(batch('b', ['b']), 60_000).done).toEqual([{ count: 1 }]);
  });
});
