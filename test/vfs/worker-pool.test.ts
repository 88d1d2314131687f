/**
 * The one worker pool (vfs/worker-pool.ts): the host layer's batch reads and grep's regexes run
 * in the same few threads. A read is the host layer's own confined read, done by a worker
 * (vfs/host-read-program.ts): the bytes of the held folder's files, never a file reached by a
 * joined name or a link, and nothing below a prefix that is not a procfs handle. Reads wait for a
 * free slab, regexes do not; reads take turns with the owners of regexes, within a share of their own.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import '../../tools/grep/line-matcher.js'; // sets the V8 regex flags grep runs with
import { RegexWorkerPool, type RegexBatch } from '../../tools/grep/regex-worker-pool.js';
import { readBatch, type BatchPart, type WorkerBatch } from '../../vfs/host-read-workers.js';
import { TaskFailure, WorkerPool, workerPool } from '../../vfs/worker-pool.js';
import { regexWorkers } from '../../tools/grep/regex-worker-pool.js';

let base: string;
let root: string;
let fd: number;
/** The held root folder's prefix, as the procfs walk names it. */
let held: string;

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-pool-'));
  root = path.join(base, 'root');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(root, 'b.txt'), 'beta\n');
  fs.writeFileSync(path.join(root, 'sub/c.txt'), 'gamma\n');
  fs.mkdirSync(path.join(base, 'outside'));
  fs.writeFileSync(path.join(base, 'outside/secret.txt'), 'OUTSIDE');
  fs.symlinkSync('../outside/secret.txt', path.join(root, 'link.txt'));
  fd = fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  held = `/proc/self/fd/${fd}`;
});

afterEach(() => {
  fs.closeSync(fd);
  fs.rmSync(base, { recursive: true, force: true });
});

const part = (names: string[], more: Partial<BatchPart> = {}): BatchPart => ({ base: held, names, maxBytes: 1 << 20, ...more });

/** The bytes of each read of a batch (or what it answered instead), as text. */
function texts(batch: WorkerBatch): unknown[] {
  return batch.results[0].map((r) => ('at' in r ? Buffer.from(batch.slab, r.at, r.length).toString('utf8') : r));
}

const slowRegex = (owner: string, pool: RegexWorkerPool, length = 1200) => {
  const batch: RegexBatch = {
    source: '(a*)\\1*b', // backtracking: growing with the cube of the length (4,000 'a's: about 2 s here)
    flags: '',
    pretest: false,
    multiline: false,
    maxLineChars: 2000,
    maxBlockLines: 100,
    jobs: [{ bytes: new Uint8Array(Buffer.from('a'.repeat(length))), limit: Infinity, texts: false, before: 0, after: 0 }],
  };
  return pool.submit(batch, 60_000, owner).done;
};

describe('the process has one pool', () => {
  it("grep's regexes run in the pool the host layer reads in", async () => {
    expect(regexWorkers.pool).toBe(workerPool);
    const batch = await readBatch([part(['a.txt'])]);
    batch.release();
    expect(workerPool.workers).toBeGreaterThan(0);
    expect(workerPool.workers).toBeLessThanOrEqual(workerPool.size);
  });
});

describe('a read batch in a worker', () => {
  it('answers the bytes of each file, in order, through the held folder', async () => {
    const pool = new WorkerPool(1);
    const batch = await readBatch([part(['a.txt', 'b.txt', 'missing.txt'])], pool);
    try {
      expect(texts(batch)).toEqual(['alpha\n', 'beta\n', { errno: expect.objectContaining({ code: 'ENOENT' }) }]);
    } finally {
      batch.release();
    }
  });

  it('refuses a joined name, a climb and a NUL with BAD_NAME, and follows no link: no outside byte comes back', async () => {
    const pool = new WorkerPool(1);
    const batch = await readBatch([part(['sub/c.txt', '../outside/secret.txt', '..', 'a.txt\0', 'link.txt', 'sub'])], pool);
    try {
      expect(texts(batch)).toEqual([
        { refused: 'BAD_NAME' },
        { refused: 'BAD_NAME' },
        { refused: 'BAD_NAME' },
        { refused: 'BAD_NAME' },
        { errno: expect.objectContaining({ code: 'ELOOP' }) },
        { refused: 'IS_DIRECTORY' },
      ]);
      expect(Buffer.from(batch.slab).includes('OUTSIDE')).toBe(false);
    } finally {
      batch.release();
    }
  });

  it('reads nothing below a prefix that is not a procfs handle (the batch fails), and the worker goes on', async () => {
    const pool = new WorkerPool(1);
    await expect(readBatch([{ ...part(['secret.txt']), base: path.join(base, 'outside') }], pool)).rejects.toBeInstanceOf(TaskFailure);
    const batch = await readBatch([part(['a.txt'])], pool);
    batch.release();
    expect(pool.workers).toBe(1);
  });
});

describe('a task the pool cannot post', () => {
  it('fails alone: its worker takes the next task', async () => {
    const pool = new WorkerPool(1);
    const program = new URL('../../vfs/host-read-program.js', import.meta.url);
    const unposted = pool.submit({ program, input: { parts: [], callback: () => undefined }, slab: true });
    await expect(unposted.done).rejects.toThrow(/could not be cloned/);
    const batch = await readBatch([part(['a.txt'])], pool);
    expect(texts(batch)).toEqual(['alpha\n']);
    batch.release();
    expect(pool.workers).toBe(1);
  });
});

describe('reads and regexes share the workers', () => {
  it('a read waits for a free slab while a regex, which needs none, runs meanwhile', async () => {
    const pool = new WorkerPool(2, { slabs: 1 });
    const regexes = new RegexWorkerPool(pool);
    const first = await readBatch([part(['a.txt'])], pool);
    let second: WorkerBatch | undefined;
    const waiting = readBatch([part(['b.txt'])], pool).then((b) => (second = b));
    const hits = await regexes.submit(
      {
        source: 'ph',
        flags: '',
        pretest: false,
        multiline: false,
        maxLineChars: 2000,
        maxBlockLines: 100,
        jobs: [{ bytes: new Uint8Array(Buffer.from('alpha\n')), limit: Infinity, texts: false, before: 0, after: 0 }],
      },
      60_000,
    ).done;
    expect(hits).toEqual([{ count: 1 }]);
    expect(second).toBeUndefined(); // still waiting for the one slab
    expect(texts(first)).toEqual(['alpha\n']);
    first.release();
    await waiting;
    expect(texts(second!)).toEqual(['beta\n']);
    second!.release();
    expect(pool.workers).toBeLessThanOrEqual(2);
  });

  it('reads hold at most their share of the workers: a regex finds one while reads wait', async () => {
    const pool = new WorkerPool(2, { commonShare: 1 });
    const regexes = new RegexWorkerPool(pool);
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, pool.commonRunning)), 1);
    const reads = Array.from({ length: 8 }, () => readBatch([part(['a.txt', 'b.txt'])], pool).then((b) => b.release()));
    most = Math.max(most, pool.commonRunning);
    const hits = await regexes.submit(
      {
        source: 'et',
        flags: '',
        pretest: false,
        multiline: false,
        maxLineChars: 2000,
        maxBlockLines: 100,
        jobs: [{ bytes: new Uint8Array(Buffer.from('beta\n')), limit: Infinity, texts: false, before: 0, after: 0 }],
      },
      60_000,
    ).done;
    await Promise.all(reads);
    clearInterval(watch);
    expect(hits).toEqual([{ count: 1 }]);
    expect(most).toBe(1);
  });

  it('a read takes its own turn: an owner at its share of slow regexes does not hold it up', async () => {
    const pool = new WorkerPool(2);
    const regexes = new RegexWorkerPool(pool);
    expect(pool.share).toBe(1);
    const order: string[] = [];
    // Seconds each (4,000 'a's): longer than a new worker takes to start on a loaded machine.
    const slow = [slowRegex('A', regexes, 4000), slowRegex('A', regexes, 4000)].map((p, i) => p.then(() => order.push(`A${i + 1}`)));
    const read = readBatch([part(['a.txt'])], pool).then((b) => {
      order.push('read');
      b.release();
    });
    await Promise.all([...slow, read]);
    // A held its one worker; the read had the other at once, before either slow batch ended.
    expect(order).toEqual(['read', 'A1', 'A2']);
    expect(pool.workers).toBeLessThanOrEqual(2);
  }, 120_000); // two slow batches in turn on one worker: tens of seconds with both cores busy
});
