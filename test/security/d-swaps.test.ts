/**
 * Attack class D, deterministic half: a folder or file is swapped for a symlink into the
 * sentinel tree at an exact moment (the host layer's test seams), for read, list, write,
 * edit, create, delete and mkdir. The sentinel tree holds files with the same names
 * (a.ts, f.txt) so a followed link would be visible. Through the host layer and the namespace.
 *
 * With procfs the operation continues on the folder handle it already holds, so the effect
 * lands in the original folder (now `<name>.real`). The lstat fallback notices the swap and
 * refuses with SYMLINK_ESCAPE instead. Either way nothing outside changes or comes back.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import type { HostSeams } from '../../vfs/host-layer.js';
import type { Layer } from '../../vfs/layer.js';
import { sandboxed, seamOnce, swapForLink, type Sandbox } from './sandbox.js';

const bytes = (s: string) => Buffer.from(s);
const text = (b: unknown) => Buffer.from(b as Uint8Array).toString('utf8');

interface Target {
  readFile(p: string): Promise<Uint8Array>;
  readdir(p: string): Promise<unknown>;
  writeFile(p: string, d: Uint8Array, o?: { exclusive?: boolean }): Promise<unknown>;
  mkdir(p: string): Promise<void>;
  remove(p: string): Promise<void>;
}

interface Scenario {
  name: string;
  step: keyof HostSeams;
  op: string;
  at: string;
  /** What is swapped, relative to the workspace, and the sentinel path it now points to. */
  swap: [string, string];
  run(t: Target): Promise<unknown>;
  /** Expected outcome with procfs and with the fallback: 'ok' or an error code. */
  procfs: string;
  fallback: string;
  /** Extra checks of the workspace after the call (procfs outcome). */
  check?(sb: Sandbox, guarantee: string): void;
}

const w = (sb: Sandbox, rel: string) => path.join(sb.work, rel);

const scenarios: Scenario[] = [
  {
    name: 'read: folder on the walk swapped before it is opened',
    step: 'beforeStep',
    op: 'read',
    at: 'src',
    swap: ['src', ''],
    run: (t) => t.readFile('src/a.ts'),
    procfs: 'SYMLINK_ESCAPE',
    fallback: 'SYMLINK_ESCAPE',
  },
  {
    name: 'read: parent swapped after the walk opened it',
    step: 'beforeStep',
    op: 'read',
    at: 'src/a.ts',
    swap: ['src', ''],
    run: (t) => t.readFile('src/a.ts'),
    procfs: 'ok',
    fallback: 'SYMLINK_ESCAPE',
  },
  {
    name: 'read: file swapped before the final open',
    step: 'beforeStep',
    op: 'read',
    at: 'src/a.ts',
    swap: ['src/a.ts', 'a.ts'],
    run: (t) => t.readFile('src/a.ts'),
    procfs: 'SYMLINK_ESCAPE',
    fallback: 'SYMLINK_ESCAPE',
  },
  {
    name: 'read: file swapped after the check',
    step: 'afterCheck',
    op: 'read',
    at: 'src/a.ts',
    swap: ['src/a.ts', 'a.ts'],
    run: (t) => t.readFile('src/a.ts'),
    procfs: 'ok',
    fallback: 'ok',
  },
  {
    name: 'list: folder swapped before it is opened',
    step: 'beforeStep',
    op: 'readdir',
    at: 'src',
    swap: ['src', ''],
    run: (t) => t.readdir('src'),
    procfs: 'SYMLINK_ESCAPE',
    fallback: 'SYMLINK_ESCAPE',
  },
  {
    name: 'list: folder swapped after it was opened',
    step: 'afterCheck',
    op: 'readdir',
    at: 'src',
    swap: ['src', ''],
    run: (t) => t.readdir('src'),
    procfs: 'ok',
    fallback: 'SYMLINK_ESCAPE',
  },
  {
    name: 'write: parent swapped before it is opened',
    step: 'beforeStep',
    op: 'write',
    at: 'src',
    swap: ['src', ''],
    run: (t) => t.writeFile('src/new.txt', bytes('new')),
    procfs: 'SYMLINK_ESCAPE',
    fallback: 'SYMLINK_ESCAPE',
  },
  {
    name: 'write: parent swapped after the check',
    step: 'afterCheck',
    op: 'write',
    at: 'src/new.txt',
    swap: ['src', ''],
    run: (t) => t.writeFile('src/new.txt', bytes('new')),
    procfs: 'ok',
    fallback: 'SYMLINK_ESCAPE',
    check: (sb) => expect(fs.readFileSync(w(sb, 'src.real/new.txt'), 'utf8')).toBe('new'),
  },
  {
    name: 'edit: file swapped for a link before the rename',
    step: 'beforeCommit',
    op: 'write',
    at: 'src/a.ts',
    swap: ['src/a.ts', 'a.ts'],
    run: (t) => t.writeFile('src/a.ts', bytes('edited')),
    procfs: 'ok',
    fallback: 'ok',
    check: (sb) => expect(fs.lstatSync(w(sb, 'src/a.ts')).isFile() && fs.readFileSync(w(sb, 'src/a.ts'), 'utf8')).toBe('edited'),
  },
  {
    name: 'edit: parent swapped before the rename',
    step: 'beforeCommit',
    op: 'write',
    at: 'src/a.ts',
    swap: ['src', ''],
    run: (t) => t.writeFile('src/a.ts', bytes('edited')),
    procfs: 'ok',
    fallback: 'SYMLINK_ESCAPE',
    check: (sb) => expect(fs.readFileSync(w(sb, 'src.real/a.ts'), 'utf8')).toBe('edited'),
  },
  {
    name: 'create: a link planted at the name before publishing',
    step: 'beforeCommit',
    op: 'write',
    at: 'src/c.txt',
    swap: ['src/c.txt', 'created.txt'],
    run: (t) => t.writeFile('src/c.txt', bytes('c'), { exclusive: true }),
    procfs: 'ALREADY_EXISTS',
    fallback: 'ALREADY_EXISTS',
    check: (sb) => expect(fs.existsSync(path.join(sb.sentinel, 'created.txt'))).toBe(false),
  },
  {
    name: 'create: parent swapped before publishing',
    step: 'beforeCommit',
    op: 'write',
    at: 'src/c.txt',
    swap: ['src', ''],
    run: (t) => t.writeFile('src/c.txt', bytes('c'), { exclusive: true }),
    procfs: 'ok',
    fallback: 'SYMLINK_ESCAPE',
    check: (sb) => expect(fs.readFileSync(w(sb, 'src.real/c.txt'), 'utf8')).toBe('c'),
  },
  {
    name: 'delete: parent swapped before the unlink',
    step: 'beforeCommit',
    op: 'remove',
    at: 'd/f.txt',
    swap: ['d', ''],
    run: (t) => t.remove('d/f.txt'),
    procfs: 'ok',
    fallback: 'SYMLINK_ESCAPE',
    check: (sb) => expect(fs.existsSync(w(sb, 'd.real/f.txt'))).toBe(false),
  },
  {
    name: 'delete: file swapped for a link before the unlink',
    step: 'beforeCommit',
    op: 'remove',
    at: 'd/f.txt',
    swap: ['d/f.txt', 'f.txt'],
    run: (t) => t.remove('d/f.txt'),
    procfs: 'ok',
    fallback: 'ok',
    check: (sb) => expect(fs.existsSync(w(sb, 'd/f.txt.real'))).toBe(true),
  },
  {
    name: 'delete: empty folder swapped for a link before the rmdir',
    step: 'beforeCommit',
    op: 'remove',
    at: 'empty',
    swap: ['empty', 'sub'],
    run: (t) => t.remove('empty'),
    procfs: 'NOT_DIRECTORY',
    fallback: 'NOT_DIRECTORY',
  },
  {
    name: 'mkdir: parent swapped before the mkdir',
    step: 'beforeCommit',
    op: 'mkdir',
    at: 'src/made',
    swap: ['src', ''],
    run: (t) => t.mkdir('src/made'),
    procfs: 'ok',
    fallback: 'SYMLINK_ESCAPE',
    check: (sb) => expect(fs.statSync(w(sb, 'src.real/made')).isDirectory()).toBe(true),
  },
];

const modes: [string, { forceFallback?: boolean }][] = [
  ['procfs', {}],
  ['lstat-fallback', { forceFallback: true }],
];

describe.each(modes)('D: symlinks swapped in at a seam (%s)', (guarantee, options) => {
  for (const via of ['host layer', 'namespace'] as const) {
    for (const s of scenarios) {
      it(
        `${s.name} (${via})`,
        sandboxed(async (sb) => {
          fs.mkdirSync(w(sb, 'empty'));
          const seams = seamOnce(s.step, s.op, s.at, () => swapForLink(w(sb, s.swap[0]), path.join(sb.sentinel, s.swap[1])));
          const layer = sb.openRoot({ ...options, seams });
          const target: Target = via === 'namespace' ? sb.namespaceOver(layer) : (layer as Layer as Target & Layer);
          const outcome = await sb.attempt(() => s.run(target));
          expect(seams.fired()).toBe(true);
          const expected = guarantee === 'procfs' ? s.procfs : s.fallback;
          expect(outcome.ok ? 'ok' : outcome.code).toBe(expected);
          if (outcome.ok && s.op === 'read') expect(text(outcome.value)).toBe('export const a = 1;\n');
          if (outcome.ok && s.op === 'readdir') expect(outcome.value).toEqual([{ name: 'a.ts', type: 'file' }]);
          if (outcome.ok) s.check?.(sb, guarantee);
          expect(fs.readdirSync(sb.sentinel).sort()).toEqual(['a.ts', 'f.txt', 'secret.txt', 'sub']);
        }, options),
      );
    }
  }
});
