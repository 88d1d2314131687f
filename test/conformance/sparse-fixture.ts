/** The hidden extras a sparse setup adds to its inner layer, and the fixture as a visible set. */
import type { WritableLayer } from '../../vfs/layer.js';
import { FIXTURE_EMPTY_DIRS, FIXTURE_FILES } from './fixture.js';
import type { SymlinkPlanter } from './layer-suite.js';

/** Files and folders that exist in the inner layer but are never disclosed. */
export const HIDDEN_FILES = [
  'secret/key.pem',
  'src/hidden.ts',
  'src/nested/also-hidden.txt',
  'private/notes.md',
  'nest/again/zz-hidden.md',
];

/** The fixture folders holding hidden files, which a projection refuses to move (they would move unseen). */
export const HIDDEN_INSIDE = { nest: 'NOT_DISCLOSED', src: 'NOT_DISCLOSED' } as const;

/** Writes `HIDDEN_FILES` (creating their folders) into the sparse setup's inner layer. */
export async function plantHiddenFiles(inner: WritableLayer): Promise<void> {
  const enc = new TextEncoder();
  for (const path of HIDDEN_FILES) {
    const segs = path.split('/');
    for (let i = 1; i < segs.length; i++) {
      await inner.mkdir(segs.slice(0, i).join('/')).catch(() => undefined);
    }
    await inner.writeFile(path, enc.encode(`hidden content of ${path}\n`));
  }
}

/** Every fixture file and empty folder: the visible set that shows exactly the fixture. */
export function fixtureVisibleSet(): string[] {
  return [...FIXTURE_FILES.keys(), ...FIXTURE_EMPTY_DIRS];
}

/** A planter that also discloses each link it plants (a sparse projection shows only what it was told). */
export function disclosingLinks(links: SymlinkPlanter, disclose: (paths: string[]) => unknown): SymlinkPlanter {
  return {
    ...links,
    fileLink: async (rel) => (await links.fileLink(rel), void disclose([rel])),
    dirLink: async (rel) => (await links.dirLink(rel), void disclose([rel])),
    innerLink: async (rel, target) => (await links.innerLink(rel, target), void disclose([rel])),
  };
}
