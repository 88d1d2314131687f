/**
 * Listing one held host folder, sorted by name, without holding the event loop: a folder of a
 * few thousand entries is read with one `readdirSync` and sorted in place (microseconds to a
 * few milliseconds), a larger one — told by its own size on its handle, which every Linux
 * filesystem grows with its entries — is read in batches through one `opendirSync` handle
 * (`READ_BATCH` entries per `getdents` call, a millisecond or two each) and sorted in slices
 * merged pairwise, yielding between them. Reading 300,000 names at once took ~360 ms and sorting
 * them ~490 ms, both on the event loop (SECURITY.md class L: no call blocks the loop more than
 * 100 ms). The batches are read synchronously, as the rest of the host layer reads: `opendir`'s
 * async iterator, one promise per entry, cost twice the CPU (~490 ms against ~230 ms for
 * 300,000 entries).
 *
 * `base` is the held folder's host path prefix (`HeldDir.base`, `/proc/self/fd/<fd>` on
 * procfs): the listing goes through the handle, never by the folder's name.
 */
import { fstatSync, opendirSync, readdirSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { DirEntry } from './layer.js';
import { compareNames } from './layer.js';
import { entryTypeOf } from './node-stat.js';

/** Folders whose own size passes this many bytes (about 5,000 entries) are listed in slices. */
export const LARGE_FOLDER_BYTES = 128 * 1024;

/** Entries read from the folder per `getdents` call. */
const READ_BATCH = 1024;

/** Entries sorted in one slice (a few milliseconds), and compared per merge slice. */
const SORT_SLICE = 4096;

/**
 * The entries of the folder held by `fd` (children at `base`), sorted by name: synchronously
 * for an ordinary folder, as a promise for a large one. Throws what `readdirSync`, `opendir`
 * and `fstatSync` throw (the caller maps it).
 */
export function listHeldFolder(fd: number, base: string): DirEntry[] | Promise<DirEntry[]> {
  if (fstatSync(fd).size > LARGE_FOLDER_BYTES) return listInSlices(base);
  const dirents = readdirSync(base, { withFileTypes: true });
  const out: DirEntry[] = new Array(dirents.length);
  for (let i = 0; i < dirents.length; i++) out[i] = { name: dirents[i].name, type: entryTypeOf(dirents[i]) };
  return out.sort(byName);
}

async function listInSlices(base: string): Promise<DirEntry[]> {
  const out: DirEntry[] = [];
  const dir = opendirSync(base, { bufferSize: READ_BATCH });
  try {
    for (let d = dir.readSync(); d !== null; d = dir.readSync()) {
      out.push({ name: d.name, type: entryTypeOf(d) });
      if (out.length % READ_BATCH === 0) await yieldToLoop();
    }
  } finally {
    dir.closeSync();
  }
  return sortInSlices(out);
}

const byName = (a: DirEntry, b: DirEntry) => compareNames(a.name, b.name);

/**
 * `entries` sorted by name: runs of `SORT_SLICE` sorted one per turn of the event loop, then
 * merged pairwise, yielding every `SORT_SLICE` entries written. Stable, O(n log n).
 */
export async function sortInSlices(entries: DirEntry[]): Promise<DirEntry[]> {
  let runs: DirEntry[][] = [];
  for (let i = 0; i < entries.length; i += SORT_SLICE) {
    runs.push(entries.slice(i, i + SORT_SLICE).sort(byName));
    await yieldToLoop();
  }
  while (runs.length > 1) {
    const next: DirEntry[][] = [];
    for (let i = 0; i < runs.length; i += 2) next.push(i + 1 < runs.length ? await merge(runs[i], runs[i + 1]) : runs[i]);
    runs = next;
  }
  return runs[0] ?? [];
}

async function merge(a: DirEntry[], b: DirEntry[]): Promise<DirEntry[]> {
  const out: DirEntry[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++) {
    out[k] = j >= b.length || (i < a.length && byName(a[i], b[j]) <= 0) ? a[i++] : b[j++];
    if (k % SORT_SLICE === SORT_SLICE - 1) await yieldToLoop();
  }
  return out;
}
