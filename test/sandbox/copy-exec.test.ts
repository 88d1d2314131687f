import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { RUN_TYPESCRIPT } from '../run-typescript.js';
import { chownTree, runAs } from './ordinary-user.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping exec in copy workspaces: ${support.cause}; ${support.fix}`);

const tools = ['read', 'write', 'list', 'delete', 'exec', 'exec_output'];
/** The copy role; `extras`: the `.campaign` mount and the `node_modules` share (the copy of a commit has both). */
const role = (name: string, extras = false) => ({
  name,
  tools,
  workspace: { backend: 'copy' as const, mounts: extras ? [{ path: '.campaign', writable: false }] : [] },
  share: extras ? ['node_modules'] : [],
  exec: { timeout: 30 },
});
const T = 30_000;

interface ExecAnswer {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  changed: { path: string; status: string }[];
  changedCount: number;
}

/** Hash of every entry below `dir` (names, modes, bytes, link targets), the state directory left out. */
function hashSource(dir: string): string {
  const h = createHash('sha256');
  const visit = (p: string, rel: string) => {
    const st = lstatSync(p);
    h.update(`${rel}\0${st.mode}\0`);
    if (st.isSymbolicLink()) h.update(readlinkSync(p));
    else if (st.isFile()) h.update(readFileSync(p));
    else if (st.isDirectory())
      for (const name of readdirSync(p).sort()) if (rel !== '' || name !== '.gatefs') visit(join(p, name), `${rel}/${name}`);
  };
  visit(dir, '');
  return h.digest('hex');
}

function caller(host: Host, conversation: string) {
  const call = (tool: string, args: unknown) => host.gate.call(conversation, tool, args);
  const value = async <V = Record<string, unknown>>(tool: string, args: unknown): Promise<V> => {
    const r = await call(tool, args);
    if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
    return r.value as V;
  };
  const exec = (command: string) => value<ExecAnswer>('exec', { command });
  return { call, value, exec };
}

describe.skipIf(!support.available)('exec in a copy of a commit', () => {
  let repo: TempRepo;
  let host: Host;
  let sourceHash = '';
  const c = () => caller(host, 'c1');

  beforeAll(async () => {
    repo = makeTempRepo({
      'src/a.txt': 'alpha\n',
      'gone/x.txt': 'x\n',
      'd/old1.txt': 'one\n',
      'd/sub/old2.txt': 'two\n',
      'bin/run.sh': 'echo run\n',
      'gatefs.yaml': 'roles: []\n',
      '.gitignore': 'node_modules/\n',
      '.campaign/p.md': 'plan\n',
    });
    mkdirSync(join(repo.dir, 'node_modules/dep'), { recursive: true });
    writeFileSync(join(repo.dir, 'node_modules/dep/index.js'), 'module.exports = 1;\n');
    host = await createHost({ repo: repo.dir, manifest: { roles: [role('agent', true)] } });
    await host.prepare({ conversation: 'c1' });
    sourceHash = hashSource(repo.dir);
  });
  afterAll(async () => {
    await host?.close();
    repo?.cleanup();
  });

  it(
    "sees the copy's files as the file tools do: written ones, not deleted ones, nothing of the host",
    async () => {
      await c().value('write', { path: 'src/by-tool.txt', content: 'tool\n' });
      await c().value('delete', { path: 'gone/x.txt' });
      const v = await c().exec(
        'pwd; cat src/by-tool.txt src/a.txt; LC_ALL=C ls -A . gone; test -e gone/x.txt || echo gone-absent; grep " /worktrees/c1 " /proc/self/mountinfo',
      );
      expect(v.exitCode).toBe(0);
      expect(v.stdout).toMatch(
        /^\/worktrees\/c1\ntool\nalpha\n\.:\n\.campaign\n\.gitignore\nbin\nd\ngatefs\.yaml\ngone\nnode_modules\nsrc\n\ngone:\ngone-absent\n/,
      );
      expect(v.stdout).not.toContain('.gatefs');
      expect(v.stdout).not.toContain(dirname(repo.dir));
      expect(v.changed).toEqual([]);
    },
    T,
  );

  it(
    'shows the shared dependency folder and the relative mount read-only, and reports nothing of their mount points',
    async () => {
      const v = await c().exec(
        'cat node_modules/dep/index.js .campaign/p.md; touch node_modules/x 2>/dev/null || echo ro1; touch .campaign/y 2>/dev/null || echo ro2',
      );
      expect(v).toMatchObject({ exitCode: 0, stdout: 'module.exports = 1;\nplan\nro1\nro2\n', stderr: '', changed: [] });
    },
    T,
  );

  it(
    'keeps what the command wrote, deleted, made, linked and marked executable, for the file tools to read',
    async () => {
      const v = await c().exec(
        [
          'echo made > src/made.txt',
          'echo more >> src/a.txt',
          'rm src/by-tool.txt',
          'mkdir -p newdir/deep/empty',
          'echo n > newdir/deep/n.txt',
          'rm -rf d && mkdir d && echo fresh > d/fresh.txt',
          'ln -s ../src/a.txt newdir/link',
          'chmod +x bin/run.sh',
        ].join(' && '),
      );
      expect(v).toMatchObject({ exitCode: 0, stderr: '' });
      expect(v.changed).toEqual([
        { path: 'bin/run.sh', status: 'modified' },
        { path: 'd/fresh.txt', status: 'added' },
        { path: 'd/old1.txt', status: 'deleted' },
        { path: 'd/sub/old2.txt', status: 'deleted' },
        { path: 'newdir/deep/n.txt', status: 'added' },
        { path: 'newdir/link', status: 'added' },
        { path: 'src/a.txt', status: 'modified' },
        { path: 'src/by-tool.txt', status: 'deleted' },
        { path: 'src/made.txt', status: 'added' },
      ]);
      expect(await c().value('read', { path: 'src/made.txt' })).toMatchObject({ content: 'made\n' });
      expect(await c().value('read', { path: 'src/a.txt' })).toMatchObject({ content: 'alpha\nmore\n' });
      expect(await c().call('read', { path: 'src/by-tool.txt' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      expect(await c().value('list', { path: 'd' })).toMatchObject({ entries: [{ path: 'd/fresh.txt', type: 'file' }] });
      expect(await c().value('list', { path: 'newdir/deep' })).toMatchObject({
        entries: [
          { path: 'newdir/deep/empty', type: 'directory' },
          { path: 'newdir/deep/n.txt', type: 'file' },
        ],
      });
      expect(await c().value('read', { path: 'newdir/link' })).toMatchObject({ path: 'src/a.txt', content: 'alpha\nmore\n' });
      // Kept in the copy's upper folder (what `gatefs apply` writes back): the link and the executable bit.
      const upper = join(repo.dir, '.gatefs/copies/c1');
      expect(readlinkSync(join(upper, 'newdir/link'))).toBe('../src/a.txt');
      expect(lstatSync(join(upper, 'bin/run.sh')).mode & 0o111).toBe(0o111);
      // The next command sees the same.
      const again = await c().exec('ls -A d; test -x bin/run.sh && echo executable; readlink newdir/link');
      expect(again.stdout).toBe('fresh.txt\nexecutable\n../src/a.txt\n');
      expect(again.changed).toEqual([]);
    },
    T,
  );

  it(
    'refuses and reports a change to .git or gatefs.yaml, and keeps the rest',
    async () => {
      const v = await c().exec(
        'mkdir -p .git sub/.git && echo x > .git/x && echo x > sub/.git/config; echo y > gatefs.yaml; mkfifo pipe; echo ok > ok.txt',
      );
      expect(v.exitCode).toBe(0);
      expect(v.stderr).toContain('gatefs: not kept: pipe (NOT_REGULAR_FILE');
      expect(v.stderr).toContain('gatefs: not kept: .git (PROTECTED_PATH');
      expect(v.stderr).toContain('gatefs: not kept: sub/.git (PROTECTED_PATH');
      expect(v.stderr).toContain('gatefs: not kept: gatefs.yaml (PROTECTED_PATH');
      expect(v.changed).toEqual([{ path: 'ok.txt', status: 'added' }]);
      expect(await c().value('read', { path: 'gatefs.yaml' })).toMatchObject({ content: 'roles: []\n' });
      expect((await c().exec('LC_ALL=C ls -A; ls -A sub; cat gatefs.yaml')).stdout).toBe(
        '.campaign\n.gitignore\nbin\nd\ngatefs.yaml\ngone\nnewdir\nnode_modules\nok.txt\nsrc\nsub\nroles: []\n',
      );
    },
    T,
  );

  it(
    'keeps a background run’s changes when it ends',
    async () => {
      const { runId } = await c().value<{ runId: string }>('exec', { command: 'sleep 0.2; echo later > bg.txt', background: true });
      const out = await c().value<{ state: string; result: ExecAnswer }>('exec_output', { runId, waitMs: 20_000 });
      expect(out).toMatchObject({ state: 'ended', result: { exitCode: 0, changed: [{ path: 'bg.txt', status: 'added' }] } });
      expect(await c().value('read', { path: 'bg.txt' })).toMatchObject({ content: 'later\n' });
    },
    T,
  );

  it('left the source repository untouched and no per-command folder behind', () => {
    expect(hashSource(repo.dir)).toBe(sourceHash);
    expect(readdirSync(join(repo.dir, '.gatefs/exec/c1')).filter((n) => n.startsWith('run-'))).toEqual([]);
  });
});

describe.skipIf(!support.available)('exec in a copy of a plain folder', () => {
  let dir: string;
  let host: Host;
  let sourceHash = '';
  const c = () => caller(host, 'p1');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatefs-copy-plain-'));
    mkdirSync(join(dir, 'docs/old'), { recursive: true });
    writeFileSync(join(dir, 'docs/x.md'), 'plain\n');
    writeFileSync(join(dir, 'docs/old/o.md'), 'old\n');
    host = await createHost({ repo: dir, manifest: { roles: [role('agent')] } });
    await host.prepare({ conversation: 'p1' });
    sourceHash = hashSource(dir);
  });
  afterAll(async () => {
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'shows the folder without the state directory, and keeps what the command changes out of it',
    async () => {
      await c().value('write', { path: 'docs/x.md', content: 'mine\n' });
      const v = await c().exec(
        'ls -A; cat docs/x.md; rm -rf docs/old && mkdir docs/old && echo new > docs/old/n.md; echo added > top.txt; ln -s docs/x.md l',
      );
      expect(v.stdout).toBe('docs\nmine\n');
      expect(v.changed).toEqual([
        { path: 'docs/old/n.md', status: 'added' },
        { path: 'docs/old/o.md', status: 'deleted' },
        { path: 'l', status: 'added' },
        { path: 'top.txt', status: 'added' },
      ]);
      expect(await c().value('list', { path: 'docs/old' })).toMatchObject({ entries: [{ path: 'docs/old/n.md' }] });
      expect(await c().value('read', { path: 'l' })).toMatchObject({ content: 'mine\n' });
      expect(hashSource(dir)).toBe(sourceHash);
    },
    T,
  );
});

/** `nobody`, when this suite runs as root (and so can switch to it); else null. */
const ordinaryUser = process.getuid?.() === 0 ? 65534 : null;

describe.skipIf(!support.available || ordinaryUser === null)('exec in a copy workspace as an ordinary user', () => {
  it('sees and keeps the same as root does', async () => {
    const base = mkdtempSync(join(tmpdir(), 'gatefs-copy-user-'));
    try {
      const repo = makeTempRepo({ 'src/a.txt': 'alpha\n', 'd/old.txt': 'old\n' }, base);
      chownTree(base, ordinaryUser!);
      const steps = [
        ['delete', { path: 'src/a.txt' }],
        ['exec', { command: 'ls -A src; echo b > src/b.txt; rm -rf d && mkdir d && echo n > d/n.txt; ln -s b.txt src/l' }],
        ['read', { path: 'src/l' }],
        ['list', { path: 'd' }],
      ];
      const child = await runAs(ordinaryUser!, base, [process.execPath, ...RUN_TYPESCRIPT, childScript, repo.dir, JSON.stringify(steps)]);
      expect(child.code, child.stderr).toBe(0);
      const [, ran, read, listed] = child.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(ran).toMatchObject({
        ok: true,
        value: {
          exitCode: 0,
          stdout: '',
          changed: [
            { path: 'd/n.txt', status: 'added' },
            { path: 'd/old.txt', status: 'deleted' },
            { path: 'src/b.txt', status: 'added' },
            { path: 'src/l', status: 'added' },
          ],
        },
      });
      expect(read).toMatchObject({ ok: true, value: { content: 'b\n' } });
      expect(listed).toMatchObject({ ok: true, value: { entries: [{ path: 'd/n.txt' }] } });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 60_000);
});

const childScript = join(dirname(fileURLToPath(import.meta.url)), 'copy-exec-child.ts');
