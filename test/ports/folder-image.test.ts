/**
 * The `FolderImage` port, one suite run against the disk implementation (real temp folders) and
 * the memory one (a memfs volume): what a scan lists, what reads, writes, links and removals do
 * to the bytes and modes of the tree — and that no link below the root is ever followed, checked
 * by the bytes of files outside the root before and after.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Volume } from 'memfs';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryFolderImage } from '../../src/host/memory/memory-folder-image.js';
import { DiskFolderImage } from '../../src/ports/disk-folder-image.js';
import { type FolderImage, FolderImageError } from '../../src/ports/folder-image.js';

/** What is at a path of the backing store, looked at without following a link. */
type Seen = { kind: 'dir' | 'file' | 'link' | 'missing' | 'other'; mode?: number; bytes?: string; target?: string };

/** One implementation with a root and an outside folder, and direct access to its backing store. */
interface Fixture {
  image: FolderImage;
  /** The image's root; `outside` is a sibling folder no operation may touch. */
  root: string;
  outside: string;
  mkdir(path: string, mode?: number): void;
  write(path: string, text: string, mode?: number): void;
  link(path: string, target: string): void;
  /** Makes a FIFO; false when the backing store cannot hold one. */
  fifo(path: string): boolean;
  seen(path: string): Seen;
}

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function diskFixture(): Fixture {
  const base = mkdtempSync(join(tmpdir(), 'gatefs-image-'));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  return {
    image: new DiskFolderImage(),
    root,
    outside,
    mkdir: (p, mode = 0o755) => {
      mkdirSync(p);
      chmodSync(p, mode);
    },
    write: (p, text, mode = 0o644) => {
      writeFileSync(p, text);
      chmodSync(p, mode);
    },
    link: (p, target) => symlinkSync(target, p),
    fifo: (p) => {
      execFileSync('mkfifo', [p]);
      return true;
    },
    seen: (p) => {
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) return { kind: 'missing' };
      if (st.isSymbolicLink()) return { kind: 'link', target: readlinkSync(p) };
      if (st.isDirectory()) return { kind: 'dir', mode: st.mode & 0o7777 };
      if (st.isFile()) return { kind: 'file', mode: st.mode & 0o7777, bytes: readFileSync(p, 'utf8') };
      return { kind: 'other' };
    },
  };
}

function memoryFixture(): Fixture {
  const volume = new Volume();
  volume.mkdirSync('/base/root', { recursive: true });
  volume.mkdirSync('/base/outside', { recursive: true });
  return {
    image: new MemoryFolderImage(volume),
    root: '/base/root',
    outside: '/base/outside',
    mkdir: (p, mode = 0o755) => {
      volume.mkdirSync(p);
      volume.chmodSync(p, mode);
    },
    write: (p, text, mode = 0o644) => {
      volume.writeFileSync(p, text);
      volume.chmodSync(p, mode);
    },
    link: (p, target) => volume.symlinkSync(target, p),
    // memfs has no FIFOs, sockets or devices: the special-file case is disk only.
    fifo: () => false,
    seen: (p) => {
      const st = volume.lstatSync(p, { throwIfNoEntry: false });
      if (!st) return { kind: 'missing' };
      if (st.isSymbolicLink()) return { kind: 'link', target: String(volume.readlinkSync(p)) };
      if (st.isDirectory()) return { kind: 'dir', mode: Number(st.mode) & 0o7777 };
      if (st.isFile()) return { kind: 'file', mode: Number(st.mode) & 0o7777, bytes: String(volume.readFileSync(p, 'utf8')) };
      return { kind: 'other' };
    },
  };
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const bytesOf = (s: string) => new Uint8Array(Buffer.from(s));

async function refusal(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FolderImageError);
  return (e as FolderImageError).code;
}

describe.each([
  ['disk', diskFixture],
  ['memory', memoryFixture],
])('FolderImage (%s)', (_name, make) => {
  it('scans files, folders, empty folders and links, sorted, with modes; skip leaves a subtree out', async () => {
    const f = make();
    f.mkdir(`${f.root}/src`);
    f.write(`${f.root}/src/a.ts`, 'a', 0o644);
    f.write(`${f.root}/run.sh`, '#!/bin/sh\n', 0o755);
    f.write(`${f.root}/secret`, 'k', 0o600);
    f.mkdir(`${f.root}/empty`, 0o700);
    f.mkdir(`${f.root}/src-old`);
    f.link(`${f.root}/src/link`, '../run.sh');
    f.mkdir(`${f.root}/.git`);
    f.write(`${f.root}/.git/HEAD`, 'ref');
    const scan = await f.image.scan(f.root, { skip: (p) => p === '.git' });
    expect(scan.skipped).toEqual([]);
    expect(scan.entries.map(({ path, kind, ...rest }) => [path, kind, 'mode' in rest ? rest.mode : undefined])).toEqual(
      [
        ['empty', 'dir', 0o700],
        ['run.sh', 'file', 0o755],
        ['secret', 'file', 0o600],
        ['src', 'dir', 0o755],
        ['src-old', 'dir', 0o755],
        ['src/a.ts', 'file', 0o644],
        ['src/link', 'link', undefined],
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );
    expect(scan.entries.find((e) => e.path === 'src/link')).toEqual({ path: 'src/link', kind: 'link', target: '../run.sh' });
    expect(scan.entries.find((e) => e.path === 'run.sh')).toMatchObject({ size: 10 });
    expect((await f.image.scan(f.root)).entries.map((e) => e.path)).toContain('.git/HEAD');
  });

  it('lists a linked folder as a link and never descends into it', async () => {
    const f = make();
    f.write(`${f.outside}/private`, 'outside bytes');
    f.link(`${f.root}/away`, f.outside);
    const scan = await f.image.scan(f.root);
    expect(scan.entries).toEqual([{ path: 'away', kind: 'link', target: f.outside }]);
  });

  it('puts special files in skipped, never in entries', async (ctx) => {
    const f = make();
    if (!f.fifo(`${f.root}/pipe`)) ctx.skip(); // memfs cannot hold a FIFO
    f.write(`${f.root}/plain`, 'x');
    const scan = await f.image.scan(f.root);
    expect(scan.skipped).toEqual(['pipe']);
    expect(scan.entries.map((e) => e.path)).toEqual(['plain']);
    expect(await refusal(f.image.read(f.root, 'pipe'))).toBe('NOT_REGULAR_FILE');
  });

  it('refuses a root that is missing or a link', async () => {
    const f = make();
    expect(await refusal(f.image.scan(`${f.root}/nope`))).toBe('NOT_FOUND');
    f.link(`${f.root}/linked-root`, f.outside);
    expect(await refusal(f.image.scan(`${f.root}/linked-root`))).toBe('SYMLINK_ESCAPE');
  });

  it('changes the stamp when the bytes change, even at the same size', async () => {
    const f = make();
    f.write(`${f.root}/a`, 'one');
    const stampOf = async () => {
      const e = (await f.image.scan(f.root)).entries.find((x) => x.path === 'a');
      return e?.kind === 'file' ? e.stamp : '';
    };
    const before = await stampOf();
    expect(await stampOf()).toBe(before);
    f.write(`${f.root}/a`, 'two');
    const inPlace = await stampOf();
    expect(inPlace).not.toBe(before);
    await f.image.writeFile(f.root, 'a', bytesOf('six'), 0o644);
    expect(await stampOf()).not.toBe(inPlace);
  });

  it('reads a regular file and refuses links, folders, missing names and bad paths', async () => {
    const f = make();
    f.mkdir(`${f.root}/d`);
    f.write(`${f.root}/d/f`, 'inside');
    f.write(`${f.outside}/secret`, 'outside bytes');
    f.link(`${f.root}/via`, f.outside);
    f.link(`${f.root}/ln`, `${f.outside}/secret`);
    expect(text(await f.image.read(f.root, 'd/f'))).toBe('inside');
    expect(await refusal(f.image.read(f.root, 'via/secret'))).toBe('SYMLINK_ESCAPE');
    expect(await refusal(f.image.read(f.root, 'ln'))).toBe('SYMLINK_ESCAPE');
    expect(await refusal(f.image.read(f.root, 'd'))).toBe('NOT_REGULAR_FILE');
    expect(await refusal(f.image.read(f.root, 'd/none'))).toBe('NOT_FOUND');
    expect(await refusal(f.image.read(f.root, 'd/f/x'))).toBe('NOT_DIRECTORY');
    expect(await refusal(f.image.read(f.root, '../outside/secret'))).toBe('BAD_NAME');
    expect(await refusal(f.image.read(f.root, '/d/f'))).toBe('BAD_NAME');
  });

  it('writes a file with exactly the mode asked, replacing a file, a link (never its target) and a folder', async () => {
    const f = make();
    f.write(`${f.outside}/target`, 'outside bytes', 0o644);
    f.link(`${f.root}/ln`, `${f.outside}/target`);
    await f.image.writeFile(f.root, 'ln', bytesOf('new'), 0o600);
    expect(f.seen(`${f.root}/ln`)).toEqual({ kind: 'file', mode: 0o600, bytes: 'new' });
    expect(f.seen(`${f.outside}/target`)).toEqual({ kind: 'file', mode: 0o644, bytes: 'outside bytes' });

    await f.image.writeFile(f.root, 'ln', bytesOf('again'), 0o777);
    expect(f.seen(`${f.root}/ln`)).toEqual({ kind: 'file', mode: 0o777, bytes: 'again' });

    f.mkdir(`${f.root}/dir`);
    f.write(`${f.root}/dir/inner`, 'x');
    await f.image.writeFile(f.root, 'dir', bytesOf('file now'), 0o755);
    expect(f.seen(`${f.root}/dir`)).toEqual({ kind: 'file', mode: 0o755, bytes: 'file now' });
    expect((await f.image.scan(f.root)).entries.map((e) => e.path)).toEqual(['dir', 'ln']);
  });

  it('refuses to write through a linked folder and leaves the outside untouched', async () => {
    const f = make();
    f.write(`${f.outside}/keep`, 'outside bytes');
    f.link(`${f.root}/via`, f.outside);
    expect(await refusal(f.image.writeFile(f.root, 'via/keep', bytesOf('evil'), 0o644))).toBe('SYMLINK_ESCAPE');
    expect(await refusal(f.image.writeFile(f.root, 'via/new', bytesOf('evil'), 0o644))).toBe('SYMLINK_ESCAPE');
    expect(await refusal(f.image.makeFolder(f.root, 'via/d', 0o755))).toBe('SYMLINK_ESCAPE');
    expect(await refusal(f.image.makeLink(f.root, 'via/l', 'x'))).toBe('SYMLINK_ESCAPE');
    expect(f.seen(`${f.outside}/keep`)).toMatchObject({ kind: 'file', bytes: 'outside bytes' });
    expect(f.seen(`${f.outside}/new`)).toEqual({ kind: 'missing' });
    expect(f.seen(`${f.outside}/d`)).toEqual({ kind: 'missing' });
  });

  it('makes folders with exact modes, sets the mode of an existing one, and replaces a file or link there', async () => {
    const f = make();
    await f.image.makeFolder(f.root, 'private', 0o700);
    expect(f.seen(`${f.root}/private`)).toEqual({ kind: 'dir', mode: 0o700 });
    await f.image.makeFolder(f.root, 'private/open', 0o777);
    expect(f.seen(`${f.root}/private/open`)).toEqual({ kind: 'dir', mode: 0o777 });
    f.write(`${f.root}/private/open/keep`, 'kept');
    await f.image.makeFolder(f.root, 'private/open', 0o755);
    expect(f.seen(`${f.root}/private/open`)).toEqual({ kind: 'dir', mode: 0o755 });
    expect(f.seen(`${f.root}/private/open/keep`)).toMatchObject({ bytes: 'kept' });
    f.write(`${f.root}/was-file`, 'x');
    f.link(`${f.root}/was-link`, f.outside);
    await f.image.makeFolder(f.root, 'was-file', 0o755);
    await f.image.makeFolder(f.root, 'was-link', 0o750);
    expect(f.seen(`${f.root}/was-file`)).toEqual({ kind: 'dir', mode: 0o755 });
    expect(f.seen(`${f.root}/was-link`)).toEqual({ kind: 'dir', mode: 0o750 });
    expect(f.seen(f.outside)).toMatchObject({ kind: 'dir' });
    expect(await refusal(f.image.makeFolder(f.root, 'no/parent', 0o755))).toBe('NOT_FOUND');
  });

  it('makes links, replacing a file or a whole folder', async () => {
    const f = make();
    await f.image.makeLink(f.root, 'l', 'somewhere/else');
    expect(f.seen(`${f.root}/l`)).toEqual({ kind: 'link', target: 'somewhere/else' });
    f.mkdir(`${f.root}/d`);
    f.mkdir(`${f.root}/d/deeper`);
    f.write(`${f.root}/d/deeper/f`, 'x');
    await f.image.makeLink(f.root, 'd', '../elsewhere');
    expect(f.seen(`${f.root}/d`)).toEqual({ kind: 'link', target: '../elsewhere' });
    f.write(`${f.root}/file`, 'x');
    await f.image.makeLink(f.root, 'file', 'l');
    expect((await f.image.scan(f.root)).entries).toEqual([
      { path: 'd', kind: 'link', target: '../elsewhere' },
      { path: 'file', kind: 'link', target: 'l' },
      { path: 'l', kind: 'link', target: 'somewhere/else' },
    ]);
  });

  it('removes a folder holding a link to an outside folder: the link goes, the outside files stay', async () => {
    const f = make();
    f.mkdir(`${f.outside}/data`);
    f.write(`${f.outside}/data/precious`, 'outside bytes');
    f.mkdir(`${f.root}/d`);
    f.mkdir(`${f.root}/d/sub`);
    f.write(`${f.root}/d/sub/f`, 'x');
    f.link(`${f.root}/d/sub/away`, `${f.outside}/data`);
    f.link(`${f.root}/d/file-link`, `${f.outside}/data/precious`);
    await f.image.remove(f.root, 'd');
    expect(f.seen(`${f.root}/d`)).toEqual({ kind: 'missing' });
    expect(f.seen(`${f.outside}/data/precious`)).toMatchObject({ kind: 'file', bytes: 'outside bytes' });

    f.link(`${f.root}/top-link`, `${f.outside}/data`);
    await f.image.remove(f.root, 'top-link');
    expect(f.seen(`${f.root}/top-link`)).toEqual({ kind: 'missing' });
    expect(f.seen(`${f.outside}/data`)).toMatchObject({ kind: 'dir' });

    f.link(`${f.root}/via`, `${f.outside}/data`);
    await f.image.remove(f.root, 'via/precious');
    await f.image.remove(f.root, 'never-there');
    expect(f.seen(`${f.outside}/data/precious`)).toMatchObject({ kind: 'file', bytes: 'outside bytes' });
    expect((await f.image.scan(f.root)).entries).toEqual([{ path: 'via', kind: 'link', target: `${f.outside}/data` }]);
  });

  it('counts the bytes of regular files below the root', async () => {
    const f = make();
    f.write(`${f.root}/a`, 'x'.repeat(5000));
    f.link(`${f.root}/l`, `${f.outside}`);
    f.write(`${f.outside}/big`, 'y'.repeat(100_000));
    const used = await f.image.bytesUsed(f.root);
    expect(used).toBeGreaterThanOrEqual(_name === 'disk' ? 4096 : 5000);
    expect(used).toBeLessThan(100_000);
  });
});
