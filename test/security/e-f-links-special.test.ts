/**
 * Attack classes E (hard links) and F (special files): a hard link inside to an outside file is
 * replaced by a write, never written through, and a delete or a move acts on its name only; FIFOs, sockets and devices are refused without
 * blocking; a folder is not a file and a file is not a folder. Through the namespace and the
 * host layer, with both walk guarantees.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { HostLayerOptions } from '../../vfs/host-layer.js';
import { sandboxed } from './sandbox.js';

const bytes = (s: string) => Buffer.from(s);
const modes: [string, HostLayerOptions][] = [
  ['procfs', {}],
  ['lstat-fallback', { forceFallback: true }],
];
const isRoot = process.getuid?.() === 0;

describe.each(modes)('E: hard links (%s)', (_name, options) => {
  it(
    'a write, an exclusive create and a delete never change the outside inode',
    sandboxed(
      async (sb) => {
        const secret = path.join(sb.sentinel, 'secret.txt');
        const { ns, layer, attempt } = sb;
        expect(await attempt(() => ns.writeFile('hl', bytes('replaced')))).toMatchObject({ ok: true, value: { created: false } });
        expect(fs.readFileSync(path.join(sb.work, 'hl'), 'utf8')).toBe('replaced');
        expect(fs.statSync(path.join(sb.work, 'hl')).ino).not.toBe(fs.statSync(secret).ino);
        expect(await attempt(() => layer.writeFile('hl2', bytes('x'), { exclusive: true }))).toMatchObject({
          ok: false,
          code: 'ALREADY_EXISTS',
        });
        expect(await attempt(() => ns.remove('hl3'))).toMatchObject({ ok: true });
        // hl2 (refused above) still links it; hl was replaced by a new inode and hl3 unlinked.
        expect(fs.statSync(secret).nlink).toBe(2);
      },
      {
        ...options,
        plant: ({ sentinel, work }) => {
          for (const name of ['hl', 'hl2', 'hl3']) fs.linkSync(path.join(sentinel, 'secret.txt'), path.join(work, name));
        },
      },
    ),
  );
});

describe.each(modes)('E: hard links under delete and move (%s)', (_name, options) => {
  it(
    'a compare-and-swap delete, a move and a move over the name act on the name; the outside inode keeps its bytes',
    sandboxed(
      async (sb) => {
        const secret = path.join(sb.sentinel, 'secret.txt');
        const bytesOutside = fs.readFileSync(secret);
        const { ns, attempt } = sb;
        expect(fs.statSync(secret).nlink).toBe(4);
        expect(await attempt(() => ns.remove('hl4', { ifMatch: bytesOutside, fileOnly: true }))).toMatchObject({ ok: true });
        expect(await attempt(() => ns.rename('hl5', 'src/hl5'))).toMatchObject({ ok: true });
        expect(fs.statSync(path.join(sb.work, 'src/hl5')).ino).toBe(fs.statSync(secret).ino);
        expect(await attempt(() => ns.rename('README.md', 'hl6', { overwrite: true }))).toMatchObject({ ok: true });
        expect(fs.readFileSync(path.join(sb.work, 'hl6'), 'utf8')).toBe('readme\n');
        // hl4 unlinked, hl5 moved (still a name of it), hl6 replaced by another inode.
        expect(fs.statSync(secret).nlink).toBe(2);
        expect(fs.readFileSync(secret)).toEqual(bytesOutside);
      },
      {
        ...options,
        plant: ({ sentinel, work }) => {
          for (const name of ['hl4', 'hl5', 'hl6']) fs.linkSync(path.join(sentinel, 'secret.txt'), path.join(work, name));
        },
      },
    ),
  );
});

describe.each(modes)('F: special files (%s)', (_name, options) => {
  it(
    'a FIFO is never moved, replaced by a move, or removed by a compare-and-swap delete',
    sandboxed(
      async (sb) => {
        const { ns, attempt } = sb;
        expect(await attempt(() => ns.rename('pipe', 'moved-pipe'))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
        expect(await attempt(() => ns.rename('README.md', 'pipe', { overwrite: true }))).toMatchObject({
          ok: false,
          code: 'NOT_REGULAR_FILE',
        });
        expect(await attempt(() => ns.remove('pipe', { ifMatch: bytes(''), fileOnly: true }))).toMatchObject({
          ok: false,
          code: 'STALE_CONTENT',
        });
        expect(await attempt(() => ns.rename('/docs-extra/pipe', '/docs-extra/p2'))).toMatchObject({ ok: false, code: 'READ_ONLY' });
        expect(fs.lstatSync(path.join(sb.work, 'pipe')).isFIFO()).toBe(true);
        expect(fs.readFileSync(path.join(sb.work, 'README.md'), 'utf8')).toBe('readme\n');
      },
      {
        ...options,
        plant: ({ work, docsExtra }) => {
          for (const p of [path.join(work, 'pipe'), path.join(docsExtra, 'pipe')]) execFileSync('mkfifo', [p]);
        },
      },
    ),
  );

  it(
    'refuses to read a FIFO without hanging, and never writes into one',
    sandboxed(
      async (sb) => {
        const { ns, layer, attempt } = sb;
        expect(await attempt(() => ns.readFile('pipe'))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
        expect(await attempt(() => layer.readFile('src/pipe'))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
        expect(await attempt(() => ns.writeFile('pipe', bytes('x')))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
        expect(await attempt(() => ns.writeFile('pipe', bytes('x'), { exclusive: true }))).toMatchObject({
          ok: false,
          code: 'ALREADY_EXISTS',
        });
        expect(await attempt(() => ns.stat('pipe'))).toMatchObject({ ok: true, value: { type: 'other' } });
        expect(fs.lstatSync(path.join(sb.work, 'pipe')).isFIFO()).toBe(true);
        expect(await attempt(() => ns.readFile('/docs-extra/pipe'))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
      },
      {
        ...options,
        plant: ({ work, docsExtra }) => {
          for (const p of [path.join(work, 'pipe'), path.join(work, 'src/pipe'), path.join(docsExtra, 'pipe')]) execFileSync('mkfifo', [p]);
        },
      },
    ),
  );

  it(
    'refuses to read or replace a socket',
    sandboxed(async (sb) => {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(path.join(sb.work, 'sock'), resolve));
      try {
        expect(await sb.attempt(() => sb.ns.readFile('sock'))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
        expect(await sb.attempt(() => sb.ns.writeFile('sock', bytes('x')))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
        expect(await sb.attempt(() => sb.ns.stat('sock'))).toMatchObject({ ok: true, value: { type: 'other' } });
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }, options),
  );

  it.skipIf(!isRoot)(
    'refuses to read a device node placed inside the tree (needs root to create one)',
    sandboxed(
      async (sb) => {
        expect(await sb.attempt(() => sb.ns.readFile('null'))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
        expect(await sb.attempt(() => sb.ns.readFile('zero'))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
        expect(await sb.attempt(() => sb.ns.writeFile('null', bytes('x')))).toMatchObject({ ok: false, code: 'NOT_REGULAR_FILE' });
      },
      {
        ...options,
        plant: ({ work }) => {
          execFileSync('mknod', [path.join(work, 'null'), 'c', '1', '3']);
          execFileSync('mknod', [path.join(work, 'zero'), 'c', '1', '5']);
        },
      },
    ),
  );

  it(
    'a folder is not a file and a file is not a folder',
    sandboxed(async (sb) => {
      const { ns, attempt } = sb;
      expect(await attempt(() => ns.readFile('src'))).toMatchObject({ ok: false, code: 'IS_DIRECTORY' });
      expect(await attempt(() => ns.readFile('.'))).toMatchObject({ ok: false, code: 'IS_DIRECTORY' });
      expect(await attempt(() => ns.writeFile('src', bytes('x')))).toMatchObject({ ok: false, code: 'IS_DIRECTORY' });
      expect(await attempt(() => ns.readdir('README.md'))).toMatchObject({ ok: false, code: 'NOT_DIRECTORY' });
      expect(await attempt(() => ns.readFile('README.md/x'))).toMatchObject({ ok: false, code: 'NOT_DIRECTORY' });
      expect(await attempt(() => ns.writeFile('README.md/x', bytes('x'), { createParents: true }))).toMatchObject({ ok: false });
      expect(fs.readFileSync(path.join(sb.work, 'README.md'), 'utf8')).toBe('readme\n');
    }, options),
  );
});
