/**
 * Attack class J: leaks through listing, searching and messages. Links are listed as links and
 * never descended; a grep-like pass (walk, read every file) never returns outside bytes and
 * skips FIFOs without hanging; no error of any code carries a host path, in its message, its
 * JSON, its cause or its inspected form; glob characters are literal names, never expanded.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import type { HostLayerOptions } from '../../vfs/host-layer.js';
import { walkLayer, type WalkEntries } from '../../vfs/layer.js';
import { sandboxed } from './sandbox.js';

const bytes = (s: string) => Buffer.from(s);
const modes: [string, HostLayerOptions][] = [
  ['procfs', {}],
  ['lstat-fallback', { forceFallback: true }],
];

function plant({ sentinel, work }: { sentinel: string; work: string }): void {
  fs.symlinkSync(sentinel, path.join(work, 'src/outside'));
  fs.symlinkSync(path.join(sentinel, 'secret.txt'), path.join(work, 'd/secret-link'));
  execFileSync('mkfifo', [path.join(work, 'd/pipe')]);
  fs.writeFileSync(path.join(work, '*'), 'a file named star\n');
}

describe.each(modes)('J: leaks through list, grep and messages (%s)', (_name, options) => {
  it(
    'lists links as links and never walks into them',
    sandboxed(
      async (sb) => {
        const listed = await sb.attempt(() => sb.ns.readdir('src'));
        expect(listed).toMatchObject({
          ok: true,
          value: [
            { name: 'a.ts', type: 'file' },
            { name: 'outside', type: 'symlink' },
          ],
        });
        const walked: WalkEntries[] = [];
        const result = await sb.attempt(async () => {
          for await (const w of walkLayer(sb.layer, '')) walked.push(w);
          return walked;
        });
        expect(result.ok).toBe(true);
        const paths = walked.map((w) => w.path);
        expect(paths).toEqual(['', '.campaign', '.gatefs', 'd', 'src']);
        const names = walked.flatMap((w) => w.entries.map((e) => e.name));
        expect(names).not.toContain('secret.txt');
        expect(names).not.toContain('sub');
      },
      { ...options, plant },
    ),
  );

  it(
    'a grep-like pass over every entry returns no outside bytes and skips the FIFO without hanging',
    sandboxed(
      async (sb) => {
        const outcomes: Record<string, string> = {};
        for await (const dir of walkLayer(sb.layer, '')) {
          for (const entry of dir.entries) {
            if (entry.type === 'directory') continue;
            const rel = dir.path === '' ? entry.name : `${dir.path}/${entry.name}`;
            const read = await sb.attempt(() => sb.ns.readFile(rel));
            outcomes[rel] = read.ok ? 'ok' : read.code;
          }
        }
        expect(outcomes).toMatchObject({
          'd/pipe': 'NOT_REGULAR_FILE',
          'd/secret-link': 'SYMLINK_ESCAPE',
          'src/outside': 'SYMLINK_ESCAPE',
          'src/a.ts': 'ok',
          '*': 'ok',
        });
      },
      { ...options, plant },
    ),
  );

  it(
    'no error of any code names a host path, even in its cause or inspected form',
    sandboxed(
      async (sb) => {
        const { ns, layer } = sb;
        const calls: [string, () => Promise<unknown>][] = [
          ['NOT_FOUND', () => ns.readFile('missing.txt')],
          ['NOT_DIRECTORY', () => ns.readFile('README.md/x')],
          ['IS_DIRECTORY', () => ns.readFile('src')],
          ['SYMLINK_ESCAPE', () => ns.readFile('src/outside/secret.txt')],
          ['NOT_REGULAR_FILE', () => ns.readFile('d/pipe')],
          ['ALREADY_EXISTS', () => ns.writeFile('README.md', bytes('x'), { exclusive: true })],
          ['NOT_EMPTY', () => ns.remove('src')],
          ['TOO_LARGE', () => ns.readFile('README.md', { maxBytes: 2 })],
          ['BAD_NAME', () => layer.readFile('../x')],
          ['NAME_TOO_LONG', () => layer.writeFile('x'.repeat(300), bytes('x'))],
          ['READ_ONLY', () => ns.writeFile('/docs-extra/x.md', bytes('x'))],
          ['PROTECTED_PATH', () => layer.writeFile('.gatefs/gatefs.db', bytes('x'))],
        ];
        for (const [code, call] of calls) {
          let caught: unknown;
          await call().then(
            () => undefined,
            (e: unknown) => {
              caught = e;
            },
          );
          expect({ code, got: (caught as { code?: string } | undefined)?.code }).toEqual({ code, got: code });
          for (const shown of [inspect(caught, { depth: 5 }), JSON.stringify(caught), String(caught)]) {
            expect(shown).not.toContain(sb.base);
            expect(shown).not.toContain('/proc/self/fd');
            expect(shown).not.toContain(sb.marker);
          }
        }
        expect(await sb.attempt(() => ns.remove('d/pipe'))).toMatchObject({ ok: true });
      },
      { ...options, plant },
    ),
  );

  it(
    'glob characters are literal names, never patterns',
    sandboxed(
      async (sb) => {
        const { ns, attempt } = sb;
        for (const p of ['src/*.ts', '**/*', 'src/?.ts', 'src/[a].ts', '{src,d}/a.ts', 'src/a.*']) {
          expect(await attempt(() => ns.readFile(p))).toMatchObject({ ok: false, code: 'NOT_FOUND' });
        }
        const star = await attempt(() => ns.readFile('*'));
        expect(star.ok && Buffer.from(star.value).toString()).toBe('a file named star\n');
        expect(await attempt(() => ns.readdir('**'))).toMatchObject({ ok: false, code: 'NOT_FOUND' });
      },
      { ...options, plant },
    ),
  );
});
