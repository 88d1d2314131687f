/**
 * The layer conformance suite (docs/ARCHITECTURE.md § Tests that hold the design; after Go's
 * testing/fstest): one set of checks run
 * against every layer implementation and composition. Each setup seeds the standard fixture
 * (./fixture.ts) and declares what its backend lacks, with a reason; a lacking capability
 * becomes a visible `it.skip` naming the reason, never a silently dropped check.
 *
 * What it checks: stat, readFile and readdir agree on every path; listings are sorted, stable
 * and complete (nothing extra: no hidden or metadata entry leaks); errors carry the right code
 * and path; symbolic links are listed and never followed; the write semantics of writable
 * layers (compare-and-swap included); renames and guarded removes (./move-checks.ts); links
 * that stay inside the layer followed by a namespace over it, every other link refused
 * (./link-checks.ts); stable lock keys; that every write through a read-only
 * view fails with READ_ONLY and leaves the tree hash unchanged; and that every operation
 * refuses a path that is not a layer path (./bad-path-checks.ts) on its own. The read checks
 * rerun on the `nest/again` sub-tree.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Layer, WritableLayer } from '../../vfs/layer.js';
import type { VfsCode } from '../../vfs/errors.js';
import { isWritableLayer } from '../../vfs/layer.js';
import { lockKeyOf } from '../../vfs/lock-key.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { FIXTURE_FILES, SENTINEL, SUBTREE, hashLayer, readEverything } from './fixture.js';
import { expectCode, readChecks } from './read-checks.js';
import { badPathChecks } from './bad-path-checks.js';
import { moveChecks } from './move-checks.js';
import { linkChecks } from './link-checks.js';
import type { Namespace } from '../../vfs/namespace.js';

/** Plants symbolic links in the backing store, visible through the layer under test. */
export interface SymlinkPlanter {
  /** A link at `rel` to a file outside the layer whose content is `SENTINEL`. */
  fileLink(rel: string): Promise<void>;
  /** A link at `rel` to a folder outside the layer holding `secret.txt` (`SENTINEL`). */
  dirLink(rel: string): Promise<void>;
  /** A link at `rel` whose target text is `target` (relative: it may stay inside the layer or climb out). */
  innerLink(rel: string, target: string): Promise<void>;
  /** Hash of the outside sentinel tree (must not change). */
  outsideHash(): Promise<string>;
}

/** Capabilities a backend lacks, each with the reason (shown in the skipped test's title). */
export interface Lacks {
  symlinks?: string;
  /** The target takes another kind of path than a layer path (the namespace view). */
  badPaths?: string;
  /** The backend cannot hold an empty folder (a git tree): the fixture is read without them. */
  emptyFolders?: string;
  /** The planted links live where the stack cannot move them (an overlay's lower): it refuses instead. */
  linkMoves?: string;
}

/** Why an overlay whose planted links sit in its lower cannot move them (`Lacks.linkMoves`). */
export const LOWER_LINK_MOVES =
  "the planted links are in the overlay's lower layer, and the upper's writing interface creates no links: moving one is refused";

/** One implementation under test, declared when the suite is registered. */
export interface SuiteTarget {
  name: string;
  /** True when writes must work; false when every write must be READ_ONLY. */
  writable: boolean;
  lacks?: Lacks;
  setup: LayerSetup;
}

export interface LayerUnderTest {
  /** The layer (or adapter) under test, seeded with the fixture. */
  layer: Layer;
  /** Present unless the target declares `lacks.symlinks`. */
  symlinks?: SymlinkPlanter;
  /** The path an error names for a layer path (default: the layer path itself). */
  errorPath?: (rel: string) => string;
  /** Hash of every backing store a refused write must leave alone (default: hash via the layer). */
  backingHash?: () => Promise<string>;
  /**
   * Fixture folders this stack refuses to move, with the code: they hold what must never be
   * carried off (undisclosed files: `NOT_DISCLOSED`; `.git` names: `PROTECTED_PATH`; a read-only
   * folder: `READ_ONLY`). Default: every folder moves.
   */
  refusedMoves?: Readonly<Record<string, VfsCode>>;
  /** When the target is a namespace view: its namespace (the link checks resolve through it). */
  namespace?: Namespace;
  cleanup(): Promise<void>;
}

export type LayerSetup = () => Promise<LayerUnderTest>;

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** Registers the whole suite for one implementation under `describe(target.name)`. */
export function layerSuite(target: SuiteTarget): void {
  const { name, setup, writable } = target;
  const linkIt = (title: string, body: () => Promise<void>) =>
    target.lacks?.symlinks ? it.skip(`${title} (lacks: ${target.lacks.symlinks})`, body) : it(title, body);
  const writeIt = (title: string, body: () => Promise<void>) =>
    writable ? it(title, body) : it.skip(`${title} (read-only backend: see "read-only view")`, body);
  describe(`layer conformance: ${name}`, () => {
    // Reads change nothing, so they share one setup; everything else gets a fresh one.
    describe('reads', () => {
      let r: LayerUnderTest;
      beforeAll(async () => {
        r = await setup();
      });
      afterAll(async () => {
        await r?.cleanup();
      });
      const at = (rel: string) => (r.errorPath ? r.errorPath(rel) : rel);
      for (const root of ['', SUBTREE]) {
        readChecks(root === '' ? 'root' : `sub-tree ${root}`, root, () => r, at, !target.lacks?.emptyFolders);
      }
      if (target.lacks?.emptyFolders) it.skip(`lists the fixture's empty folders (lacks: ${target.lacks.emptyFolders})`, () => {});
      it('refuses reads larger than maxBytes with TOO_LARGE', async () => {
        const size = FIXTURE_FILES.get('bin.dat')!.length;
        await expectCode(r.layer.readFile('bin.dat', { maxBytes: size - 1 }), 'TOO_LARGE', [at('bin.dat')]);
        expect((await r.layer.readFile('bin.dat', { maxBytes: size })).length).toBe(size);
      });
    });

    let t: LayerUnderTest;
    beforeEach(async () => {
      t = await setup();
    });
    afterEach(async () => {
      await t?.cleanup();
    });
    const at = (rel: string) => (t.errorPath ? t.errorPath(rel) : rel);

    describe('bad paths', () => {
      if (target.lacks?.badPaths) it.skip(`refuses every bad path (lacks: ${target.lacks.badPaths})`, () => {});
      else badPathChecks(() => t);
    });

    describe('symbolic links', () => {
      const links = () => t.symlinks!;
      linkIt('are listed as links and never followed for stat, read or readdir', async () => {
        await links().fileLink('src/leak.txt');
        await links().dirLink('src/out');
        expect(await t.layer.readdir('src')).toContainEqual({ name: 'leak.txt', type: 'symlink' });
        expect((await t.layer.stat('src/out')).type).toBe('symlink');
        await expectCode(t.layer.readFile('src/leak.txt'), 'SYMLINK_ESCAPE', [at('src/leak.txt')]);
        await expectCode(t.layer.readdir('src/out'), 'SYMLINK_ESCAPE', [at('src/out')]);
        await expectCode(t.layer.readFile('src/out/secret.txt'), 'SYMLINK_ESCAPE', [at('src/out/secret.txt'), at('src/out')]);
        await expectCode(t.layer.stat('src/out/secret.txt'), 'SYMLINK_ESCAPE', [at('src/out/secret.txt'), at('src/out')]);
        expect(await readEverything(t.layer)).not.toContain(SENTINEL.trim());
        expect(await readEverything(t.layer)).toContain('export const a = 1;');
      });

      const linkWriteIt = writable ? linkIt : (title: string, body: () => Promise<void>) => it.skip(`${title} (read-only backend)`, body);
      linkWriteIt('are replaced, not followed, by writes; writes below a folder link are refused', async () => {
        const layer = t.layer as WritableLayer;
        await links().fileLink('src/leak.txt');
        await links().dirLink('src/out');
        const before = await links().outsideHash();
        await expectCode(layer.writeFile('src/out/new.txt', bytes('x')), 'SYMLINK_ESCAPE', [at('src/out/new.txt'), at('src/out')]);
        await expectCode(layer.mkdir('src/out/d'), 'SYMLINK_ESCAPE', [at('src/out/d'), at('src/out')]);
        await layer.writeFile('src/leak.txt', bytes('replaced'));
        expect((await layer.stat('src/leak.txt')).type).toBe('file');
        expect(text(await layer.readFile('src/leak.txt'))).toBe('replaced');
        expect(await links().outsideHash()).toBe(before);
      });
    });

    describe('links followed beneath the mount (through a namespace)', () => {
      linkChecks(() => t, target.lacks ?? {}, writable);
    });

    describe('moves and guarded removes', () => {
      if (writable) moveChecks(() => t, at, target.lacks);
      else it.skip('rename and remove options (read-only backend: see "read-only view")', () => {});
    });

    describe('writes', () => {
      const w = () => t.layer as WritableLayer;

      writeIt('creates a file that every route then agrees on', async () => {
        expect(await w().writeFile('src/new.ts', bytes('fresh'))).toEqual({ created: true });
        expect(text(await w().readFile('src/new.ts'))).toBe('fresh');
        expect(await w().stat('src/new.ts')).toMatchObject({ type: 'file', size: 5 });
        const names = (await w().readdir('src')).map((e) => e.name);
        expect(names).toEqual(['a.ts', 'b.ts', 'nested', 'new.ts']);
      });

      writeIt('replaces an existing file whole and reports created: false', async () => {
        expect(await w().writeFile('README.md', bytes('new readme'))).toEqual({ created: false });
        expect(text(await w().readFile('README.md'))).toBe('new readme');
        expect((await w().stat('README.md')).size).toBe(10);
        const big = Uint8Array.from({ length: 200_000 }, (_, i) => i % 251);
        await w().writeFile('docs/guide.md', big);
        expect(Buffer.compare(Buffer.from(await w().readFile('docs/guide.md')), Buffer.from(big))).toBe(0);
      });

      writeIt('exclusive create refuses an existing name and leaves its bytes', async () => {
        await expectCode(w().writeFile('src/a.ts', bytes('clobber'), { exclusive: true }), 'ALREADY_EXISTS', [at('src/a.ts')]);
        expect(text(await w().readFile('src/a.ts'))).toBe('export const a = 1;\n');
        expect(await w().writeFile('src/c.ts', bytes('c'), { exclusive: true })).toEqual({ created: true });
      });

      writeIt('refuses writes to a missing parent, through a file, and onto a folder', async () => {
        const before = await hashLayer(w());
        await expectCode(w().writeFile('nope/x.txt', bytes('x')), 'NOT_FOUND', [at('nope/x.txt'), at('nope')]);
        await expectCode(w().writeFile('README.md/x.txt', bytes('x')), 'NOT_DIRECTORY', [at('README.md/x.txt'), at('README.md')]);
        await expectCode(w().writeFile('src', bytes('x')), 'IS_DIRECTORY', [at('src')]);
        expect(await hashLayer(w())).toBe(before);
      });

      writeIt('mkdir creates an empty folder once', async () => {
        await w().mkdir('src/made');
        expect((await w().stat('src/made')).type).toBe('directory');
        expect(await w().readdir('src/made')).toEqual([]);
        await expectCode(w().mkdir('src/made'), 'ALREADY_EXISTS', [at('src/made')]);
        await expectCode(w().mkdir('src/a.ts'), 'ALREADY_EXISTS', [at('src/a.ts')]);
        await expectCode(w().mkdir('nope/d'), 'NOT_FOUND', [at('nope/d'), at('nope')]);
      });

      writeIt('remove deletes files and empty folders, and refuses a non-empty folder', async () => {
        await w().remove('src/a.ts');
        await expectCode(w().stat('src/a.ts'), 'NOT_FOUND', [at('src/a.ts')]);
        await expectCode(w().readFile('src/a.ts'), 'NOT_FOUND', [at('src/a.ts')]);
        expect((await w().readdir('src')).map((e) => e.name)).toEqual(['b.ts', 'nested']);
        await w().remove('empty');
        expect((await w().readdir('')).some((e) => e.name === 'empty')).toBe(false);
        await expectCode(w().remove('src'), 'NOT_EMPTY', [at('src')]);
        expect(text(await w().readFile('src/b.ts'))).toBe('export const b = 2;\n');
        await expectCode(w().remove('src/a.ts'), 'NOT_FOUND', [at('src/a.ts')]);
      });

      writeIt('a removed file stays removed after a folder listing and can be re-created', async () => {
        await w().remove('docs/guide.md');
        await w().remove('docs');
        await expectCode(w().readdir('docs'), 'NOT_FOUND', [at('docs')]);
        await w().mkdir('docs');
        expect(await w().readdir('docs')).toEqual([]);
        expect(await w().writeFile('docs/guide.md', bytes('v2'))).toEqual({ created: true });
        expect(text(await w().readFile('docs/guide.md'))).toBe('v2');
      });

      writeIt(
        'compare-and-swap (ifMatch): publishes over the bytes read, anything else is STALE_CONTENT with nothing changed',
        async () => {
          const original = await w().readFile('src/a.ts');
          expect(await w().writeFile('src/a.ts', bytes('swapped'), { ifMatch: original })).toEqual({ created: false });
          expect(text(await w().readFile('src/a.ts'))).toBe('swapped');
          const before = await hashLayer(w());
          await expectCode(w().writeFile('src/a.ts', bytes('late'), { ifMatch: original }), 'STALE_CONTENT', [at('src/a.ts')]);
          await expectCode(w().writeFile('src/none.ts', bytes('new'), { ifMatch: bytes('') }), 'STALE_CONTENT', [at('src/none.ts')]);
          expect(await hashLayer(w())).toBe(before);
        },
      );
    });

    it('names each file with one stable lock key (vfs/lock-key.ts)', () => {
      expect(lockKeyOf(t.layer, 'src/a.ts')).toEqual(lockKeyOf(t.layer, 'src/a.ts'));
      expect(lockKeyOf(t.layer, 'src/a.ts')).not.toEqual(lockKeyOf(t.layer, 'src/b.ts'));
      expect(lockKeyOf(t.layer, 'src/new/later.ts')).toEqual(lockKeyOf(t.layer, 'src/new/later.ts'));
    });

    describe('read-only view', () => {
      it('refuses every write with READ_ONLY and changes nothing', async () => {
        const view = writable ? readOnly(t.layer) : t.layer;
        if (!isWritableLayer(view)) throw new Error('a read-only setup must still offer the write methods');
        const roAt = writable ? (rel: string) => rel : at;
        const backing = t.backingHash ?? (() => hashLayer(t.layer));
        const before = [await hashLayer(t.layer), await backing()];
        await expectCode(view.writeFile('README.md', bytes('x')), 'READ_ONLY', [roAt('README.md')]);
        await expectCode(view.writeFile('src/new.ts', bytes('x')), 'READ_ONLY', [roAt('src/new.ts')]);
        await expectCode(view.writeFile('src/new.ts', bytes('x'), { exclusive: true }), 'READ_ONLY', [roAt('src/new.ts')]);
        await expectCode(view.mkdir('made'), 'READ_ONLY', [roAt('made')]);
        await expectCode(view.remove('src/a.ts'), 'READ_ONLY', [roAt('src/a.ts')]);
        await expectCode(view.remove('empty'), 'READ_ONLY', [roAt('empty')]);
        await expectCode(view.remove('src/a.ts', { ifMatch: FIXTURE_FILES.get('src/a.ts')!, fileOnly: true }), 'READ_ONLY', [
          roAt('src/a.ts'),
        ]);
        await expectCode(view.rename('src/a.ts', 'src/moved.ts'), 'READ_ONLY', [roAt('src/a.ts'), roAt('src/moved.ts')]);
        await expectCode(view.rename('docs', 'manual'), 'READ_ONLY', [roAt('docs'), roAt('manual')]);
        await expectCode(view.rename('README.md', 'src/a.ts', { overwrite: true }), 'READ_ONLY', [roAt('README.md'), roAt('src/a.ts')]);
        expect([await hashLayer(t.layer), await backing()]).toEqual(before);
      });
    });
  });
}
