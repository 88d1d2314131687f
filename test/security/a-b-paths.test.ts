/**
 * Attack classes A (`..` and normalization) and B (absolute paths, prefix confusion), through
 * the namespace over host layers and against the host layer directly.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { sandboxed } from './sandbox.js';

const bytes = (s: string) => Buffer.from(s);
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('A: .. and normalization', () => {
  it(
    'refuses every climb out of the workspace, for reads, lists and writes',
    sandboxed(async (sb) => {
      const { ns, attempt } = sb;
      for (const p of [
        '../x',
        'src/../../x',
        '..',
        '../a/src/a.ts',
        '../../sentinel/secret.txt',
        'src/../../../../etc/hostname',
        '/worktrees/a/../b/f',
      ]) {
        const calls: (() => Promise<unknown>)[] = [
          () => ns.readFile(p),
          () => ns.readdir(p),
          () => ns.stat(p),
          () => ns.writeFile(p, bytes('x')),
          () => ns.remove(p),
          () => ns.mkdir(p),
        ];
        for (const call of calls) {
          expect(await attempt(call)).toMatchObject({ ok: false, code: 'PATH_ESCAPE' });
        }
      }
    }),
  );

  it(
    'allows detours that stay inside and takes odd spellings literally',
    sandboxed(async (sb) => {
      const { ns, attempt } = sb;
      const read = await attempt(() => ns.readFile('/worktrees/a/./src//./../src/a.ts'));
      expect(read.ok && text(read.value)).toBe('export const a = 1;\n');
      for (const p of ['%2e%2e/sentinel/secret.txt', '~/secret.txt', '$HOME/x', '.../x', '..%2fx', 'src/..../a.ts']) {
        expect(await attempt(() => ns.readFile(p))).toMatchObject({ ok: false, code: 'NOT_FOUND' });
      }
      await attempt(() => ns.writeFile('%2e%2e', bytes('literal')));
      expect(fs.readFileSync(path.join(sb.work, '%2e%2e'), 'utf8')).toBe('literal');
    }),
  );

  it(
    'the host layer itself refuses dot segments even when the grammar is bypassed',
    sandboxed(async (sb) => {
      const { layer, attempt } = sb;
      for (const p of ['..', '../b/f', 'src/../../b/f', '.', 'src/./a.ts', '/etc/hostname', 'src//a.ts', '']) {
        if (p !== '') expect(await attempt(() => layer.readFile(p))).toMatchObject({ ok: false, code: 'BAD_NAME' });
        if (p !== '' && p !== '.') expect(await attempt(() => layer.readdir(p))).toMatchObject({ ok: false, code: 'BAD_NAME' });
        if (p !== '') expect(await attempt(() => layer.writeFile(p, bytes('x')))).toMatchObject({ ok: false, code: 'BAD_NAME' });
      }
      expect(await attempt(() => layer.readdir('..'))).toMatchObject({ ok: false, code: 'BAD_NAME' });
      expect(await attempt(() => layer.writeFile('../stolen', bytes('x')))).toMatchObject({ ok: false, code: 'BAD_NAME' });
      expect(fs.existsSync(path.join(sb.base, 'worktrees/stolen'))).toBe(false);
    }),
  );
});

describe('B: absolute paths and prefix confusion', () => {
  it(
    'refuses host paths, other conversations and look-alike roots',
    sandboxed(async (sb) => {
      const { ns, attempt } = sb;
      for (const p of [
        '/etc/hostname',
        '/worktrees/b/f',
        '/worktrees/ax/f',
        '/worktrees/a-b/f',
        '/worktrees',
        '/',
        '/docs-extraX/x.md',
        '/doc/guide.md',
      ]) {
        const outcome = await attempt(() => ns.readFile(p));
        expect(outcome.ok).toBe(false);
        expect(['OUTSIDE_MOUNTS', 'IS_DIRECTORY']).toContain(!outcome.ok && outcome.code);
        expect(await attempt(() => ns.writeFile(p === '/' ? '/x' : p, bytes('x')))).toMatchObject({ ok: false, code: 'OUTSIDE_MOUNTS' });
      }
      expect(await attempt(() => ns.readdir('/worktrees/b'))).toMatchObject({ ok: false, code: 'OUTSIDE_MOUNTS' });
    }),
  );

  it(
    'matches mounts by whole segments: /docs is writable, /docs-extra stays read-only',
    sandboxed(async (sb) => {
      const { ns, attempt } = sb;
      expect(await attempt(() => ns.writeFile('/docs/new.md', bytes('yes')))).toMatchObject({ ok: true });
      expect(fs.readFileSync(path.join(sb.docs, 'new.md'), 'utf8')).toBe('yes');
      expect(await attempt(() => ns.writeFile('/docs-extra/x.md', bytes('no')))).toMatchObject({ ok: false, code: 'READ_ONLY' });
      expect(await attempt(() => ns.writeFile('/docs-extra/new.md', bytes('no')))).toMatchObject({ ok: false, code: 'READ_ONLY' });
      expect(await attempt(() => ns.writeFile('/docs/../docs-extra/x.md', bytes('no')))).toMatchObject({ ok: false, code: 'PATH_ESCAPE' });
      const extra = await attempt(() => ns.readFile('/docs-extra/x.md'));
      expect(extra.ok && text(extra.value)).toBe('extra\n');
      expect(fs.existsSync(path.join(sb.docs, '-extra'))).toBe(false);
    }),
  );
});
