/**
 * The standard fixture tree every conformance setup seeds, and the tree hash the suite uses to
 * prove a refused write changed nothing.
 *
 * The tree holds sorting traps (upper case before lower case, a composed and a decomposed name
 * that are different names on Linux), binary bytes, an empty folder, and a copy of itself under
 * `nest/again` so the suite can rerun on a sub-tree.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Layer } from '../../vfs/layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { childPath } from '../../vfs/layer.js';

const BINARY = Uint8Array.from({ length: 1024 }, (_, i) => (i * 7) % 256);

const BASE: Record<string, string | Uint8Array> = {
  'README.md': '# fixture\n',
  'Zebra.md': 'upper case sorts first\n',
  'apple.md': 'lower case sorts after upper case\n',
  'with space.md': 'a name with a space\n',
  'caf\u00e9.txt': 'composed\n',
  'cafe\u0301.txt': 'decomposed\n',
  'bin.dat': BINARY,
  'src/a.ts': 'export const a = 1;\n',
  'src/b.ts': 'export const b = 2;\n',
  'src/nested/deep/c.txt': 'deep\n',
  'docs/guide.md': 'guide\n',
};
const BASE_EMPTY_DIRS = ['empty'];

/** The sub-tree the suite reruns itself on: the base fixture again, below this folder. */
export const SUBTREE = 'nest/again';

/** Every fixture file, layer-relative path → bytes. */
export const FIXTURE_FILES: ReadonlyMap<string, Uint8Array> = new Map(
  [...Object.entries(BASE), ...Object.entries(BASE).map(([p, c]) => [`${SUBTREE}/${p}`, c] as const)].map(([p, c]) => [
    p,
    typeof c === 'string' ? new TextEncoder().encode(c) : c,
  ]),
);

/** Fixture folders with nothing in them. */
export const FIXTURE_EMPTY_DIRS: readonly string[] = [...BASE_EMPTY_DIRS, ...BASE_EMPTY_DIRS.map((d) => `${SUBTREE}/${d}`)];

/** Content of every sentinel file outside a layer: it must never come back through a read. */
export const SENTINEL = 'SENTINEL-outside-bytes-never-returned\n';

/** Every fixture path (files, folders, the root '') with its type. */
export function fixtureTree(): Map<string, 'file' | 'directory'> {
  const tree = new Map<string, 'file' | 'directory'>([['', 'directory']]);
  const addDirs = (path: string) => {
    const segs = path.split('/');
    for (let i = 1; i < segs.length; i++) tree.set(segs.slice(0, i).join('/'), 'directory');
  };
  for (const p of FIXTURE_FILES.keys()) {
    addDirs(p);
    tree.set(p, 'file');
  }
  for (const d of FIXTURE_EMPTY_DIRS) {
    addDirs(d);
    tree.set(d, 'directory');
  }
  return tree;
}

/** Seed data for a MemoryLayer (`files`) plus the empty folders to create after. */
export function fixtureRecord(): Record<string, Uint8Array> {
  return Object.fromEntries(FIXTURE_FILES);
}

/** Writes the fixture into a real host folder. */
export function seedHostDir(dir: string): void {
  for (const [p, bytes] of FIXTURE_FILES) {
    const abs = join(dir, p);
    mkdirSync(join(abs, '..'), { recursive: true });
    writeFileSync(abs, bytes);
  }
  for (const d of FIXTURE_EMPTY_DIRS) mkdirSync(join(dir, d), { recursive: true });
}

/**
 * A hash of everything reachable through `layer` below `root`: paths, types, file bytes, and
 * symlinks as entries (never followed). Errors are part of the hash, so a tree that stops
 * answering also changes it.
 */
export async function hashLayer(layer: Layer, root = ''): Promise<string> {
  const hash = createHash('sha256');
  const visit = async (path: string): Promise<void> => {
    let entries;
    try {
      entries = await layer.readdir(path);
    } catch (e) {
      hash.update(`!${path}:${(e as { code?: string }).code}\n`);
      return;
    }
    for (const entry of entries) {
      const child = childPath(path, entry.name);
      hash.update(`${entry.type}:${child}\n`);
      if (entry.type === 'directory') await visit(child);
      else if (entry.type === 'file') hash.update(await layer.readFile(child));
    }
  };
  await visit(root);
  return hash.digest('hex');
}

/** A MemoryLayer seeded with the fixture (on `volume` under `root` when given). */
export async function memoryFixture(options: ConstructorParameters<typeof MemoryLayer>[0] = {}): Promise<MemoryLayer> {
  const layer = new MemoryLayer({ ...options, files: fixtureRecord() });
  for (const d of FIXTURE_EMPTY_DIRS) await layer.mkdir(d);
  return layer;
}

/** The text of every file reachable through `layer` (links listed, never followed), joined. */
export async function readEverything(layer: Layer, root = ''): Promise<string> {
  const parts: string[] = [];
  const visit = async (path: string): Promise<void> => {
    for (const entry of await layer.readdir(path)) {
      const child = childPath(path, entry.name);
      if (entry.type === 'directory') await visit(child);
      else if (entry.type === 'file') parts.push(Buffer.from(await layer.readFile(child)).toString('latin1'));
    }
  };
  await visit(root);
  return parts.join('\n');
}
