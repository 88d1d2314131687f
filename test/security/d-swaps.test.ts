/**
 * Attack class D, deterministic half: a folder or file is swapped for a symlink into the
 * sentinel tree at an exact moment (the host layer's test seams), for read, list, write,
 * edit, create, delete (plain and compare-and-swap), mkdir and rename (both ends, files and
 * folders); and a link the namespace follows (vfs/link-resolution.ts) swapped while it is
 * being followed or right after. The sentinel tree holds files with the same names
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
  remove(p: string, o?: { ifMatch?: Uint8Array; fileOnly?: boolean }): Promise<void>;
  rename(from: string, to: string, o?: { overwrite?: boolean }): Promise<void>;
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
    name: 'delete with ifMatch: file swapped for a link after the check',
    step: 'afterCheck',
    op: 'remove',
    at: 'd/f.txt',
    swap: ['d/f.txt', 'f.txt'],
    run: (t) => t.remove('d/f.txt', { ifMatch: bytes('inside f\n'), fileOnly: true }),
    procfs: 'STALE_CONTENT',
    fallback: 'STALE_CONTENT',
  },
  {
    name: 'rename: source folder swapped before it is opened',
    step: 'beforeStep',
    op: 'rename',
    at: 'd',
    swap: ['d', ''],
    run: (t) => t.rename('d/f.txt', 'src/moved.txt'),
    procfs: 'SYMLINK_ESCAPE',
    fallback: 'SYMLINK_ESCAPE',
  },
  {
    name: 'rename: destination folder swapped before it is opened',
    step: 'beforeStep',
    op: 'rename',
    at: 'src',
    swap: ['src', ''],
    run: (t) => t.rename('d/f.txt', 'src/moved.txt'),
    procfs: 'SYMLINK_ESCAPE',
    fallback: 'SYMLINK_ESCAPE',
  },
  {
    name: 'rename: source folder swapped after the check',
    step: 'afterCheck',
    op: 'rename',
    at: 'd/f.txt',
    swap: ['d', ''],
    run: (t) => t.rename('d/f.txt', 'src/moved.txt'),
    procfs: 'ok',
    fallback: 'SYMLINK_ESCAPE',
    check: (sb) => {
      expect(fs.readFileSync(w(sb, 'src/moved.txt'), 'utf8')).toBe('inside f\n');
      expect(fs.existsSync(w(sb, 'd.real/f.txt'))).toBe(false);
    },
  },
  {
    name: 'rename: destination folder swapped before the move is published',
    step: 'beforeCommit',
    op: 'rename',
    at: 'd/f.txt',
    swap: ['src', ''],
    run: (t) => t.rename('d/f.txt', 'src/moved.txt'),
    procfs: 'ok',
    fallback: 'SYMLINK_ESCAPE',
    check: (sb) => expect(fs.readFileSync(w(sb, 'src.real/moved.txt'), 'utf8')).toBe('inside f\n'),
  },
  {
    name: 'rename: the file swapped for a link before the move is published',
    step: 'beforeCommit',
    op: 'rename',
    at: 'd/f.txt',
    swap: ['d/f.txt', 'f.txt'],
    run: (t) => t.rename('d/f.txt', 'src/moved.txt'),
    procfs: 'STALE_CONTENT',
    fallback: 'STALE_CONTENT',
  },
  {
    name: 'rename over a file: the destination swapped for a link before the move',
    step: 'beforeCommit',
    op: 'rename',
    at: 'd/f.txt',
    swap: ['src/a.ts', 'a.ts'],
    run: (t) => t.rename('d/f.txt', 'src/a.ts', { overwrite: true }),
    procfs: 'ok',
    fallback: 'ok',
    // rename(2) replaces the planted link itself; its target is never written.
    check: (sb) => expect(fs.lstatSync(w(sb, 'src/a.ts')).isFile() && fs.readFileSync(w(sb, 'src/a.ts'), 'utf8')).toBe('inside f\n'),
  },
  {
    name: 'rename of a folder: the folder swapped for a link before the move',
    step: 'beforeCommit',
    op: 'rename',
    at: 'd',
    swap: ['d', ''],
    run: (t) => t.rename('d', 'moved'),
    procfs: 'ok',
    fallback: 'ok',
    // The link moves as a link (it lies inside the workspace); what it points to is untouched.
    check: (sb) => {
      expect(fs.lstatSync(w(sb, 'moved')).isSymbolicLink()).toBe(true);
      expect(fs.readFileSync(w(sb, 'd.real/f.txt'), 'utf8')).toBe('inside f\n');
    },
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
          if (s.op === 'rename' && !outcome.ok) {
            // A refused move moved nothing: the source file is where it was.
            const source = fs.existsSync(w(sb, 'd.real'))
              ? 'd.real/f.txt'
              : fs.lstatSync(w(sb, 'd/f.txt')).isSymbolicLink()
                ? 'd/f.txt.real'
                : 'd/f.txt';
            expect(fs.readFileSync(w(sb, source), 'utf8')).toBe('inside f\n');
            expect(fs.existsSync(w(sb, 'src/moved.txt')) || fs.existsSync(w(sb, 'src.real/moved.txt'))).toBe(false);
          }
          if (outcome.ok && s.op === 'readdir') expect(outcome.value).toEqual([{ name: 'a.ts', type: 'file' }]);
          if (outcome.ok) s.check?.(sb, guarantee);
          expect(fs.readdirSync(sb.sentinel).sort()).toEqual(['a.ts', 'f.txt', 'secret.txt', 'sub']);
        }, options),
      );
    }
  }
});

describe.each(modes)('D: a link the namespace follows, swapped while it is followed or right after (%s)', (_guarantee, options) => {
  const cases: { name: string; step: keyof HostSeams; op: string; at: string; swap(sb: Sandbox): void; expected: string }[] = [
    {
      name: 'the link is repointed outside (absolute) just before its text is read',
      step: 'beforeStep',
      op: 'readlink',
      at: 'inlink',
      swap: (sb) => (fs.unlinkSync(w(sb, 'inlink')), fs.symlinkSync(sb.sentinel, w(sb, 'inlink'))),
      expected: 'SYMLINK_ESCAPE',
    },
    {
      name: 'the link is repointed outside (relative, climbing) just before its text is read',
      step: 'beforeStep',
      op: 'readlink',
      at: 'inlink',
      swap: (sb) => (fs.unlinkSync(w(sb, 'inlink')), fs.symlinkSync('../../sentinel', w(sb, 'inlink'))),
      expected: 'SYMLINK_ESCAPE',
    },
    {
      name: 'the link is repointed outside after it was followed: the read goes where it led',
      step: 'beforeStep',
      op: 'read',
      at: 'src',
      swap: (sb) => (fs.unlinkSync(w(sb, 'inlink')), fs.symlinkSync(sb.sentinel, w(sb, 'inlink'))),
      expected: 'ok',
    },
    {
      name: 'the folder it led to is swapped for an outside link before the read walks it',
      step: 'beforeStep',
      op: 'read',
      at: 'src',
      swap: (sb) => swapForLink(w(sb, 'src'), sb.sentinel),
      expected: 'SYMLINK_ESCAPE',
    },
  ];
  for (const c of cases) {
    it(
      c.name,
      sandboxed(
        async (sb) => {
          const seams = seamOnce(c.step, c.op, c.at, () => c.swap(sb));
          const ns = sb.namespaceOver(sb.openRoot({ ...options, seams }));
          const outcome = await sb.attempt(async () => ns.readFile(await ns.resolveLinks('inlink/a.ts', 'read')));
          expect(seams.fired()).toBe(true);
          expect(outcome.ok ? 'ok' : outcome.code).toBe(c.expected);
          if (outcome.ok) expect(text(outcome.value)).toBe('export const a = 1;\n');
          expect(fs.readdirSync(sb.sentinel).sort()).toEqual(['a.ts', 'f.txt', 'secret.txt', 'sub']);
        },
        { ...options, plant: ({ work }) => fs.symlinkSync('src', path.join(work, 'inlink')) },
      ),
    );
  }
});
