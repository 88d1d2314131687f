/**
 * A temporary host folder for conformance setups: `<base>/<name>` folders seeded with the
 * fixture (or left empty), and a sentinel tree at `<base>/outside` that planted links point to.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SENTINEL, seedHostDir } from './fixture.js';
import type { SymlinkPlanter } from './layer-suite.js';

export interface HostFixture {
  base: string;
  /** Creates `<base>/<name>`, seeded with the fixture when `seed`. Returns its path. */
  folder(name: string, seed: boolean): string;
  /** Link planter for links inside `root` pointing to the outside sentinel tree. */
  symlinks(root: string): SymlinkPlanter;
  cleanup(): void;
}

export function hostFixture(): HostFixture {
  const base = mkdtempSync(join(tmpdir(), 'gatefs-conf-'));
  const outside = join(base, 'outside');
  mkdirSync(join(outside, 'dir'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), SENTINEL);
  writeFileSync(join(outside, 'dir', 'secret.txt'), SENTINEL);
  return {
    base,
    folder(name, seed) {
      const dir = join(base, name);
      mkdirSync(dir, { recursive: true });
      if (seed) seedHostDir(dir);
      return dir;
    },
    symlinks(root) {
      return {
        fileLink: async (rel) => symlinkSync(join(outside, 'secret.txt'), join(root, rel)),
        dirLink: async (rel) => symlinkSync(join(outside, 'dir'), join(root, rel)),
        innerLink: async (rel, target) => symlinkSync(target, join(root, rel)),
        outsideHash: async () => hashHostTree(outside),
      };
    },
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** Hash of a real folder's names, types and bytes (links not followed). */
export function hashHostTree(dir: string): string {
  const h = createHash('sha256');
  const visit = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      h.update(`${rel}/${e.name}:${e.isDirectory() ? 'd' : e.isSymbolicLink() ? 'l' : 'f'}\n`);
      if (e.isDirectory()) visit(p, `${rel}/${e.name}`);
      else if (e.isFile()) h.update(readFileSync(p));
    }
  };
  visit(dir, '');
  return h.digest('hex');
}
