/**
 * Attack class C: symlinks already in the tree. The layers and the namespace's own operations
 * never follow a link: reading through one, listing it, or writing through it is refused or
 * replaces the link itself. The namespace's resolution (what the gate runs for every tool path,
 * vfs/link-resolution.ts) follows a link only while its target stays inside the link's own
 * mount; every link leading out (absolute, climbing, into another mount, dangling outside) is
 * SYMLINK_ESCAPE, and delete and move act on a final link itself. Nothing outside is read or
 * changed. Run through the namespace and the host layer, with both walk guarantees.
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
  // Links that stay inside their mount, and relative ones that leave it.
  fs.symlinkSync('src', w('inlink'));
  fs.symlinkSync('README.md', w('in-file'));
  fs.symlinkSync('new/made.txt', w('in-dangling'));
  fs.symlinkSync('..', w('up'));
  fs.symlinkSync('.campaign/plan.md', w('via-campaign'));
  fs.symlinkSync('d/../../b/f', w('sideways'));
  fs.symlinkSync('../docs-extra/x.md', path.join(sb.sentinel, '..', 'docs', 'to-extra'));
}

/** The links planted above that lead out of their mount (every one is SYMLINK_ESCAPE to the resolution). */
const LEAVING = [
  'leaf',
  'rel',
  'dl',
  'dl/secret.txt',
  'src/wl',
  'dang',
  'dangdir/x',
  'up',
  'up/b/f',
  'via-campaign',
  'sideways',
  '/docs/to-extra',
];

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
    'the resolution follows links that stay inside their mount, and refuses every link leading out',
    sandboxed(
      async (sb) => {
        const { ns, attempt } = sb;
        for (const p of LEAVING) {
          for (const followFinal of [true, false]) {
            if (!followFinal && !p.includes('/')) continue; // a kept final link is not followed at all
            const outcome = await attempt(async () => ns.readFile(await ns.resolveLinks(p, 'read', { followFinal })));
            expect({ p, followFinal, code: outcome.ok ? 'ok' : outcome.code }).toEqual({ p, followFinal, code: 'SYMLINK_ESCAPE' });
          }
        }
        expect(await attempt(async () => (await ns.resolveLinks('inlink/a.ts')).path)).toEqual({
          ok: true,
          value: '/worktrees/a/src/a.ts',
        });
        const read = await attempt(async () => Buffer.from(await ns.readFile(await ns.resolveLinks('in-file'))).toString());
        expect(read).toEqual({ ok: true, value: 'readme\n' });
        expect(await attempt(async () => (await ns.readdir(await ns.resolveLinks('inlink'))).map((e) => e.name))).toEqual({
          ok: true,
          value: ['a.ts', 'wl'],
        });
        expect(await attempt(async () => (await ns.resolveLinks('inlink/../d/f.txt')).path)).toEqual({
          ok: true,
          value: '/worktrees/a/d/f.txt',
        });
      },
      { ...options, plant: plantLinks },
    ),
  );

  it(
    'a write through an in-mount link writes its target; no write follows a link out',
    sandboxed(
      async (sb) => {
        const { ns, attempt } = sb;
        const write = (p: string, d: string) =>
          attempt(async () => ns.writeFile(await ns.resolveLinks(p, 'write'), bytes(d), { createParents: true }));
        expect(await write('in-file', 'through the link\n')).toMatchObject({ ok: true, value: { created: false } });
        expect(fs.readFileSync(path.join(sb.work, 'README.md'), 'utf8')).toBe('through the link\n');
        expect(fs.lstatSync(path.join(sb.work, 'in-file')).isSymbolicLink()).toBe(true);
        expect(await write('in-dangling', 'made\n')).toMatchObject({ ok: true, value: { created: true } });
        expect(fs.readFileSync(path.join(sb.work, 'new/made.txt'), 'utf8')).toBe('made\n');
        expect(await write('inlink/new.ts', 'n\n')).toMatchObject({ ok: true });
        expect(fs.readFileSync(path.join(sb.work, 'src/new.ts'), 'utf8')).toBe('n\n');
        for (const p of ['dang', 'dangdir/x', 'src/wl', 'dl/new.txt', 'via-campaign', 'up/b/f', 'sideways']) {
          expect({ p, code: ((await write(p, 'x')) as { code?: string }).code }).toEqual({ p, code: 'SYMLINK_ESCAPE' });
        }
        expect(fs.existsSync(path.join(sb.sentinel, 'created.txt'))).toBe(false);
        expect(fs.existsSync(path.join(sb.sentinel, 'madedir'))).toBe(false);
      },
      { ...options, plant: plantLinks },
    ),
  );

  it(
    'delete and move act on a final link itself; a link on the way that leads out refuses them',
    sandboxed(
      async (sb) => {
        const { ns, attempt } = sb;
        const keep = (p: string) => ns.resolveLinks(p, 'move', { followFinal: false });
        expect(await attempt(async () => ns.remove(await keep('leaf'), { fileOnly: true }))).toMatchObject({ ok: true });
        expect(fs.existsSync('/etc/hostname')).toBe(true);
        expect(await attempt(async () => ns.rename(await keep('dl'), await keep('src/moved-dl')))).toMatchObject({ ok: true });
        expect(fs.readlinkSync(path.join(sb.work, 'src/moved-dl'))).toBe(sb.sentinel);
        expect(await attempt(async () => ns.rename(await keep('in-file'), await keep('d/in-file')))).toMatchObject({ ok: true });
        expect(fs.readFileSync(path.join(sb.work, 'README.md'), 'utf8')).toBe('readme\n');
        for (const [from, to] of [
          ['src/moved-dl/secret.txt', 'stolen.txt'],
          ['README.md', 'src/moved-dl/planted.txt'],
          ['README.md', 'up/b/planted'],
          ['rel', 'via-campaign/x'],
        ]) {
          const outcome = await attempt(async () => ns.rename(await keep(from), await keep(to)));
          expect({ from, to, code: outcome.ok ? 'ok' : outcome.code }).toEqual({ from, to, code: 'SYMLINK_ESCAPE' });
        }
        expect(await attempt(async () => ns.remove(await keep('src/moved-dl/secret.txt')))).toMatchObject({
          ok: false,
          code: 'SYMLINK_ESCAPE',
        });
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
