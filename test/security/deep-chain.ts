/**
 * Test support: folder chains deeper than a host path can name (`d/d/d/…`), made and removed
 * through `/proc/self/fd/<fd>/…` one level at a time, since no path to the bottom fits in
 * PATH_MAX. Linux only (the attack tests run there).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';

export interface ChainOptions {
  /** Levels below `dir` (the last folder is at depth `depth`). */
  depth: number;
  /** Name of each level (default 'd'). */
  name?: string;
  /** Every this many levels, a sibling folder `z` holding `side.txt` (forces the walk back up). */
  sideEvery?: number;
  /** Files written at the bottom, name → content. */
  bottom?: Record<string, string>;
}

/** Makes the chain below the existing folder `dir`; returns the layer path of the bottom folder relative to `dir`. */
export function makeChain(dir: string, options: ChainOptions): string {
  const name = options.name ?? 'd';
  let fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (let level = 1; level <= options.depth; level++) {
      const here = `/proc/self/fd/${fd}`;
      mkdirSync(`${here}/${name}`);
      if (options.sideEvery && level % options.sideEvery === 0) {
        mkdirSync(`${here}/z`);
        writeFileSync(`${here}/z/side.txt`, `side ${level}\n`);
      }
      const next = openSync(`${here}/${name}`, constants.O_RDONLY | constants.O_DIRECTORY);
      closeSync(fd);
      fd = next;
    }
    for (const [file, content] of Object.entries(options.bottom ?? {})) writeFileSync(`/proc/self/fd/${fd}/${file}`, content);
  } finally {
    closeSync(fd);
  }
  return Array.from({ length: options.depth }, () => name).join('/');
}

/** Removes a folder however deep (GNU rm walks with openat, never by full path). */
export function removeDeep(dir: string): void {
  execFileSync('rm', ['-rf', '--', dir]);
}
