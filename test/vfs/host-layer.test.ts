import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHostLayer, type HostLayer, type HostLayerOptions } from '../../vfs/host-layer.js';
import { hasProcFd } from '../../vfs/host-walk.js';
import { walkLayer, type WalkEntries } from '../../vfs/layer.js';
import { VfsError } from '../../vfs/errors.js';
import { MAX_GUARDED_DEPTH } from '../../vfs/host-rename.js';
import { makeChain, removeDeep } from '../security/deep-chain.js';
import { descriptorsUnder } from '../open-descriptors.js';

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
const bytes = (s: string) => Buffer.from(s, 'utf8');
/** The descriptors open under this test's folder (the layer's handles; nothing else the process holds). */
const openFds = () => descriptorsUnder(base);

let base: string;
let root: string;
const opened: HostLayer[] = [];

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-host-'));
  root = path.join(base, 'root');
  fs.mkdirSync(path.join(root, 'a/b/c'), { recursive: true });
  fs.writeFileSync(path.join(root, 'a/b/c/f.txt'), 'deep');
  fs.writeFileSync(path.join(root, 'top.txt'), 'top');
  fs.mkdirSync(path.join(base, 'outside'));
  fs.writeFileSync(path.join(base, 'outside/secret.txt'), 'OUTSIDE');
});

afterEach(() => {
  for (const layer of opened.splice(0)) layer.close();
  fs.rmSync(base, { recursive: true, force: true });
});

/** Expects a VfsError with `code` (and `path`), whose message and JSON never name a host path. */
async function refused(p: Promise<unknown>, code: string, at?: string): Promise<VfsError> {
  const e = await p.then(
    () => {
      throw new Error(`expected ${code}, got success`);
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(VfsError);
  const err = e as VfsError;
  expect(err.code).toBe(code);
  if (at !== undefined) expect(err.path).toBe(at);
  for (const shown of [err.message, JSON.stringify(err), String((err.cause as Error | undefined)?.message ?? '')]) {
    expect(shown).not.toContain(base);
    expect(shown).not.toContain('/proc/self');
  }
  return err;
}

const modes: [string, HostLayerOptions][] = [
  ['procfs', {}],
  ['lstat-fallback', { forceFallback: true }],
];

describe.each(modes)('HostLayer (%s)', (guarantee, options) => {
  const open = (extra: HostLayerOptions = {}) => {
    const layer = openHostLayer(root, { ...options, ...extra });
    opened.push(layer);
    return layer;
  };

  it('opens a folder, reports its identity and guarantee, and refuses a missing or non-folder root', () => {
    const layer = open();
    const st = fs.statSync(root);
    expect(layer.kind).toBe('host');
    expect(layer.identity).toEqual({ dev: st.dev, ino: st.ino });
    expect(layer.guarantee).toBe(guarantee === 'procfs' && !hasProcFd() ? 'lstat-fallback' : guarantee);
    expect(() => openHostLayer(path.join(base, 'missing'), options)).toThrow(expect.objectContaining({ code: 'NOT_FOUND', path: '' }));
    expect(() => openHostLayer(path.join(root, 'top.txt'), options)).toThrow(expect.objectContaining({ code: 'NOT_DIRECTORY' }));
  });

  it('stats files, folders, links and special files without following a final link', async () => {
    fs.symlinkSync('../outside/secret.txt', path.join(root, 'link'));
    fs.chmodSync(path.join(root, 'top.txt'), 0o640);
    const layer = open();
    expect(await layer.stat('top.txt')).toMatchObject({ type: 'file', size: 3, mode: 0o640 });
    expect(await layer.stat('a/b')).toMatchObject({ type: 'directory', size: 0 });
    expect(await layer.stat('')).toMatchObject({ type: 'directory' });
    expect(await layer.stat('link')).toMatchObject({ type: 'symlink' });
    await refused(layer.stat('link/x'), 'SYMLINK_ESCAPE', 'link');
    await refused(layer.stat('a/missing/x'), 'NOT_FOUND', 'a/missing');
    await refused(layer.stat('top.txt/x'), 'NOT_DIRECTORY', 'top.txt');
  });

  it('reads bytes of regular files only, three folders deep and over 1 MiB', async () => {
    const big = Buffer.alloc(2.5 * 1024 * 1024 + 7);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
    fs.writeFileSync(path.join(root, 'a/big.bin'), big);
    fs.writeFileSync(path.join(root, 'empty'), '');
    const layer = open();
    expect(text(await layer.readFile('a/b/c/f.txt'))).toBe('deep');
    expect(Buffer.compare(Buffer.from(await layer.readFile('a/big.bin')), big)).toBe(0);
    expect((await layer.readFile('empty')).length).toBe(0);
    await refused(layer.readFile('a/b'), 'IS_DIRECTORY', 'a/b');
    await refused(layer.readFile(''), 'IS_DIRECTORY', '');
    await refused(layer.readFile('nope.txt'), 'NOT_FOUND', 'nope.txt');
    await refused(layer.readFile('top.txt/x'), 'NOT_DIRECTORY', 'top.txt');
  });

  it('streams a file to onChunk in order, a slice of at most 1 MiB at a time, and stops when asked', async () => {
    const big = Buffer.alloc(2.5 * 1024 * 1024 + 7);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    fs.writeFileSync(path.join(root, 'a/big.bin'), big);
    const layer = open();
    const chunks: Buffer[] = [];
    const rest = await layer.readFile('a/big.bin', { onChunk: (c) => void chunks.push(Buffer.from(c)) });
    expect(rest.length).toBe(0);
    expect(chunks.map((c) => c.length)).toEqual([1 << 20, 1 << 20, big.length - 2 * (1 << 20)]);
    expect(Buffer.compare(Buffer.concat(chunks), big)).toBe(0);
    let calls = 0;
    await layer.readFile('a/big.bin', { onChunk: () => (++calls, false) });
    expect(calls).toBe(1);
    await refused(layer.readFile('a/big.bin', { maxBytes: 1000, onChunk: () => undefined }), 'TOO_LARGE', 'a/big.bin');
    await refused(layer.readFile('a/b', { onChunk: () => undefined }), 'IS_DIRECTORY', 'a/b');
  });

  it('honours maxBytes: exactly the limit passes, one byte more is TOO_LARGE', async () => {
    const layer = open();
    expect(text(await layer.readFile('a/b/c/f.txt', { maxBytes: 4 }))).toBe('deep');
    await refused(layer.readFile('a/b/c/f.txt', { maxBytes: 3 }), 'TOO_LARGE', 'a/b/c/f.txt');
  });

  it('reads a file that grows after its size was checked to its end, within maxBytes', async () => {
    const grow = () => fs.appendFileSync(path.join(root, 'a/b/c/f.txt'), '+more');
    const layer = open({ seams: { afterCheck: ({ op }) => op === 'read' && grow() } });
    expect(text(await layer.readFile('a/b/c/f.txt'))).toBe('deep+more');
    await refused(layer.readFile('a/b/c/f.txt', { maxBytes: 12 }), 'TOO_LARGE', 'a/b/c/f.txt');
    expect(fs.readFileSync(path.join(root, 'a/b/c/f.txt'), 'utf8')).toBe('deep+more+more');
  });

  it('refuses a link as the final name and as a folder on the way', async () => {
    fs.symlinkSync(path.join(base, 'outside/secret.txt'), path.join(root, 'leaf'));
    fs.symlinkSync(path.join(base, 'outside'), path.join(root, 'a/dirlink'));
    const layer = open();
    await refused(layer.readFile('leaf'), 'SYMLINK_ESCAPE', 'leaf');
    await refused(layer.readFile('a/dirlink/secret.txt'), 'SYMLINK_ESCAPE', 'a/dirlink');
    await refused(layer.readdir('a/dirlink'), 'SYMLINK_ESCAPE', 'a/dirlink');
    await refused(layer.writeFile('a/dirlink/new.txt', bytes('x')), 'SYMLINK_ESCAPE', 'a/dirlink');
    expect(fs.existsSync(path.join(base, 'outside/new.txt'))).toBe(false);
  });

  it('lists a folder sorted by UTF-16 code units with entry types, links not followed', async () => {
    for (const name of ['z', 'B', 'é', '10', '9', '_x']) fs.writeFileSync(path.join(root, 'a', name), '');
    fs.symlinkSync('/etc', path.join(root, 'a/ln'));
    execFileSync('mkfifo', [path.join(root, 'a/fifo')]);
    const layer = open();
    const entries = await layer.readdir('a');
    const names = entries.map((e) => e.name);
    expect(names).toEqual([...names].sort());
    expect(entries).toContainEqual({ name: 'b', type: 'directory' });
    expect(entries).toContainEqual({ name: 'ln', type: 'symlink' });
    expect(entries).toContainEqual({ name: 'é', type: 'file' });
    expect(entries).toContainEqual({ name: 'fifo', type: 'other' });
    await refused(layer.readdir('top.txt'), 'NOT_DIRECTORY', 'top.txt');
    await refused(layer.readdir('nope'), 'NOT_FOUND', 'nope');
  });

  it('writes atomically: creates, replaces, keeps an existing mode, and leaves no temp file', async () => {
    fs.chmodSync(path.join(root, 'top.txt'), 0o600);
    const layer = open();
    expect(await layer.writeFile('a/new.txt', bytes('one'))).toEqual({ created: true });
    expect(fs.statSync(path.join(root, 'a/new.txt')).mode & 0o777).toBe(0o644);
    expect(await layer.writeFile('top.txt', bytes('two'))).toEqual({ created: false });
    expect(fs.readFileSync(path.join(root, 'top.txt'), 'utf8')).toBe('two');
    expect(fs.statSync(path.join(root, 'top.txt')).mode & 0o777).toBe(0o600);
    await layer.writeFile('a/exec.sh', bytes('#!'), { mode: 0o755 });
    expect(fs.statSync(path.join(root, 'a/exec.sh')).mode & 0o777).toBe(0o755);
    expect(fs.readdirSync(path.join(root, 'a')).sort()).toEqual(['b', 'exec.sh', 'new.txt']);
    expect(fs.readdirSync(root).sort()).toEqual(['a', 'top.txt']);
  });

  it('creates exclusively: ALREADY_EXISTS leaves the file as it was', async () => {
    const layer = open();
    expect(await layer.writeFile('a/x.txt', bytes('first'), { exclusive: true })).toEqual({ created: true });
    await refused(layer.writeFile('a/x.txt', bytes('second'), { exclusive: true }), 'ALREADY_EXISTS', 'a/x.txt');
    expect(fs.readFileSync(path.join(root, 'a/x.txt'), 'utf8')).toBe('first');
    expect(fs.readdirSync(path.join(root, 'a')).sort()).toEqual(['b', 'x.txt']);
  });

  it('refuses writes onto folders, into missing folders and at the root', async () => {
    const layer = open();
    await refused(layer.writeFile('a/b', bytes('x')), 'IS_DIRECTORY', 'a/b');
    await refused(layer.writeFile('', bytes('x')), 'IS_DIRECTORY', '');
    await refused(layer.writeFile('missing/x.txt', bytes('x')), 'NOT_FOUND', 'missing');
    expect(fs.existsSync(path.join(root, 'missing'))).toBe(false);
  });

  it('replaces a link at the name instead of following it, and a hard link gets a new inode', async () => {
    const secret = path.join(base, 'outside/secret.txt');
    fs.symlinkSync(secret, path.join(root, 'ln'));
    fs.linkSync(secret, path.join(root, 'hard'));
    const layer = open();
    await layer.writeFile('ln', bytes('mine'));
    await layer.writeFile('hard', bytes('mine too'));
    expect(fs.readFileSync(secret, 'utf8')).toBe('OUTSIDE');
    expect(fs.lstatSync(path.join(root, 'ln')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(root, 'hard'), 'utf8')).toBe('mine too');
    expect(fs.statSync(secret).nlink).toBe(1);
  });

  it('makes folders, refusing an existing name (a dangling link included) without creating its target', async () => {
    fs.symlinkSync(path.join(base, 'outside/made'), path.join(root, 'dangling'));
    const layer = open();
    await layer.mkdir('a/new');
    expect(fs.statSync(path.join(root, 'a/new')).isDirectory()).toBe(true);
    await refused(layer.mkdir('a/new'), 'ALREADY_EXISTS', 'a/new');
    await refused(layer.mkdir('dangling'), 'ALREADY_EXISTS', 'dangling');
    await refused(layer.mkdir(''), 'ALREADY_EXISTS', '');
    await refused(layer.mkdir('x/y'), 'NOT_FOUND', 'x');
    expect(fs.existsSync(path.join(base, 'outside/made'))).toBe(false);
  });

  it('removes files, links (not their targets) and empty folders only', async () => {
    fs.symlinkSync(path.join(base, 'outside'), path.join(root, 'ln'));
    fs.mkdirSync(path.join(root, 'empty'));
    const layer = open();
    await layer.remove('ln');
    await layer.remove('top.txt');
    await layer.remove('empty');
    expect(fs.readdirSync(root)).toEqual(['a']);
    expect(fs.readFileSync(path.join(base, 'outside/secret.txt'), 'utf8')).toBe('OUTSIDE');
    await refused(layer.remove('a/b'), 'NOT_EMPTY', 'a/b');
    await refused(layer.remove('gone'), 'NOT_FOUND', 'gone');
    await refused(layer.remove(''), 'READ_ONLY', '');
  });

  it('refuses paths that are not layer-relative even when the grammar was bypassed', async () => {
    const layer = open();
    for (const bad of ['..', '../outside/secret.txt', 'a/../../outside/secret.txt', '/etc/hostname', 'a//b', './top.txt', 'a\u0000b']) {
      await refused(layer.readFile(bad), 'BAD_NAME');
      await refused(layer.writeFile(bad, bytes('x')), 'BAD_NAME');
    }
    await refused(layer.readdir('..'), 'BAD_NAME');
    await refused(layer.readFile(42 as unknown as string), 'BAD_NAME');
    expect(fs.readFileSync(path.join(base, 'outside/secret.txt'), 'utf8')).toBe('OUTSIDE');
  });

  it('shows every folder on a mutating walk to the guard and throws its code', async () => {
    const guarded = fs.statSync(path.join(root, 'a/b'));
    const seen: string[] = [];
    const layer = open({
      guard: (id, op) => {
        seen.push(op);
        return id.ino === guarded.ino && id.dev === guarded.dev ? 'READ_ONLY' : undefined;
      },
    });
    await refused(layer.writeFile('a/b/c/f.txt', bytes('x')), 'READ_ONLY', 'a/b');
    await refused(layer.mkdir('a/b/new'), 'READ_ONLY', 'a/b');
    await refused(layer.remove('a/b'), 'READ_ONLY', 'a/b');
    await refused(layer.remove('a/b/c/f.txt'), 'READ_ONLY', 'a/b');
    await layer.writeFile('a/ok.txt', bytes('fine'));
    expect(fs.readFileSync(path.join(root, 'a/b/c/f.txt'), 'utf8')).toBe('deep');
    expect(seen).toContain('write');
    expect(seen).toContain('remove');
    expect(text(await layer.readFile('a/b/c/f.txt'))).toBe('deep');
  });

  it('keeps working on the held folder when it is moved away during a write', async () => {
    let moved = false;
    const layer = open({
      seams: {
        beforeCommit: ({ path: p }) => {
          if (p === 'a/b/new.txt' && !moved) {
            moved = true;
            fs.renameSync(path.join(root, 'a/b'), path.join(root, 'moved'));
          }
        },
      },
    });
    const result = layer.writeFile('a/b/new.txt', bytes('landed'));
    if (guarantee === 'procfs') {
      await result;
      expect(fs.readFileSync(path.join(root, 'moved/new.txt'), 'utf8')).toBe('landed');
    } else {
      // The fallback cannot follow a moved folder: it refuses (and cannot reach its temp file).
      await refused(result, 'SYMLINK_ESCAPE');
      expect(fs.existsSync(path.join(root, 'moved/new.txt'))).toBe(false);
    }
    expect(fs.existsSync(path.join(root, 'a/b'))).toBe(false);
  });

  it('walks a tree depth first in listing order, lists links without descending, and can skip folders', async () => {
    fs.mkdirSync(path.join(root, 'a/.git/objects'), { recursive: true });
    fs.symlinkSync(path.join(base, 'outside'), path.join(root, 'a/ln'));
    const layer = open();
    const walked: WalkEntries[] = [];
    for await (const w of walkLayer(layer, '', { descend: (p) => !p.endsWith('.git') })) walked.push(w);
    expect(walked.map((w) => w.path)).toEqual(['', 'a', 'a/b', 'a/b/c']);
    expect(walked[1].entries).toEqual([
      { name: '.git', type: 'directory' },
      { name: 'b', type: 'directory' },
      { name: 'ln', type: 'symlink' },
    ]);
    const all: string[] = [];
    for await (const w of layer.walkTree('a')) all.push(w.path);
    expect(all).toEqual(['a', 'a/.git', 'a/.git/objects', 'a/b', 'a/b/c']);
    await refused(
      (async () => {
        for await (const _ of layer.walkTree('a/ln')) void _;
      })(),
      'SYMLINK_ESCAPE',
    );
  });

  it("reads and stats entries through the folder a walk holds, with the layer's own refusals", async () => {
    fs.symlinkSync(path.join(base, 'outside/secret.txt'), path.join(root, 'a/b/c/leaf-link'));
    execFileSync('mkfifo', [path.join(root, 'a/b/c/fifo')]);
    fs.mkdirSync(path.join(root, 'a/b/c/sub'));
    const layer = open();
    const seen: string[] = [];
    let stale: WalkEntries['files'];
    for await (const w of layer.walkTree('a')) {
      seen.push(w.path);
      if (w.path !== 'a/b/c') continue;
      const files = w.files!;
      expect(text(await files.readFile('f.txt'))).toBe('deep');
      expect(files.stat('f.txt')).toMatchObject({ type: 'file', size: 4 });
      expect(files.stat('leaf-link').type).toBe('symlink');
      expect(files.stat('fifo').type).toBe('other');
      const read = async (name: string, maxBytes?: number) => files.readFile(name, { maxBytes });
      await refused(read('leaf-link'), 'SYMLINK_ESCAPE', 'a/b/c/leaf-link');
      await refused(read('fifo'), 'NOT_REGULAR_FILE', 'a/b/c/fifo');
      await refused(read('sub'), 'IS_DIRECTORY', 'a/b/c/sub');
      await refused(read('missing'), 'NOT_FOUND', 'a/b/c/missing');
      await refused(read('f.txt', 3), 'TOO_LARGE', 'a/b/c/f.txt');
      for (const bad of ['', '.', '..', '../top.txt', 'sub/x', 'a\0b']) await refused(read(bad), 'BAD_NAME');
      await refused((async () => files.stat('..'))(), 'BAD_NAME');
      stale = files;
    }
    expect(seen).toEqual(['a', 'a/b', 'a/b/c', 'a/b/c/sub']);
    await refused((async () => stale!.readFile('f.txt'))(), 'INTERNAL');
    await refused((async () => stale!.stat('f.txt'))(), 'INTERNAL');
  });

  it('reads several entries in other threads with the same answers as readFile (procfs only), even after the walk moved on', async () => {
    fs.symlinkSync(path.join(base, 'outside/secret.txt'), path.join(root, 'a/b/c/leaf-link'));
    execFileSync('mkfifo', [path.join(root, 'a/b/c/fifo')]);
    fs.mkdirSync(path.join(root, 'a/b/c/sub'));
    fs.writeFileSync(path.join(root, 'a/b/c/big.txt'), 'x'.repeat(5000));
    fs.writeFileSync(path.join(root, 'a/b/c/empty.txt'), '');
    const layer = open();
    const names = ['f.txt', 'leaf-link', 'fifo', 'sub', 'missing', 'big.txt', 'empty.txt'];
    const readAll = async () => {
      let pending: Promise<void> | undefined;
      const got = new Map<string, string>();
      for await (const w of layer.walkTree('a')) {
        if (w.path !== 'a/b/c') continue;
        if (guarantee !== 'procfs') {
          expect(w.files!.readFiles).toBeUndefined();
          return undefined;
        }
        pending = w.files!.readFiles!(names, { maxBytes: 4096 }, (i, r) => {
          got.set(
            names[i],
            r instanceof Uint8Array ? `bytes:${text(r)}` : r === undefined ? 'self' : 'holds' in r ? 'scanned' : `${r.code}@${r.path}`,
          );
        });
        break; // the walk stops (every handle it holds is let go): the reads still answer from the folder
      }
      await pending;
      return Object.fromEntries(got);
    };
    const first = await readAll(); // starts the read workers (their own descriptors stay)
    if (first === undefined) return;
    const before = openFds();
    const second = await readAll();
    for (const got of [first, second]) {
      expect(got).toEqual({
        'f.txt': 'bytes:deep',
        'leaf-link': 'SYMLINK_ESCAPE@a/b/c/leaf-link',
        fifo: 'NOT_REGULAR_FILE@a/b/c/fifo',
        sub: 'IS_DIRECTORY@a/b/c/sub',
        missing: 'NOT_FOUND@a/b/c/missing',
        'big.txt': 'TOO_LARGE@a/b/c/big.txt',
        'empty.txt': 'bytes:',
      });
    }
    expect(openFds()).toBe(before); // the folder's handle was closed once the reads ended
  });

  it('looks through files for given bytes in other threads: only files holding them come back, large ones are scanned in place', async () => {
    if (guarantee !== 'procfs') return;
    const dir = path.join(root, 'scan');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'has.txt'), 'a needle here');
    fs.writeFileSync(path.join(dir, 'not.txt'), 'nothing here');
    fs.writeFileSync(path.join(dir, 'bin.dat'), Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from('no match')]));
    // 3 MiB: larger than a slab; the needle straddles the first two 1 MiB chunks in one of them.
    const big = Buffer.alloc(3 << 20, 'x');
    big.write('needle', (1 << 20) - 3);
    fs.writeFileSync(path.join(dir, 'big-has.txt'), big);
    fs.writeFileSync(path.join(dir, 'big-not.txt'), Buffer.alloc(3 << 20, 'y'));
    fs.writeFileSync(path.join(dir, 'too-big.txt'), Buffer.alloc(5 << 20, 'z'));
    const layer = open();
    const names = ['has.txt', 'not.txt', 'bin.dat', 'big-has.txt', 'big-not.txt', 'too-big.txt'];
    const scan = async (handOver: boolean) => {
      const got: Record<string, string> = {};
      let pending: Promise<void> | undefined;
      for await (const w of layer.walkTree('scan')) {
        pending = w.files!.readFiles!(
          names,
          { maxBytes: 4 << 20, find: { bytes: bytes('needle'), sniffBytes: 8192, handOver } },
          (i, r) => {
            got[names[i]] =
              r instanceof Uint8Array
                ? `bytes:${text(r)}`
                : r === undefined
                  ? 'read it yourself'
                  : 'holds' in r
                    ? `holds=${r.holds} nul=${r.nul}`
                    : r.code;
          },
        );
      }
      await pending;
      return got;
    };
    const common = {
      'not.txt': 'holds=false nul=false',
      'bin.dat': 'holds=false nul=true',
      'big-not.txt': 'holds=false nul=false',
      'too-big.txt': 'TOO_LARGE',
    };
    expect(await scan(true)).toEqual({ ...common, 'has.txt': 'bytes:a needle here', 'big-has.txt': 'read it yourself' });
    expect(await scan(false)).toEqual({ ...common, 'has.txt': 'holds=true nul=false', 'big-has.txt': 'holds=true nul=false' });
  });

  it('reads hundreds of files of many folders in other threads, each its own bytes', async () => {
    if (guarantee !== 'procfs') return;
    for (let d = 0; d < 40; d++) {
      fs.mkdirSync(path.join(root, 'many', `d${d}`), { recursive: true });
      for (let f = 0; f < 12; f++) fs.writeFileSync(path.join(root, 'many', `d${d}`, `f${f}.txt`), `${d}/${f} `.repeat(200 * f + 1));
    }
    const layer = open();
    const reads: Promise<void>[] = [];
    let wrong = 0;
    let right = 0;
    for await (const w of layer.walkTree('many')) {
      const names = w.entries.filter((e) => e.type === 'file').map((e) => e.name);
      if (names.length === 0) continue;
      const dir = w.path;
      reads.push(
        w.files!.readFiles!(names, { maxBytes: 1 << 20 }, (i, r) => {
          const f = Number(names[i].slice(1, -4));
          const expected = `${dir.slice(6)}/${f} `.repeat(200 * f + 1);
          if (r instanceof Uint8Array && text(r) === expected) right++;
          else wrong++;
        }),
      );
    }
    await Promise.all(reads);
    expect({ right, wrong }).toEqual({ right: 480, wrong: 0 });
  });

  it("never follows a file swapped for a link just before a walk's read opens it", async () => {
    let swapped = false;
    const layer = open({
      seams: {
        beforeStep: ({ op, path: p }) => {
          if (op !== 'read' || p !== 'a/b/c/f.txt' || swapped) return;
          swapped = true;
          fs.rmSync(path.join(root, 'a/b/c/f.txt'));
          fs.symlinkSync(path.join(base, 'outside/secret.txt'), path.join(root, 'a/b/c/f.txt'));
        },
      },
    });
    for await (const w of layer.walkTree('')) {
      if (w.path === 'a/b/c') await refused((async () => w.files!.readFile('f.txt'))(), 'SYMLINK_ESCAPE', 'a/b/c/f.txt');
    }
    expect(swapped).toBe(true);
  });

  it('walks a path 200 folders deep holding two handles, not one per level', async () => {
    const segments = Array.from({ length: 200 }, (_, i) => `d${i % 10}`);
    fs.mkdirSync(path.join(root, ...segments), { recursive: true });
    fs.writeFileSync(path.join(root, ...segments, 'f.txt'), 'bottom');
    const before = openFds();
    let during = 0;
    const file = `${segments.join('/')}/f.txt`;
    const layer = open({
      seams: {
        beforeStep: ({ op, path: p }) => {
          if (op === 'read' && p === file) during = openFds();
        },
      },
    });
    expect(text(await layer.readFile(file))).toBe('bottom');
    await layer.writeFile(`${segments.join('/')}/g.txt`, bytes('written'));
    expect(fs.readFileSync(path.join(root, ...segments, 'g.txt'), 'utf8')).toBe('written');
    // Just before the file is opened: the root and the last folder only.
    expect(during - before).toBe(2);
  });

  it('closes every handle it opens, on success, on failure and when a walk stops early', async () => {
    fs.symlinkSync('/etc', path.join(root, 'ln'));
    const layer = open({ guard: () => undefined });
    await layer.readFile('a/b/c/f.txt');
    const before = openFds();
    for (let i = 0; i < 20; i++) {
      await layer.readFile('a/b/c/f.txt');
      await layer.stat('a/b/c/f.txt');
      await layer.readdir('a/b');
      await layer.readFile('ln/hostname').catch(() => undefined);
      await layer.readFile('a/b/missing').catch(() => undefined);
      await layer.writeFile('a/b/c/w.txt', bytes(`w${i}`));
      await layer.writeFile('a/b/c/w.txt', bytes('x'), { exclusive: true }).catch(() => undefined);
      await layer.mkdir('a/b/c/d');
      await layer.remove('a/b/c/d');
      await layer.remove('a/b').catch(() => undefined);
      for await (const _ of layer.walkTree('')) break;
      for await (const w of layer.walkTree('')) {
        if (w.path === 'a/b/c') {
          await w.files!.readFile('f.txt');
          await (async () => w.files!.readFile('missing'))().catch(() => undefined);
          w.files!.stat('f.txt');
        }
      }
    }
    expect(openFds()).toBe(before);
    layer.close();
    expect(openFds()).toBe(before - 1);
    await refused(layer.readFile('top.txt'), 'INTERNAL');
  });
});

describe('HostLayer rename of a guarded tree', () => {
  it(`shows the guard every folder of a moved folder, and refuses one nested past ${MAX_GUARDED_DEPTH} levels with TOO_DEEP`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-rename-guard-'));
    try {
      makeChain(path.join(dir), { depth: MAX_GUARDED_DEPTH + 2, name: 'd' });
      fs.mkdirSync(path.join(dir, 'shallow/a/b'), { recursive: true });
      const seen: string[] = [];
      const layer = openHostLayer(dir, { guard: (_id, op) => (seen.push(op), undefined) });
      try {
        await layer.rename('shallow', 'moved');
        // The two parent chains (the root twice) and the three folders of the moved tree.
        expect(seen.filter((op) => op === 'rename')).toHaveLength(5);
        expect(fs.existsSync(path.join(dir, 'moved/a/b'))).toBe(true);
        await expect(layer.rename('d', 'deep-moved')).rejects.toMatchObject({ code: 'TOO_DEEP', path: 'd' });
        expect(fs.existsSync(path.join(dir, 'd'))).toBe(true);
        expect(fs.existsSync(path.join(dir, 'deep-moved'))).toBe(false);
      } finally {
        layer.close();
      }
      // Without a guard there is nothing to check inside: the deep folder moves in one rename(2).
      const unguarded = openHostLayer(dir);
      try {
        await unguarded.rename('d', 'deep-moved');
        expect(fs.existsSync(path.join(dir, 'deep-moved'))).toBe(true);
      } finally {
        unguarded.close();
      }
    } finally {
      removeDeep(dir);
    }
  });
});
