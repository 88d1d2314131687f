/**
 * Attack class C: symlinks already in the tree. A link is listed and stat'ed as a link, never
 * followed: reading through it, listing it, or writing through it is refused or replaces the
 * link itself; nothing outside is read or changed. Run through the namespace and the host
 * layer, with both walk guarantees.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import type { HostLayerOptions } from '../../vfs/host-layer.js';
import { sandboxed } from './sandbox.js';

const bytes = (s: string) => Buffer.from(s);

/** Plants the classic links inside the workspace root and the read-only /docs-extra. */
function plantLinks(sb: { sentinel: string; work: string; docsExtra: string }): void {
  const w = (rel: string) => path.join(sb.work, rel);
  fs.symlinkSync('/etc/hostname', w('leaf'));
  fs.symlinkSync('../../sentinel/secret.txt', w('rel'));
  fs.symlinkSync(sb.sentinel, w('dl'));
  fs.symlinkSync(path.join(sb.sentinel, 'secret.txt'), w('src/wl'));
  fs.symlinkSync(path.join(sb.sentinel, 'created.txt'), w('dang'));
  fs.symlinkSync(path.join(sb.sentinel, 'madedir'), w('dangdir'));
  fs.symlinkSync(sb.sentinel, path.join(sb.docsExtra, 'out'));
}

const modes: [string, HostLayerOptions][] = [
  ['procfs', {}],
  ['lstat-fallback', { forceFallback: true }],
];

describe.each(modes)('C: pre-existing symlinks (%s)', (_name, options) => {
  it(
    'refuses reads through a leaf link, a relative escaping link and a folder link mid-path',
    sandboxed(
      async (sb) => {
        const { ns, layer, attempt } = sb;
        for (const p of ['leaf', 'rel', 'dl/secret.txt', 'dl/sub/deep.txt', 'src/wl', 'dang']) {
          expect(await attempt(() => ns.readFile(p))).toMatchObject({ ok: false, code: 'SYMLINK_ESCAPE' });
          expect(await attempt(() => layer.readFile(p))).toMatchObject({ ok: false, code: 'SYMLINK_ESCAPE' });
        }
        expect(await attempt(() => ns.readFile('/docs-extra/out/secret.txt'))).toMatchObject({ ok: false, code: 'SYMLINK_ESCAPE' });
        for (const p of ['dl', 'dl/sub', '/docs-extra/out']) {
          expect(await attempt(() => ns.readdir(p))).toMatchObject({ ok: false, code: 'SYMLINK_ESCAPE' });
        }
        expect(await attempt(() => ns.stat('dl'))).toMatchObject({ ok: true, value: { type: 'symlink' } });
        expect(await attempt(() => ns.stat('dl/secret.txt'))).toMatchObject({ ok: false, code: 'SYMLINK_ESCAPE' });
      },
      { ...options, plant: plantLinks },
    ),
  );

  it(
    'writes through a link replace the link and never touch its target',
    sandboxed(
      async (sb) => {
        const { ns, attempt } = sb;
        expect(await attempt(() => ns.writeFile('src/wl', bytes('replaced')))).toMatchObject({ ok: true, value: { created: false } });
        expect(fs.lstatSync(path.join(sb.work, 'src/wl')).isFile()).toBe(true);
        expect(await attempt(() => ns.writeFile('dang', bytes('no target created')))).toMatchObject({ ok: true });
        expect(fs.existsSync(path.join(sb.sentinel, 'created.txt'))).toBe(false);
        expect(await attempt(() => ns.writeFile('dl/new.txt', bytes('x')))).toMatchObject({ ok: false, code: 'SYMLINK_ESCAPE' });
        expect(await attempt(() => ns.writeFile('dl/new/deeper.txt', bytes('x'), { createParents: true }))).toMatchObject({
          ok: false,
          code: 'SYMLINK_ESCAPE',
        });
        expect(await attempt(() => ns.writeFile('dl/secret.txt', bytes('x'), { exclusive: true }))).toMatchObject({
          ok: false,
          code: 'SYMLINK_ESCAPE',
        });
        expect(await attempt(() => ns.mkdir('dangdir'))).toMatchObject({ ok: false, code: 'ALREADY_EXISTS' });
        expect(await attempt(() => ns.mkdir('dl/x'))).toMatchObject({ ok: false, code: 'SYMLINK_ESCAPE' });
        expect(fs.existsSync(path.join(sb.sentinel, 'madedir'))).toBe(false);
      },
      { ...options, plant: plantLinks },
    ),
  );

  it(
    'remove acts on the link itself, never on what it points to',
    sandboxed(
      async (sb) => {
        const { ns, attempt } = sb;
        expect(await attempt(() => ns.remove('dl/secret.txt'))).toMatchObject({ ok: false, code: 'SYMLINK_ESCAPE' });
        expect(fs.existsSync(path.join(sb.sentinel, 'secret.txt'))).toBe(true);
        expect(await attempt(() => ns.remove('dl'))).toMatchObject({ ok: true });
        expect(fs.existsSync(sb.sentinel)).toBe(true);
        expect(await attempt(() => ns.remove('leaf'))).toMatchObject({ ok: true });
        expect(fs.existsSync('/etc/hostname')).toBe(true);
      },
      { ...options, plant: plantLinks },
    ),
  );

  it(
    'read-only mounts refuse changes to links too',
    sandboxed(
      async (sb) => {
        const { ns, attempt } = sb;
        expect(await attempt(() => ns.writeFile('/docs-extra/out', bytes('x')))).toMatchObject({ ok: false, code: 'READ_ONLY' });
        expect(await attempt(() => ns.remove('/docs-extra/out'))).toMatchObject({ ok: false, code: 'READ_ONLY' });
        expect(fs.readlinkSync(path.join(sb.docsExtra, 'out'))).toBe(sb.sentinel);
      },
      { ...options, plant: plantLinks },
    ),
  );
});
