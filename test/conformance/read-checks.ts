/**
 * The read half of the conformance suite, run once at the layer root and once on the
 * `nest/again` sub-tree: every route to the same fact (stat, readFile, readdir) agrees with the
 * fixture and with each other, listings are sorted, stable and complete, and reads of missing or
 * mistyped paths fail with the right code and path.
 */
import { expect, it } from 'vitest';
import { isVfsError, type VfsCode } from '../../vfs/errors.js';
import { childPath, compareNames, isProbingLayer, walkLayer } from '../../vfs/layer.js';
import { FIXTURE_EMPTY_DIRS, FIXTURE_FILES, fixtureTree } from './fixture.js';
import type { LayerUnderTest } from './layer-suite.js';

/**
 * Awaits `promise`, requires a VfsError with `code` whose path is one of `paths` (a layer may
 * name the requested path or the component at fault), and returns it.
 */
export async function expectCode(promise: Promise<unknown>, code: VfsCode, paths: string[]) {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected ${code} at ${paths[0]}, got a result`);
  const e = outcome.error;
  if (!isVfsError(e)) throw new Error(`expected a VfsError ${code}, got ${String(e)}`);
  expect({ code: e.code, path: e.path }).toEqual({ code, path: expect.toBeOneOf(paths) });
  return e;
}

/**
 * The fixture's entries below `root`, re-rooted (root '' → the whole tree); without its empty
 * folders when the backend cannot hold them.
 */
function expectedBelow(root: string, emptyFolders: boolean): Map<string, 'file' | 'directory'> {
  const out = new Map<string, 'file' | 'directory'>();
  for (const [p, type] of fixtureTree()) {
    if (!emptyFolders && FIXTURE_EMPTY_DIRS.includes(p)) continue;
    if (root === '') out.set(p, type);
    else if (p === root) out.set('', type);
    else if (p.startsWith(`${root}/`)) out.set(p.slice(root.length + 1), type);
  }
  return out;
}

/** Registers the read checks for the tree below `root` (`emptyFolders`: false when the backend lacks them). */
export function readChecks(
  label: string,
  root: string,
  current: () => LayerUnderTest,
  at: (rel: string) => string,
  emptyFolders = true,
): void {
  const full = (rel: string) => (root === '' ? rel : rel === '' ? root : `${root}/${rel}`);
  const expected = expectedBelow(root, emptyFolders);
  const top = root === '' ? [...expected].filter(([p]) => !p.startsWith('nest')) : [...expected];

  it(`${label}: stat, readFile and readdir agree with the fixture on every path`, async () => {
    const { layer } = current();
    for (const [rel, type] of top) {
      const path = full(rel);
      const st = await layer.stat(path);
      expect({ path, type: st.type }).toEqual({ path, type });
      if (type === 'file') {
        const want = FIXTURE_FILES.get(path)!;
        const got = await layer.readFile(path);
        expect({ path, size: st.size }).toEqual({ path, size: want.length });
        expect(Buffer.from(got).equals(Buffer.from(want))).toBe(true);
        await expectCode(layer.readdir(path), 'NOT_DIRECTORY', [at(path)]);
      } else {
        const entries = await layer.readdir(path);
        const names = [...expected.keys()]
          .filter((p) => p !== rel && (rel === '' ? !p.includes('/') : p.startsWith(`${rel}/`) && !p.slice(rel.length + 1).includes('/')))
          .map((p) => p.slice(rel === '' ? 0 : rel.length + 1))
          .sort(compareNames);
        expect({ path, names: entries.map((e) => e.name) }).toEqual({ path, names });
        for (const entry of entries) {
          expect({ child: entry.name, type: entry.type }).toEqual({
            child: entry.name,
            type: (await layer.stat(childPath(path, entry.name))).type,
          });
        }
        await expectCode(layer.readFile(path), 'IS_DIRECTORY', [at(path)]);
      }
    }
  });

  it(`${label}: listings are sorted by code unit, stable, and hold nothing extra`, async () => {
    const { layer } = current();
    const seen = new Set<string>();
    const walk = async (rel: string): Promise<void> => {
      const first = await layer.readdir(full(rel));
      const second = await layer.readdir(full(rel));
      expect(second).toEqual(first);
      const names = first.map((e) => e.name);
      expect(names).toEqual([...new Set(names)].sort(compareNames));
      for (const e of first) {
        const child = childPath(rel, e.name);
        seen.add(child);
        if (e.type === 'directory') await walk(child);
      }
    };
    await walk('');
    expect([...seen].sort()).toEqual([...expected.keys()].filter((p) => p !== '').sort());
    const names = (await layer.readdir(full(''))).map((e) => e.name);
    expect(names.indexOf('Zebra.md')).toBeLessThan(names.indexOf('apple.md'));
    expect(names).toContain('caf\u00e9.txt');
    expect(names).toContain('cafe\u0301.txt');
  });

  it(`${label}: the recursive walk (and its held-folder access, where offered) agrees with readdir, stat and readFile`, async () => {
    const { layer } = current();
    const walked: string[] = [];
    for await (const w of walkLayer(layer, full(''))) {
      walked.push(w.path);
      expect({ path: w.path, entries: w.entries }).toEqual({ path: w.path, entries: await layer.readdir(w.path) });
      if (!w.files) continue;
      for (const e of w.entries) {
        const path = childPath(w.path, e.name);
        expect({ path, stat: w.files.stat(e.name) }).toEqual({ path, stat: await layer.stat(path) });
        if (e.type !== 'file') continue;
        const viaWalk = await w.files.readFile(e.name);
        expect({ path, same: Buffer.from(viaWalk).equals(Buffer.from(await layer.readFile(path))) }).toEqual({ path, same: true });
      }
    }
    const folders = [...expected].filter(([, type]) => type === 'directory').map(([rel]) => full(rel));
    expect(walked.sort()).toEqual(folders.sort());
  });

  it(`${label}: a walk asked for only some names of each folder gives readdir's entries of those names; readFiles (where offered) readFile's bytes`, async () => {
    const { layer } = current();
    // Every other name of each folder (by the fixture), and names that are no entry at all.
    const wanted = (folder: string): string[] => {
      const rel = root === '' ? folder : folder === root ? '' : folder.slice(root.length + 1);
      const children = [...expected.keys()].filter(
        (p) => p !== '' && (rel === '' ? !p.includes('/') : p.startsWith(`${rel}/`) && !p.slice(rel.length + 1).includes('/')),
      );
      return [...children.map((p) => p.slice(p.lastIndexOf('/') + 1)).filter((_, i) => i % 2 === 0), 'no-such-entry', '..', '.', ''];
    };
    const seen: string[] = [];
    for await (const w of walkLayer(layer, full(''), { only: wanted })) {
      seen.push(w.path);
      const names = new Set(wanted(w.path));
      const listed = (await layer.readdir(w.path)).filter((e) => names.has(e.name));
      expect({ path: w.path, entries: w.entries }).toEqual({ path: w.path, entries: listed });
      const files = w.entries.filter((e) => e.type === 'file').map((e) => e.name);
      if (!w.files?.readFiles || files.length === 0) continue;
      const got = new Map<string, Buffer>();
      await w.files.readFiles(files, { maxBytes: 1 << 20 }, (i, r) => {
        expect(r).toBeInstanceOf(Uint8Array);
        got.set(files[i], Buffer.from(r as Uint8Array)); // a copy: the bytes are valid only during the call
      });
      for (const name of files) {
        const path = childPath(w.path, name);
        expect({ path, same: got.get(name)?.equals(Buffer.from(await layer.readFile(path))) }).toEqual({ path, same: true });
      }
    }
    expect(seen[0]).toBe(full(''));
  });

  it(`${label}: statIfPresent, where offered, is stat with undefined exactly where stat says NOT_FOUND`, async (test) => {
    const { layer } = current();
    if (!isProbingLayer(layer)) return test.skip('the layer has no statIfPresent fast path');
    for (const [rel] of top) expect({ rel, st: await layer.statIfPresent(full(rel)) }).toEqual({ rel, st: await layer.stat(full(rel)) });
    for (const missing of ['src/missing.ts', 'nope/deeper/x', 'cafe.txt', 'readme.md']) {
      expect({ missing, st: await layer.statIfPresent(full(missing)) }).toEqual({ missing, st: undefined });
    }
    await expectCode(layer.statIfPresent(full('README.md/x')), 'NOT_DIRECTORY', [at(full('README.md/x')), at(full('README.md'))]);
  });

  it(`${label}: missing paths and paths through a file fail with NOT_FOUND / NOT_DIRECTORY`, async () => {
    const { layer } = current();
    const ops: ((p: string) => Promise<unknown>)[] = [(p) => layer.stat(p), (p) => layer.readFile(p), (p) => layer.readdir(p)];
    for (const op of ops) {
      const call = (p: string) => op(full(p));
      await expectCode(call('src/missing.ts'), 'NOT_FOUND', [at(full('src/missing.ts'))]);
      await expectCode(call('nope/deeper/x'), 'NOT_FOUND', [at(full('nope/deeper/x')), at(full('nope'))]);
      await expectCode(call('README.md/x'), 'NOT_DIRECTORY', [at(full('README.md/x')), at(full('README.md'))]);
      await expectCode(call('cafe.txt'), 'NOT_FOUND', [at(full('cafe.txt'))]);
      await expectCode(call('readme.md'), 'NOT_FOUND', [at(full('readme.md'))]);
    }
  });
}
