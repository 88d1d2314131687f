import { readdirSync, readlinkSync, realpathSync } from 'node:fs';

/**
 * How many of this process's open descriptors name `folder` or something beneath it
 * (read from /proc/self/fd). Counting only the test's own folder keeps the count to the handles
 * the code under test holds there: descriptors the rest of the process opens and closes meanwhile
 * (vitest, a worker thread starting, a read of another test's file) never move it.
 */
export function descriptorsUnder(folder: string): number {
  const real = realpathSync(folder);
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed between the listing and the look
    }
    if (target === real || target.startsWith(`${real}/`)) count++;
  }
  return count;
}
