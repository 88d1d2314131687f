/**
 * The rename and remove-options step of the conformance suite: what `move` and `delete` run on
 * (vfs/layer.ts `WritableLayer.rename`, `RemoveOptions`), the same on every writable stack —
 * a file, a link or a folder moves and every route then agrees on the new name; nothing is ever
 * replaced silently; a move onto itself, into itself, of the root, of a missing source or into
 * a missing folder is a typed error that changes nothing (tree hash before and after); a link
 * moves as a link and a link on the way is refused; `ifMatch` makes a remove a compare-and-swap
 * and `fileOnly` refuses folders. A stack that cannot move something says so (`Lacks`).
 */
import { expect, it } from 'vitest';
import type { WritableLayer } from '../../vfs/layer.js';
import { FIXTURE_FILES, hashLayer, readEverything } from './fixture.js';
import { expectCode } from './read-checks.js';
import type { Lacks, LayerUnderTest } from './layer-suite.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const names = async (layer: WritableLayer, dir: string) => (await layer.readdir(dir)).map((e) => e.name);

/** Registers the move checks for a writable target (fresh setup per test). */
export function moveChecks(current: () => LayerUnderTest, at: (rel: string) => string, lacks: Lacks = {}): void {
  const w = () => current().layer as WritableLayer;

  it('rename moves a file: every route agrees on the new name, the old one is gone', async () => {
    const a = FIXTURE_FILES.get('src/a.ts')!;
    await w().rename('src/a.ts', 'src/moved.ts');
    expect(Buffer.from(await w().readFile('src/moved.ts')).equals(Buffer.from(a))).toBe(true);
    expect(await w().stat('src/moved.ts')).toMatchObject({ type: 'file', size: a.length });
    expect(await names(w(), 'src')).toEqual(['b.ts', 'moved.ts', 'nested']);
    await expectCode(w().stat('src/a.ts'), 'NOT_FOUND', [at('src/a.ts')]);
    await expectCode(w().readFile('src/a.ts'), 'NOT_FOUND', [at('src/a.ts')]);
    await w().rename('README.md', 'docs/README.md');
    expect(text(await w().readFile('docs/README.md'))).toBe('# fixture\n');
    expect(await names(w(), '')).not.toContain('README.md');
    expect(await names(w(), 'docs')).toEqual(['README.md', 'guide.md']);
  });

  it('never replaces silently: ALREADY_EXISTS unless overwrite, a folder never replaced nor replacing', async () => {
    const before = await hashLayer(w());
    await expectCode(w().rename('src/a.ts', 'src/b.ts'), 'ALREADY_EXISTS', [at('src/b.ts')]);
    await expectCode(w().rename('src/a.ts', 'docs'), 'IS_DIRECTORY', [at('docs')]);
    await expectCode(w().rename('src/a.ts', 'docs', { overwrite: true }), 'IS_DIRECTORY', [at('docs')]);
    await expectCode(w().rename('docs', 'README.md', { overwrite: true }), 'ALREADY_EXISTS', [at('README.md')]);
    await expectCode(w().rename('docs', 'src'), 'IS_DIRECTORY', [at('src')]);
    expect(await hashLayer(w())).toBe(before);
    await w().rename('src/a.ts', 'src/b.ts', { overwrite: true });
    expect(text(await w().readFile('src/b.ts'))).toBe('export const a = 1;\n');
    expect(await names(w(), 'src')).toEqual(['b.ts', 'nested']);
  });

  it('refuses a move onto itself, into itself, of the root, of a missing source and into a missing folder', async () => {
    const before = await hashLayer(w());
    await expectCode(w().rename('src', 'src'), 'INVALID_INPUT', [at('src')]);
    await expectCode(w().rename('src/a.ts', 'src/a.ts', { overwrite: true }), 'INVALID_INPUT', [at('src/a.ts')]);
    await expectCode(w().rename('src', 'src/nested/inside'), 'INVALID_INPUT', [at('src/nested/inside'), at('src')]);
    await expectCode(w().rename('', 'elsewhere'), 'INVALID_INPUT', [at('')]);
    await expectCode(w().rename('README.md', ''), 'INVALID_INPUT', [at('')]);
    await expectCode(w().rename('missing.txt', 'found.txt'), 'NOT_FOUND', [at('missing.txt')]);
    await expectCode(w().rename('README.md', 'nope/README.md'), 'NOT_FOUND', [at('nope/README.md'), at('nope')]);
    await expectCode(w().rename('README.md', 'bin.dat/README.md'), 'NOT_DIRECTORY', [at('bin.dat/README.md'), at('bin.dat')]);
    expect(await hashLayer(w())).toBe(before);
  });

  it('moves a folder with everything in it: one made here, one of the fixture, a deep one', async () => {
    await w().mkdir('tree');
    await w().mkdir('tree/sub');
    await w().writeFile('tree/sub/f.txt', bytes('deep file\n'));
    await w().writeFile('tree/top.txt', bytes('top file\n'));
    await w().rename('tree', 'forest');
    expect(await names(w(), 'forest')).toEqual(['sub', 'top.txt']);
    expect(text(await w().readFile('forest/sub/f.txt'))).toBe('deep file\n');
    await expectCode(w().stat('tree'), 'NOT_FOUND', [at('tree')]);
    await w().rename('docs', 'manual');
    expect(text(await w().readFile('manual/guide.md'))).toBe('guide\n');
    await expectCode(w().readdir('docs'), 'NOT_FOUND', [at('docs')]);
    const nestText = await readEverything(w(), 'nest');
    const againNames = await names(w(), 'nest/again');
    const before = await hashLayer(w());
    const refused = current().refusedMoves ?? {};
    for (const [folder, code] of Object.entries(refused)) {
      // What the folder holds must never be carried off: the move is refused, nothing changes.
      await expectCode(w().rename(folder, `moved-${folder}`), code, [at(folder)]);
    }
    expect(await hashLayer(w())).toBe(before);
    if (refused.nest) return;
    await w().rename('nest', 'moved-nest');
    expect(await readEverything(w(), 'moved-nest')).toBe(nestText);
    expect(await names(w(), 'moved-nest/again')).toEqual(againNames);
    await expectCode(w().stat('nest'), 'NOT_FOUND', [at('nest')]);
  });

  it('remove with ifMatch removes only the bytes that were read; fileOnly refuses a folder', async () => {
    const original = await w().readFile('src/a.ts');
    const before = await hashLayer(w());
    await expectCode(w().remove('src/b.ts', { ifMatch: original }), 'STALE_CONTENT', [at('src/b.ts')]);
    await expectCode(w().remove('empty', { ifMatch: original }), 'STALE_CONTENT', [at('empty')]);
    await expectCode(w().remove('empty', { fileOnly: true }), 'IS_DIRECTORY', [at('empty')]);
    expect(await hashLayer(w())).toBe(before);
    await w().remove('src/a.ts', { ifMatch: original, fileOnly: true });
    await expectCode(w().stat('src/a.ts'), 'NOT_FOUND', [at('src/a.ts')]);
  });

  const linkTitle = 'a link moves as a link and is replaced as a link; a link on the way is refused';
  if (lacks.symlinks) {
    it.skip(`${linkTitle} (lacks: ${lacks.symlinks})`, () => {});
  } else if (lacks.linkMoves) {
    it.skip(`${linkTitle} (lacks: ${lacks.linkMoves})`, () => {});
    it('refuses to move a link it cannot move with NOT_REGULAR_FILE, changing nothing', async () => {
      const links = current().symlinks!;
      await links.fileLink('src/leak.txt');
      const before = [await hashLayer(w()), await links.outsideHash()];
      await expectCode(w().rename('src/leak.txt', 'docs/leak.txt'), 'NOT_REGULAR_FILE', [at('src/leak.txt')]);
      expect([await hashLayer(w()), await links.outsideHash()]).toEqual(before);
    });
  } else {
    it(linkTitle, async () => {
      const links = current().symlinks!;
      await links.fileLink('src/leak.txt');
      await links.dirLink('src/out');
      const outside = await links.outsideHash();
      await w().rename('src/leak.txt', 'docs/leak.txt');
      expect((await w().stat('docs/leak.txt')).type).toBe('symlink');
      await expectCode(w().stat('src/leak.txt'), 'NOT_FOUND', [at('src/leak.txt')]);
      await expectCode(w().rename('src/out/secret.txt', 'x.txt'), 'SYMLINK_ESCAPE', [at('src/out/secret.txt'), at('src/out')]);
      await expectCode(w().rename('README.md', 'src/out/README.md'), 'SYMLINK_ESCAPE', [at('src/out/README.md'), at('src/out')]);
      await w().rename('README.md', 'docs/leak.txt', { overwrite: true });
      expect(await w().stat('docs/leak.txt')).toMatchObject({ type: 'file' });
      expect(text(await w().readFile('docs/leak.txt'))).toBe('# fixture\n');
      expect(await links.outsideHash()).toBe(outside);
    });
  }
}
