/**
 * The confined removal of `<area>/<id>` (both walks: procfs and the lstat fallback): the whole
 * tree goes — files, folders, links as links, a chain far deeper than the descriptors it may
 * hold — and nothing outside: links to outside folders and files are removed, never followed;
 * a target or an area that is a link, and names that are not ids, are refused with nothing
 * removed; `onlyIfEmpty` stops at the first file. A folder swapped for a link to an outside
 * folder at the exact moment between the checks (test seams; the test shows the swap makes the
 * outside files visible by name) never gets an outside byte deleted.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_HELD, removeBeneath } from '../../src/host/platform/confined-removal.js';
import { hashTree } from '../security/sandbox.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function place(): { area: string; outside: string; base: string } {
  const base = mkdtempSync(join(tmpdir(), 'gatefs-remove-'));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const area = join(base, 'state/worktrees');
  const outside = join(base, 'outside');
  mkdirSync(area, { recursive: true });
  mkdirSync(join(outside, 'sub'), { recursive: true });
  writeFileSync(join(outside, 'keep.txt'), 'outside\n');
  writeFileSync(join(outside, 'sub/deep.txt'), 'outside deep\n');
  return { area, outside, base };
}

function fill(dir: string, outside: string): void {
  mkdirSync(join(dir, 'src/lib'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), 'r');
  writeFileSync(join(dir, 'src/lib/a.ts'), 'a');
  writeFileSync(join(dir, '.git'), 'gitdir: somewhere\n');
  symlinkSync(outside, join(dir, 'src/to-outside-dir'));
  symlinkSync(join(outside, 'keep.txt'), join(dir, 'to-outside-file'));
  symlinkSync('../../..', join(dir, 'src/lib/up'));
  symlinkSync('/nonexistent/dangling', join(dir, 'dangling'));
}

const open = (procfs: boolean) => ({ procfs });

describe.each([
  ['procfs', true],
  ['lstat-fallback', false],
])('removeBeneath (%s)', (_name, procfs) => {
  it('removes the whole tree, links as links, and nothing they point at', () => {
    const { area, outside } = place();
    fill(join(area, 'a'), outside);
    const before = hashTree(outside);
    expect(removeBeneath(area, 'a', open(procfs))).toBe(true);
    expect(existsSync(join(area, 'a'))).toBe(false);
    expect(readdirSync(area)).toEqual([]);
    expect(hashTree(outside)).toBe(before);
  });

  it(`removes a chain far deeper than the ${MAX_HELD} folders it may hold open`, () => {
    const { area, outside } = place();
    let dir = join(area, 'deep');
    const parts: string[] = [];
    for (let i = 0; i < 300; i++) parts.push('d');
    mkdirSync(join(dir, ...parts), { recursive: true });
    writeFileSync(join(dir, ...parts, 'bottom.txt'), 'bottom');
    symlinkSync(outside, join(dir, ...parts.slice(0, 150), 'link'));
    dir = join(area, 'deep');
    const before = hashTree(outside);
    expect(removeBeneath(area, 'deep', open(procfs))).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect(hashTree(outside)).toBe(before);
  });

  it('refuses a target that is a link, an area that is a link, and names that are not ids, removing nothing', () => {
    const { area, outside, base } = place();
    const before = hashTree(outside);
    symlinkSync(outside, join(area, 'linked'));
    expect(() => removeBeneath(area, 'linked', open(procfs))).toThrow(expect.objectContaining({ code: 'STATE_UNTRUSTED' }));
    expect(lstatSync(join(area, 'linked')).isSymbolicLink()).toBe(true);
    const linkedArea = join(base, 'state/copies');
    symlinkSync(outside, linkedArea);
    expect(() => removeBeneath(linkedArea, 'sub', open(procfs))).toThrow(expect.objectContaining({ code: 'STATE_UNTRUSTED' }));
    for (const name of ['..', '.', '', '../outside', 'a/b', '/', 'A', '-x']) {
      expect(() => removeBeneath(area, name, open(procfs))).toThrow(expect.objectContaining({ code: 'STATE_UNTRUSTED' }));
    }
    writeFileSync(join(area, 'file'), 'a file, not a folder');
    expect(() => removeBeneath(area, 'file', open(procfs))).toThrow(expect.objectContaining({ code: 'STATE_UNTRUSTED' }));
    expect(hashTree(outside)).toBe(before);
    expect(removeBeneath(area, 'missing', open(procfs))).toBe(false);
  });

  it('onlyIfEmpty removes empty folders and stops at the first file, naming it', () => {
    const { area } = place();
    mkdirSync(join(area, 'c/x/y'), { recursive: true });
    expect(removeBeneath(area, 'c', { procfs, onlyIfEmpty: true })).toBe(true);
    mkdirSync(join(area, 'd/x/y'), { recursive: true });
    writeFileSync(join(area, 'd/x/y/work.md'), 'work');
    expect(() => removeBeneath(area, 'd', { procfs, onlyIfEmpty: true })).toThrow(
      expect.objectContaining({ code: 'DIRTY_WORKTREE', data: { files: ['x/y/work.md'] } }),
    );
    expect(existsSync(join(area, 'd/x/y/work.md'))).toBe(true);
  });
});

describe.each([
  ['procfs', true],
  ['lstat-fallback', false],
])('removeBeneath against a swap at the exact moment (%s)', (_name, procfs) => {
  function tree() {
    const { area, outside } = place();
    for (let i = 0; i < 5; i++) writeFileSync(join(outside, `o${i}.txt`), `outside ${i}\n`);
    // Same shape as the tree below, so a walk by name that strays outside finds things to delete.
    mkdirSync(join(outside, 'inner'));
    writeFileSync(join(outside, 'inner/f'), 'outside inner');
    const target = join(area, 'a');
    for (const d of ['d1', 'd2']) {
      mkdirSync(join(target, d, 'inner'), { recursive: true });
      writeFileSync(join(target, d, 'inner/f'), 'inside');
    }
    return { area, outside, target, before: hashTree(outside) };
  }

  it('a folder replaced by a link to an outside folder after it was seen, before it was opened: nothing outside goes', () => {
    const { area, outside, target, before } = tree();
    let swapped = false;
    const seams = {
      beforeOpen: (rel: string) => {
        if (rel !== 'd1' || swapped) return;
        swapped = true;
        rmSync(join(target, 'd1'), { recursive: true });
        symlinkSync(outside, join(target, 'd1'));
        // The race is live: by name, the folder now lists the outside files.
        expect(readdirSync(join(target, 'd1'))).toContain('o0.txt');
      },
    };
    expect(() => removeBeneath(area, 'a', { procfs, seams })).toThrow();
    expect(swapped).toBe(true);
    expect(hashTree(outside)).toBe(before);
    expect(lstatSync(join(target, 'd1')).isSymbolicLink()).toBe(true);
    // A second removal takes the link as a link.
    expect(removeBeneath(area, 'a', { procfs })).toBe(true);
    expect(hashTree(outside)).toBe(before);
  });

  it('a folder being emptied moved away and replaced by a link: the walk never continues into the outside folder', () => {
    const { area, outside, target, before } = tree();
    let swapped = false;
    const seams = {
      beforeEntry: (rel: string) => {
        if (rel !== 'd1/inner' || swapped) return;
        swapped = true;
        renameSync(join(target, 'd1'), join(target, 'moved'));
        symlinkSync(outside, join(target, 'd1'));
        expect(readdirSync(join(target, 'd1'))).toContain('o0.txt');
      },
    };
    try {
      removeBeneath(area, 'a', { procfs, seams });
    } catch {
      // procfs goes on through its handle and then refuses to rmdir a link; the fallback stops at once
    }
    expect(swapped).toBe(true);
    expect(hashTree(outside)).toBe(before);
    expect(removeBeneath(area, 'a', { procfs })).toBe(true);
    expect(hashTree(outside)).toBe(before);
    expect(existsSync(target)).toBe(false);
  });
});
