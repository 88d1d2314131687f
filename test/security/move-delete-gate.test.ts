/**
 * The attack classes for `move` and `delete` as an agent calls them: through a real ToolGate
 * over the sandbox's namespace of host layers, hostile paths in `path`, `from` and `to`.
 * A (`..`, also after a followed link), B (absolute paths, other conversations, prefix
 * look-alikes, other mounts), C (links leading out), G (bad characters, lengths, non-strings),
 * H (names are literal), I (read-only mounts and the state folder, into, out of and within),
 * J (no host path or outside byte in any answer). The sandbox hashes the sentinel and every
 * read-only tree before and after each test and checks the transcript for leaks.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { Registry } from '../../src/gate/registry.js';
import { ManualClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import type { ToolResult } from '../../tools/result.js';
import type { HostLayerOptions } from '../../vfs/host-layer.js';
import { sandboxed, type Sandbox } from './sandbox.js';

const modes: [string, HostLayerOptions][] = [
  ['procfs', {}],
  ['lstat-fallback', { forceFallback: true }],
];

/** A gate serving the sandbox's namespace as conversation `a`; every answer goes to the transcript. */
function gateOver(sb: Sandbox) {
  const registry = new Registry();
  registry.set({ conversation: 'a', state: 'ready', role: 'agent', tools: new Set(['read', 'delete', 'move']), namespace: sb.ns });
  const gate = new ToolGate({ registry, runLog: { append: () => undefined }, clock: new ManualClock(0, 1) });
  const call = async (tool: string, args: unknown): Promise<ToolResult> => {
    const result = await gate.call('a', tool, args);
    sb.transcript.push(JSON.stringify(result));
    return result;
  };
  const code = (r: ToolResult) => (r.ok ? 'ok' : r.error.code);
  return {
    del: async (args: unknown) => code(await call('delete', args)),
    move: async (args: unknown) => code(await call('move', args)),
  };
}

function plant({ sentinel, work }: { sentinel: string; work: string }): void {
  fs.symlinkSync('src', path.join(work, 'lnk'));
  fs.symlinkSync(sentinel, path.join(work, 'dl'));
  fs.symlinkSync('../../sentinel/secret.txt', path.join(work, 'rel'));
  fs.writeFileSync(path.join(work, 'x.md'), 'lower\n');
  fs.writeFileSync(path.join(work, 'X.md'), 'upper\n');
  fs.writeFileSync(path.join(work, 'caf\u00e9.md'), 'composed\n');
}

describe.each(modes)('move and delete through the gate: classes A–J (%s)', (_name, options) => {
  it(
    'A: every climb out is PATH_ESCAPE at either end, also physically after a link; detours inside are fine',
    sandboxed(
      async (sb) => {
        const { del, move } = gateOver(sb);
        const climbs = ['../x', 'src/../../x', '..', '../a/src/a.ts', '../../sentinel/secret.txt', '/worktrees/a/../b/f', 'lnk/../../x'];
        for (const p of climbs) {
          expect({ p, del: await del({ path: p }) }).toEqual({ p, del: 'PATH_ESCAPE' });
          expect({ p, from: await move({ from: p, to: 'taken.txt' }) }).toEqual({ p, from: 'PATH_ESCAPE' });
          expect({ p, to: await move({ from: 'README.md', to: p }) }).toEqual({ p, to: 'PATH_ESCAPE' });
        }
        expect(await move({ from: '/worktrees/a/./src//./../src/a.ts', to: 'src/./b.ts' })).toBe('ok');
        // lnk -> src: '..' after it is src's parent, the workspace root.
        expect(await move({ from: 'lnk/../src/b.ts', to: 'lnk/../d/b.ts' })).toBe('ok');
        expect(fs.readFileSync(path.join(sb.work, 'd/b.ts'), 'utf8')).toBe('export const a = 1;\n');
        expect(await del({ path: 'lnk/../d/b.ts' })).toBe('ok');
      },
      { ...options, plant },
    ),
  );

  it(
    'B: host paths, other conversations and look-alikes are OUTSIDE_MOUNTS; another mount is CROSS_MOUNT or READ_ONLY',
    sandboxed(
      async (sb) => {
        const { del, move } = gateOver(sb);
        for (const p of [
          '/etc/hostname',
          '/worktrees/b/f',
          '/worktrees/ax/f',
          '/worktrees/a-b/f',
          '/docs-extraX/x.md',
          '/doc/guide.md',
          '/',
        ]) {
          expect({ p, del: await del({ path: p }) }).toEqual({ p, del: 'OUTSIDE_MOUNTS' });
          expect({ p, from: await move({ from: p, to: 'x' }) }).toEqual({ p, from: 'OUTSIDE_MOUNTS' });
          expect({ p, to: await move({ from: 'README.md', to: p === '/' ? '/x' : p }) }).toEqual({ p, to: 'OUTSIDE_MOUNTS' });
        }
        expect(await move({ from: 'README.md', to: '/docs/README.md' })).toBe('CROSS_MOUNT');
        expect(await move({ from: '/docs/guide.md', to: 'guide.md' })).toBe('CROSS_MOUNT');
        expect(await move({ from: '/docs/guide.md', to: '/docs-extra/guide.md' })).toBe('READ_ONLY');
        expect(await move({ from: '/docs/guide.md', to: '/docs/../docs-extra/guide.md' })).toBe('PATH_ESCAPE');
        expect(await move({ from: '/docs/guide.md', to: '/docs/manual/guide.md' })).toBe('ok');
      },
      { ...options, plant },
    ),
  );

  it(
    'C: links leading out refuse both tools at either end; a final link is moved or deleted itself',
    sandboxed(
      async (sb) => {
        const { del, move } = gateOver(sb);
        expect(await del({ path: 'dl/secret.txt' })).toBe('SYMLINK_ESCAPE');
        expect(await move({ from: 'dl/secret.txt', to: 'stolen.txt' })).toBe('SYMLINK_ESCAPE');
        expect(await move({ from: 'README.md', to: 'dl/planted.txt' })).toBe('SYMLINK_ESCAPE');
        expect(await move({ from: 'README.md', to: 'rel', overwrite: true })).toBe('ok');
        expect(fs.lstatSync(path.join(sb.work, 'rel')).isFile()).toBe(true);
        expect(await move({ from: 'dl', to: 'd/dl' })).toBe('ok');
        expect(await del({ path: 'd/dl' })).toBe('ok');
        expect(fs.readdirSync(sb.sentinel).sort()).toEqual(['a.ts', 'f.txt', 'secret.txt', 'sub']);
      },
      { ...options, plant },
    ),
  );

  it(
    'G: bad characters, over-long names and non-strings are typed refusals at either end',
    sandboxed(
      async (sb) => {
        const { del, move } = gateOver(sb);
        const bad: [string, string][] = [
          ['a\u0000b', 'BAD_NAME'],
          ['src\\a.ts', 'BAD_NAME'],
          ['x\uD800y', 'BAD_NAME'],
          ['a'.repeat(256), 'NAME_TOO_LONG'],
          [`src/${'\u00e9'.repeat(128)}`, 'NAME_TOO_LONG'],
          ['', 'INVALID_INPUT'],
          ['p'.repeat(4097), 'INVALID_INPUT'],
        ];
        for (const [p, code] of bad) {
          expect({ p, del: await del({ path: p }) }).toEqual({ p, del: code });
          expect({ p, from: await move({ from: p, to: 'x' }) }).toEqual({ p, from: code });
          expect({ p, to: await move({ from: 'README.md', to: p }) }).toEqual({ p, to: code });
        }
        for (const v of [42, ['README.md'], { path: 'README.md' }, null, true]) {
          expect(await del({ path: v })).toBe('INVALID_INPUT');
          expect(await move({ from: v, to: 'x' })).toBe('INVALID_INPUT');
          expect(await move({ from: 'README.md', to: v })).toBe('INVALID_INPUT');
        }
        expect(fs.readdirSync(sb.work).sort()).toEqual([
          '.campaign',
          '.gatefs',
          'README.md',
          'X.md',
          'caf\u00e9.md',
          'd',
          'dl',
          'lnk',
          'rel',
          'src',
          'x.md',
        ]);
      },
      { ...options, plant },
    ),
  );

  it(
    'H: names are literal: another case or normalization is another name, never the same file',
    sandboxed(
      async (sb) => {
        const { move } = gateOver(sb);
        expect(await move({ from: 'x.md', to: 'X.md' })).toBe('ALREADY_EXISTS');
        expect(await move({ from: 'caf\u00e9.md', to: 'cafe\u0301.md' })).toBe('ok');
        expect(fs.readFileSync(path.join(sb.work, 'cafe\u0301.md'), 'utf8')).toBe('composed\n');
        expect(fs.existsSync(path.join(sb.work, 'caf\u00e9.md'))).toBe(false);
        expect(fs.readFileSync(path.join(sb.work, 'X.md'), 'utf8')).toBe('upper\n');
      },
      { ...options, plant },
    ),
  );

  it(
    'I: read-only mounts and the state folder refuse delete and every move into, out of and within them',
    sandboxed(
      async (sb) => {
        const { del, move } = gateOver(sb);
        const refused: [string, unknown, string][] = [
          ['delete', { path: '.campaign/plan.md' }, 'READ_ONLY'],
          ['delete', { path: '/docs-extra/x.md' }, 'READ_ONLY'],
          ['delete', { path: '.gatefs/gatefs.db' }, 'PROTECTED_PATH'],
          ['move', { from: '.campaign/plan.md', to: '.campaign/plan2.md' }, 'READ_ONLY'],
          ['move', { from: '.campaign/plan.md', to: 'plan.md' }, 'READ_ONLY'],
          ['move', { from: 'README.md', to: '.campaign/README.md' }, 'READ_ONLY'],
          ['move', { from: '.campaign', to: 'campaign' }, 'READ_ONLY'],
          ['move', { from: '/docs-extra/x.md', to: '/docs-extra/y.md' }, 'READ_ONLY'],
          ['move', { from: 'README.md', to: '/docs-extra/x.md', overwrite: true }, 'READ_ONLY'],
          ['move', { from: '.gatefs/gatefs.db', to: 'db' }, 'PROTECTED_PATH'],
          ['move', { from: 'README.md', to: '.gatefs/planted' }, 'PROTECTED_PATH'],
          ['move', { from: '.gatefs', to: 'state' }, 'PROTECTED_PATH'],
        ];
        for (const [tool, args, code] of refused) {
          const got = tool === 'delete' ? await del(args) : await move(args);
          expect({ tool, args, got }).toEqual({ tool, args, got: code });
        }
      },
      { ...options, plant },
    ),
  );

  it(
    'J: no answer carries a host path or outside bytes, whatever it refuses',
    sandboxed(
      async (sb) => {
        const { del, move } = gateOver(sb);
        await del({ path: 'dl/secret.txt' });
        await del({ path: 'rel' });
        await move({ from: 'dl/sub/deep.txt', to: 'x' });
        await move({ from: 'rel', to: 'src/../../b/f' });
        await del({ path: 'lnk/../dl/secret.txt' });
        await move({ from: 'README.md', to: '.gatefs/x' });
        // The transcript is checked by the sandbox: no marker, no base path, no /proc/self.
        expect(sb.transcript.length).toBe(6);
        expect(fs.existsSync(path.join(sb.work, 'rel'))).toBe(false);
      },
      { ...options, plant },
    ),
  );
});
