/**
 * `EarlySearch`: grep's probe of the candidates the walk reads while it holds their folder
 * (`KeptFileReader`, tools/walk-folder.ts): each file's search starts at once, before the
 * results are assembled in tree order, and its `Verdict` is kept for that assembly.
 *
 * Regex searches run in a worker (`line-matcher.ts`): at most 32 MiB of files wait in its
 * queue, past that the walk waits for the oldest to finish. A failed search (a pattern past its
 * budget) ends the walk at the next file. A file over 1 MiB is opened through the folder too,
 * but read on by the thread pool after the walk moved on (`probeLarge`, at most `LARGE_AHEAD`
 * at a time, the others queued): the few large files of a tree, most of its bytes, are read
 * while the walk goes on. For a byte search (a literal pattern, `needleIsHit`), where the layer
 * reads in other threads (vfs/layer.ts `readFiles`), the layer looks through each file there
 * (any size up to grep's cap) for the needle and hands over only what the search needs.
 *
 * Limit: every candidate is read this way, even when `maxResults` would have stopped a
 * tree-order scan earlier. Stopping at `maxResults` matches does not pay: the walk meets files
 * in its own order (a folder's files before its sub-folders'), tree order puts a sub-folder's
 * files first, and a file left out is then read through the namespace, one open per folder
 * from the mount root — about 15 times slower over a 1,000-deep chain (class L scenario).
 */
import { BINARY_SNIFF_BYTES, looksBinary } from '../text/index.js';
import type { LineHits, LineMatcher, LineRequest } from './line-matcher.js';
import type { KeptFileReader, TreeEntry } from '../tree-walk.js';
import { ShardedMap } from '../sharded-map.js';

/**
 * What is known about a candidate before the results are assembled: the number of hits the
 * probe found (at most `probe.limit`), `BINARY`, `SKIPPED` (vanished, a link or special file
 * now, over the size cap), or its pending search.
 */
export type Verdict = number | Promise<number>;
/** The verdict on a binary file (a NUL in its first 8 KiB): not searched. */
export const BINARY = -1;
/** The verdict on a file that vanished or changed kind since the walk listed it: not searched. */
export const SKIPPED = -2;
/** The verdict on a file over grep's size cap: not searched. */
export const OVERSIZED = -3;

/** Largest file searched inside the walk (larger ones are read beside it, `probeLarge`). */
const MAX_EARLY_BYTES = 1024 * 1024;
/** Large files read at once beside the walk (each up to grep's 32 MiB cap). */
const LARGE_AHEAD = 4;
/** Bytes in the worker's queue before the walk waits for it to catch up. */
const MAX_QUEUED_BYTES = 32 * 1024 * 1024;

/** The probe of files read inside the walk (see the file comment). */
export class EarlySearch implements KeptFileReader {
  readonly maxBytes = MAX_EARLY_BYTES;
  /** The verdicts found so far, by candidate (in shards: one per file of a folder of 300,000 files). */
  readonly verdicts = new ShardedMap<TreeEntry, Verdict>();
  #failure: { err: unknown } | undefined;
  readonly #queued: { bytes: number; done: Promise<unknown> }[] = [];
  #queuedBytes = 0;

  #largeRunning = 0;
  readonly #largeQueue: (() => void)[] = [];
  #closed = false;

  /** What every file with a hit holds (the matcher's needle), for the layer to look through files in place. */
  readonly find?: KeptFileReader['find'];
  /** Read in other threads only for a byte search (see `KeptFileReader.beside`). */
  readonly beside: boolean;

  /**
   * `probe`: what one search looks for (`limit` 1 for files and content output, all for count);
   * `probeLarge`: the verdict on a file over 1 MiB, read and searched on its own; `maxFileBytes`:
   * the largest file searched.
   */
  constructor(
    private readonly matcher: LineMatcher,
    readonly probe: LineRequest,
    private readonly probeLarge: (e: TreeEntry) => Promise<number>,
    maxFileBytes: number,
  ) {
    this.beside = matcher.needleIsHit === true;
    if (matcher.needle) {
      // Holding the needle is a hit when the needle is the whole pattern: a file search needs no bytes then.
      const handOver = !(matcher.needleIsHit && probe.limit === 1 && !probe.texts);
      this.find = { bytes: matcher.needle, sniffBytes: BINARY_SNIFF_BYTES, maxBytes: maxFileBytes, handOver };
    }
  }

  /** A candidate the layer looked through for the needle: binary when a NUL came first, else one hit or none. */
  scanned(e: TreeEntry, holds: boolean, nul: boolean): void {
    this.verdicts.set(e, nul ? BINARY : holds ? 1 : 0);
  }

  /** Starts (or queues) the verdict on a kept file over 1 MiB while the walk holds its folder. */
  large(e: TreeEntry): void {
    const verdict =
      this.#largeRunning < LARGE_AHEAD
        ? this.#runLarge(e)
        : new Promise<number>((resolve) => this.#largeQueue.push(() => resolve(this.#closed ? SKIPPED : this.#runLarge(e))));
    verdict.catch(() => undefined); // awaited in tree order; a failure there ends the call
    this.verdicts.set(e, verdict);
  }

  /** Drops the queued large files (the call is over: nobody awaits their verdicts). */
  close(): void {
    this.#closed = true;
    for (const start of this.#largeQueue.splice(0)) start();
  }

  #runLarge(e: TreeEntry): Promise<number> {
    this.#largeRunning++;
    const verdict = this.probeLarge(e);
    const next = () => {
      this.#largeRunning--;
      this.#largeQueue.shift()?.();
    };
    verdict.then(next, next);
    return verdict;
  }

  /** Starts the search of one candidate's bytes (valid only during this call). */
  take(e: TreeEntry, bytes: Uint8Array): void | Promise<void> {
    if (this.#failure) throw this.#failure.err;
    if (looksBinary(bytes)) {
      this.verdicts.set(e, BINARY);
      return;
    }
    // Not `owned`: a pending search copies the bytes, which the walk reuses for the next file.
    const verdict = hitCount(this.matcher.search(bytes, this.probe));
    this.verdicts.set(e, verdict);
    if (!(verdict instanceof Promise)) return;
    verdict.catch((err: unknown) => {
      this.#failure ??= { err };
    });
    this.#queued.push({ bytes: bytes.byteLength, done: verdict });
    this.#queuedBytes += bytes.byteLength;
    if (this.#queuedBytes > MAX_QUEUED_BYTES) return this.#catchUp();
  }

  /** Waits for the oldest queued searches until the queue holds at most `MAX_QUEUED_BYTES`. */
  async #catchUp(): Promise<void> {
    while (this.#queuedBytes > MAX_QUEUED_BYTES) {
      const oldest = this.#queued.shift()!;
      await oldest.done.catch(() => undefined);
      this.#queuedBytes -= oldest.bytes;
    }
  }
}

/** The number of matching lines of a search, as soon as it is known. */
export function hitCount(hits: LineHits | Promise<LineHits>): Verdict {
  return hits instanceof Promise ? hits.then((h) => h.count) : hits.count;
}
