/**
 * Attack class O: authority (SECURITY.md §3 "Around the walk"; docs/ARCHITECTURE.md § Trust
 * boundary, "Authority files"). Through real hosts (real git, real disk), as an agent would try it:
 *
 * - `.git` (pointer file or folder, at any depth, and every name git treats as `.git` under
 *   core.protectNTFS / core.protectHFS) is invisible: not listed, not read, not grepped, and
 *   `PROTECTED_PATH` to any change — in every backend; no host path ever shows.
 * - `gatefs.yaml` and the manifest actually loaded are readable and `PROTECTED_PATH` to changes.
 * - A mount is a root like any other: reached without following links; the state directory is
 *   hidden in every mount that holds it (read-only or writable); a mount inside it is refused.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

const TOOLS = ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move'];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Mount = { path: string; writable: boolean };
type Result = { ok: boolean; value?: any; error?: { code: string; message: string } };

function repoWith(files: Record<string, string> = {}): TempRepo {
  const repo = makeTempRepo({ 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n', 'gatefs.yaml': 'roles: []\n', ...files });
  cleanups.push(() => repo.cleanup());
  return repo;
}

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function hostFor(repo: string, backend: string, mounts: Mount[] = [], extra: { stateDir?: string; manifestFile?: string } = {}) {
  const manifest = { roles: [{ name: 'r', tools: TOOLS, workspace: { backend, mounts } }] };
  let manifestArg: string | object = manifest;
  if (extra.manifestFile) {
    writeFileSync(extra.manifestFile, JSON.stringify(manifest));
    manifestArg = extra.manifestFile;
  }
  const host = await createHost({ repo, manifest: manifestArg, stateDir: extra.stateDir });
  cleanups.push(() => host.close());
  return host;
}

/** SHA-256 over every file below `dir` (paths and bytes); the state database (the run log grows with every call) is left out. */
function treeHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('gatefs.db')) continue;
      // A copy workspace's lower folder is built from the pinned commit in the background, on
      // gatefs's own schedule (a slow machine finishes it while the calls run): not agent-written.
      if (rel === '.gatefs/' && e.name === 'lowers') continue;
      const p = join(d, e.name);
      h.update(`${rel}${e.name}\0`);
      if (e.isDirectory()) walk(p, `${rel}${e.name}/`);
      else if (e.isFile()) h.update(readFileSync(p));
    }
  };
  walk(dir, '');
  return h.digest('hex');
}

/** Every call an agent could make to see or change `path`, with the codes it must get. */
async function expectInvisible(host: Host, conversation: string, path: string, secrets: string[]) {
  const calls: [string, object, string][] = [
    ['read', { path }, 'NOT_FOUND'],
    ['list', { path }, 'NOT_FOUND'],
    ['grep', { pattern: '.', path }, 'NOT_FOUND'],
    ['write', { path, content: 'x' }, 'PROTECTED_PATH'],
    ['write', { path: `${path}/new.txt`, content: 'x' }, 'PROTECTED_PATH'],
    ['edit', { path, oldString: 'a', newString: 'b' }, 'PROTECTED_PATH'],
  ];
  for (const [tool, args, code] of calls) {
    const r = (await host.gate.call(conversation, tool, args)) as Result;
    expect({ tool, path, code: r.ok ? 'ok' : r.error!.code }).toEqual({ tool, path, code });
    for (const s of secrets) expect(JSON.stringify(r)).not.toContain(s);
  }
}

/** The paths a whole-tree list and grep show, which must hold none of `names` and none of `secrets`. */
async function expectNowhere(host: Host, conversation: string, where: string, names: RegExp, secrets: string[]) {
  const listed = (await host.gate.call(conversation, 'list', { path: where, pattern: '**', maxResults: 100_000 })) as Result;
  expect(listed.ok).toBe(true);
  const paths: string[] = listed.value.entries.map((e: { path: string }) => e.path);
  expect(paths.filter((p) => p.split('/').some((seg) => names.test(seg)))).toEqual([]);
  const top = (await host.gate.call(conversation, 'list', { path: where })) as Result;
  expect(top.value.entries.map((e: { path: string }) => e.path).filter((p: string) => names.test(p.split('/').pop()!))).toEqual([]);
  for (const s of secrets) {
    const found = (await host.gate.call(conversation, 'grep', { pattern: s, literal: true, path: where, maxResults: 10_000 })) as Result;
    expect({ s, found: found.value.files }).toEqual({ s, found: [] });
    expect(JSON.stringify(listed)).not.toContain(s);
  }
}

describe('O: .git is invisible in every backend', () => {
  it('worktree: the .git pointer file (which names the host repository) is never listed, read or grepped', async () => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, 'worktree');
    await host.prepare({ conversation: 'w' });
    const pointer = readFileSync(join(repo.dir, '.gatefs/worktrees/w/.git'), 'utf8');
    expect(pointer).toContain(repo.dir); // the host path the agent must never see
    await expectInvisible(host, 'w', '.git', [repo.dir, 'gitdir']);
    await expectNowhere(host, 'w', '.', /^\.git$/, [repo.dir, 'gitdir:']);
    expect(readFileSync(join(repo.dir, '.gatefs/worktrees/w/.git'), 'utf8')).toBe(pointer);
  });

  it('shared: the whole .git folder (other conversations, hooks, config) is invisible and unchangeable', async () => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, 'shared');
    await host.prepare({ conversation: 's' });
    // Another conversation's worktree leaves its id and host path in .git/worktrees.
    repo.git('worktree', 'add', '--quiet', '-b', 'other-secret-branch', join(repo.dir, '..', 'other-secret-tree'));
    const before = treeHash(join(repo.dir, '.git'));
    for (const path of ['.git', '.git/config', '.git/HEAD', '.git/hooks/pre-commit', '.git/worktrees', 'src/../.git/config']) {
      await expectInvisible(host, 's', path, ['other-secret', repo.dir]);
    }
    await expectNowhere(host, 's', '.', /^\.git$/, ['other-secret', '[core]', repo.dir]);
    expect(treeHash(join(repo.dir, '.git'))).toBe(before);
    expect(existsSync(join(repo.dir, '.git/hooks/pre-commit'))).toBe(false);
  });

  it('copy over a plain folder: a .git folder in it (and .GIT, git~1) is invisible too', async () => {
    const dir = tempDir('gatefs-plain-');
    for (const name of ['.git', '.GIT', 'git~1', 'sub/.git']) {
      mkdirSync(join(dir, name), { recursive: true });
      writeFileSync(join(dir, name, 'config'), `[core] secret-${name.replace(/\W/g, '')}\n`);
    }
    writeFileSync(join(dir, 'sub/ok.txt'), 'visible\n');
    const host = await hostFor(dir, 'copy');
    await host.prepare({ conversation: 'p' });
    for (const path of ['.git/config', '.GIT/config', 'git~1/config', 'sub/.git/config', 'sub/.git'])
      await expectInvisible(host, 'p', path, ['secret-']);
    await expectNowhere(host, 'p', '.', /^(\.git|\.GIT|git~1)$/, ['secret-']);
    expect(await host.gate.call('p', 'read', { path: 'sub/ok.txt' })).toMatchObject({ ok: true, value: { content: 'visible\n' } });
  });

  it('memory host: the worktree .git is invisible as on disk', async () => {
    const host = await createMemoryHost({ files: { 'README.md': '# hi\n' } });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'm' });
    const listed = (await host.gate.call('m', 'list', { pattern: '**' })) as Result;
    expect(listed.value.entries.map((e: { path: string }) => e.path)).toEqual(['README.md']);
    expect(await host.gate.call('m', 'read', { path: '.git' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await host.gate.call('m', 'write', { path: '.git/config', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
  });

  it.each(['worktree', 'copy', 'shared'])('%s: no name git treats as .git can be created, at any depth', async (backend) => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, backend);
    await host.prepare({ conversation: 'n' });
    const names = [
      '.git',
      '.GIT',
      '.Git',
      '.git.',
      '.git ',
      '.git . .',
      '.Git . .',
      'git~1',
      'GIT~1',
      '.git::$INDEX_ALLOCATION',
      '\u200c.git',
      '.g\u200cit',
      '.gI\u200dT',
      '.git\ufeff',
    ];
    const before = treeHash(repo.dir);
    for (const name of names) {
      for (const path of [`${name}/hooks/post-checkout`, `src/${name}/config`, `src/${name}`]) {
        const r = (await host.gate.call('n', 'write', { path, content: '#!/bin/sh\necho owned\n' })) as Result;
        expect({ path, code: r.ok ? 'ok' : r.error!.code }).toEqual({ path, code: 'PROTECTED_PATH' });
      }
    }
    expect(treeHash(repo.dir)).toBe(before);
    // Ordinary look-alikes stay ordinary names.
    for (const path of ['.github/ci.yml', 'src/.gitkeep', 'git~2/x', '.git x/y']) {
      expect(await host.gate.call('n', 'write', { path, content: 'ok\n' })).toMatchObject({ ok: true });
    }
  });
});

describe('O: the files that grant authority are readable and never changed', () => {
  it.each(['shared', 'worktree', 'copy'])(
    '%s: gatefs.yaml at the workspace root (and its case and NTFS twins) is PROTECTED_PATH to writes',
    async (backend) => {
      const repo = repoWith();
      const host = await hostFor(repo.dir, backend);
      await host.prepare({ conversation: 'a' });
      expect(await host.gate.call('a', 'read', { path: 'gatefs.yaml' })).toMatchObject({ ok: true, value: { content: 'roles: []\n' } });
      const before = treeHash(repo.dir);
      const evil = 'roles:\n  - name: r\n    workspace: { backend: shared, mounts: [{ path: /, writable: true }] }\n';
      for (const path of [
        'gatefs.yaml',
        './gatefs.yaml',
        'src/../gatefs.yaml',
        'GATEFS.YAML',
        'Gatefs.yaml',
        'gatefs.yaml.',
        'gatefs.yaml ',
        'gatefs.yaml:stream',
        'gatefs.y\u200caml',
        'gatefs.yaml/x',
      ]) {
        const w = (await host.gate.call('a', 'write', { path, content: evil })) as Result;
        expect({ path, code: w.ok ? 'ok' : w.error!.code }).toEqual({ path, code: 'PROTECTED_PATH' });
      }
      const e = (await host.gate.call('a', 'edit', { path: 'gatefs.yaml', oldString: 'roles: []', newString: evil })) as Result;
      expect(e).toMatchObject({ ok: false, error: { code: 'PROTECTED_PATH' } });
      expect(treeHash(repo.dir)).toBe(before);
      // Other yaml files are ordinary.
      expect(await host.gate.call('a', 'write', { path: 'src/gatefs.yaml', content: 'fine\n' })).toMatchObject({ ok: true });
    },
  );

  it('shared: the manifest loaded from another file of the repository is protected where the workspace shows it', async () => {
    const repo = repoWith();
    mkdirSync(join(repo.dir, 'config'));
    const file = join(repo.dir, 'config/agents.yaml');
    const host = await hostFor(repo.dir, 'shared', [], { manifestFile: file });
    await host.prepare({ conversation: 's' });
    const bytes = readFileSync(file, 'utf8');
    expect(await host.gate.call('s', 'read', { path: 'config/agents.yaml' })).toMatchObject({ ok: true, value: { content: bytes } });
    expect(await host.gate.call('s', 'write', { path: 'config/agents.yaml', content: 'roles: []\n' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
    expect(await host.gate.call('s', 'write', { path: 'CONFIG/Agents.yaml', content: 'roles: []\n' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
    expect(await host.gate.call('s', 'edit', { path: 'config/agents.yaml', oldString: 'shared', newString: 'worktree' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
    expect(readFileSync(file, 'utf8')).toBe(bytes);
    expect(await host.gate.call('s', 'write', { path: 'config/other.yaml', content: 'ok\n' })).toMatchObject({ ok: true });
  });

  it('shared: a hard link or symlink to gatefs.yaml under another name is a way around nothing', async () => {
    const repo = repoWith();
    linkSync(join(repo.dir, 'gatefs.yaml'), join(repo.dir, 'alias.yaml'));
    symlinkSync('gatefs.yaml', join(repo.dir, 'link.yaml'));
    const host = await hostFor(repo.dir, 'shared');
    await host.prepare({ conversation: 'h' });
    expect(await host.gate.call('h', 'write', { path: 'alias.yaml', content: 'roles: [evil]\n' })).toMatchObject({ ok: true });
    // A write through an in-mount link is a write of its target: the manifest, refused.
    expect(await host.gate.call('h', 'write', { path: 'link.yaml', content: 'roles: [evil]\n' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
    // The hard link's write replaced the name (a new inode): the manifest keeps its bytes.
    expect(readFileSync(join(repo.dir, 'gatefs.yaml'), 'utf8')).toBe('roles: []\n');
    expect(lstatSync(join(repo.dir, 'link.yaml')).isSymbolicLink()).toBe(true);
  });

  it.each(['worktree', 'copy', 'shared'])(
    '%s: delete and move never remove, replace or carry off gatefs.yaml, the loaded manifest, .git or the state directory',
    async (backend) => {
      const repo = repoWith({ 'conf/agents.yaml': 'roles: []\n' });
      repo.commit('a manifest in a folder');
      const host = await hostFor(repo.dir, backend, [], { manifestFile: join(repo.dir, 'conf/agents.yaml') });
      await host.prepare({ conversation: 'd' });
      const before = treeHash(repo.dir);
      const call = async (tool: string, args: object) => {
        const r = (await host.gate.call('d', tool, args)) as Result;
        return r.ok ? 'ok' : r.error!.code;
      };
      const refused: [string, object][] = [
        ['delete', { path: 'gatefs.yaml' }],
        ['delete', { path: 'GATEFS.YAML' }],
        ['move', { from: 'gatefs.yaml', to: 'old.yaml' }],
        ['move', { from: 'README.md', to: 'gatefs.yaml', overwrite: true }],
        ['move', { from: 'README.md', to: 'gatefs.yaml.' }],
        ['delete', { path: 'conf/agents.yaml' }],
        ['move', { from: 'conf', to: 'config' }],
        ['move', { from: 'conf/agents.yaml', to: 'agents.yaml' }],
        ['delete', { path: '.git' }],
        ['move', { from: '.git', to: 'git' }],
        ['move', { from: 'README.md', to: '.git' }],
      ];
      for (const [tool, args] of refused) {
        expect({ tool, args, code: await call(tool, args) }).toEqual({ tool, args, code: 'PROTECTED_PATH' });
      }
      expect(treeHash(repo.dir)).toBe(before);
      expect(await call('move', { from: 'src/a.ts', to: 'lib/a.ts' })).toBe('ok');
    },
  );

  it.each(['shared', 'worktree'])(
    '%s: a manifest passed through a symlink (--manifest agents.yaml -> conf/real.yaml) is protected under every name on the way',
    async (backend) => {
      // Replacing the link by a file (a write renames over it) would make the next start load
      // the agent's manifest (shared), or carry that file back with a merge (worktree).
      const repo = repoWith();
      const manifest = { roles: [{ name: 'r', tools: TOOLS, workspace: { backend } }] };
      mkdirSync(join(repo.dir, 'conf'));
      writeFileSync(join(repo.dir, 'conf/real.yaml'), JSON.stringify(manifest));
      symlinkSync('conf/real.yaml', join(repo.dir, 'hop.yaml'));
      symlinkSync('hop.yaml', join(repo.dir, 'agents.yaml'));
      repo.commit('manifest behind two links');
      const host = await createHost({ repo: repo.dir, manifest: join(repo.dir, 'agents.yaml') });
      cleanups.push(() => host.close());
      await host.prepare({ conversation: 'm' });
      const evil = 'roles:\n  - name: r\n    workspace: { backend: shared, mounts: [{ path: /, writable: true }] }\n';
      for (const path of ['agents.yaml', 'hop.yaml', 'conf/real.yaml', 'AGENTS.yaml']) {
        const w = (await host.gate.call('m', 'write', { path, content: evil })) as Result;
        expect({ path, code: w.ok ? 'ok' : w.error!.code }).toEqual({ path, code: 'PROTECTED_PATH' });
      }
      const tree = backend === 'shared' ? repo.dir : join(repo.dir, '.gatefs/worktrees/m');
      expect(lstatSync(join(tree, 'agents.yaml')).isSymbolicLink()).toBe(true);
      expect(lstatSync(join(tree, 'hop.yaml')).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(tree, 'conf/real.yaml'), 'utf8')).toBe(JSON.stringify(manifest));
      expect(await host.gate.call('m', 'write', { path: 'conf/other.yaml', content: 'ok\n' })).toMatchObject({ ok: true });
    },
  );

  it('a manifest that lies inside a writable absolute mount is protected there', async () => {
    const repo = repoWith();
    const data = tempDir('gatefs-data-');
    mkdirSync(join(data, 'cfg'));
    const file = join(data, 'cfg/gatefs.yaml');
    const host = await hostFor(repo.dir, 'worktree', [{ path: data, writable: true }], { manifestFile: file });
    await host.prepare({ conversation: 'm' });
    const bytes = readFileSync(file, 'utf8');
    expect(await host.gate.call('m', 'read', { path: `${data}/cfg/gatefs.yaml` })).toMatchObject({ ok: true, value: { content: bytes } });
    expect(await host.gate.call('m', 'write', { path: `${data}/cfg/gatefs.yaml`, content: 'roles: []\n' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
    expect(readFileSync(file, 'utf8')).toBe(bytes);
    expect(await host.gate.call('m', 'write', { path: `${data}/cfg/notes.md`, content: 'ok\n' })).toMatchObject({ ok: true });
  });
});

describe('O: a mount is a root like any other', () => {
  it.each([false, true])(
    'an absolute mount of the repository itself (writable: %s) hides the state dir: no other conversation shows',
    async (writable) => {
      const repo = repoWith();
      const host = await hostFor(repo.dir, 'worktree', [{ path: repo.dir, writable }]);
      await host.prepare({ conversation: 'victim' });
      await host.gate.call('victim', 'write', { path: 'src/secret.ts', content: 'victim-secret-bytes\n' });
      await host.prepare({ conversation: 'agent' });
      const stateBefore = treeHash(join(repo.dir, '.gatefs/worktrees'));
      const m = repo.dir; // absolute mounts appear at their own path in the namespace
      for (const path of [
        `${m}/.gatefs`,
        `${m}/.gatefs/gatefs.db`,
        `${m}/.gatefs/worktrees/victim/src/secret.ts`,
        `${m}/.GATEFS/worktrees/victim/src/secret.ts`,
        `${m}/.git`,
        `${m}/.git/config`,
      ]) {
        await expectInvisible(host, 'agent', path, ['victim-secret-bytes']);
      }
      await expectNowhere(host, 'agent', m, /^(\.gatefs|\.git)$/, ['victim-secret-bytes', 'CREATE TABLE']);
      expect(await host.gate.call('agent', 'read', { path: `${m}/README.md` })).toMatchObject({ ok: true, value: { content: '# demo\n' } });
      // gatefs.yaml of the repository is an authority file wherever it shows.
      expect(await host.gate.call('agent', 'write', { path: `${m}/gatefs.yaml`, content: 'x' })).toMatchObject({
        ok: false,
        error: { code: 'PROTECTED_PATH' },
      });
      expect(treeHash(join(repo.dir, '.gatefs/worktrees'))).toBe(stateBefore);
    },
  );

  it('a state dir placed inside a mounted folder (--state-dir) is hidden there too', async () => {
    const repo = repoWith();
    const data = tempDir('gatefs-data-');
    writeFileSync(join(data, 'shared.txt'), 'shared\n');
    const host = await hostFor(repo.dir, 'worktree', [{ path: data, writable: true }], { stateDir: join(data, 'state') });
    await host.prepare({ conversation: 'a' });
    await host.gate.call('a', 'write', { path: 'mine.txt', content: 'a-private-bytes\n' });
    await host.prepare({ conversation: 'b' });
    await expectInvisible(host, 'b', `${data}/state/worktrees/a/mine.txt`, ['a-private-bytes']);
    await expectInvisible(host, 'b', `${data}/state`, ['a-private-bytes']);
    await expectNowhere(host, 'b', data, /^state$/, ['a-private-bytes']);
    expect(await host.gate.call('b', 'list', { path: data })).toMatchObject({
      ok: true,
      value: { entries: [{ path: `${data}/shared.txt` }] },
    });
  });

  it("a mount inside the state dir (another conversation's worktree) is refused at preparation", async () => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, 'worktree');
    await host.prepare({ conversation: 'victim' });
    await host.close();
    const spy = await hostFor(repo.dir, 'worktree', [{ path: join(repo.dir, '.gatefs/worktrees/victim'), writable: false }]);
    await expect(spy.prepare({ conversation: 'spy' })).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'MOUNT_IN_STATE_DIR' },
    });
    expect(await spy.gate.call('spy', 'list', {})).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CONVERSATION' } });
    await spy.close();
    // The same folder named as a case-insensitive volume would reach it is refused too.
    mkdirSync(join(repo.dir, '.GATEFS/worktrees/victim'), { recursive: true });
    const folded = await hostFor(repo.dir, 'shared', [{ path: join(repo.dir, '.GATEFS/worktrees/victim'), writable: false }]);
    await expect(folded.prepare({ conversation: 'spy' })).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'MOUNT_IN_STATE_DIR' },
    });
  });

  it.each(['copy', 'shared'])(
    '%s over a plain folder: a relative mount that is a symlink to an outside folder is refused, never served',
    async (backend) => {
      const dir = tempDir('gatefs-plain-');
      const outside = tempDir('gatefs-outside-');
      writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE-BYTES\n');
      symlinkSync(outside, join(dir, '.campaign'));
      mkdirSync(join(dir, 'docs'));
      symlinkSync(outside, join(dir, 'docs/ref'));
      for (const mount of ['.campaign', 'docs/ref/', 'docs/ref/sub']) {
        if (mount.endsWith('sub')) mkdirSync(join(outside, 'sub'), { recursive: true });
        const host = await hostFor(dir, backend, [{ path: mount.replace(/\/$/, ''), writable: false }]);
        const failure = await host.prepare({ conversation: 'p' }).catch((e: unknown) => e);
        expect(failure).toMatchObject({ code: 'PREPARATION_FAILED', data: { reason: 'FOLDER_THROUGH_LINK' } });
        const r = await host.gate.call('p', 'read', { path: `${mount.replace(/\/$/, '')}/secret.txt` });
        expect(JSON.stringify(r)).not.toContain('OUTSIDE-BYTES');
        await host.close();
      }
    },
  );

  it('a worktree swapped for a link to an outside folder after preparation is never served', async () => {
    const repo = repoWith();
    const outside = tempDir('gatefs-outside-');
    writeFileSync(join(outside, 'README.md'), 'OUTSIDE-BYTES\n');
    const first = await hostFor(repo.dir, 'worktree');
    await first.prepare({ conversation: 'w' });
    await first.close();
    const tree = join(repo.dir, '.gatefs/worktrees/w');
    renameSync(tree, `${tree}-moved`);
    symlinkSync(outside, tree);
    const again = await hostFor(repo.dir, 'worktree');
    const r = await again.gate.call('w', 'read', { path: 'README.md' });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toContain('OUTSIDE-BYTES');
    expect(JSON.stringify(await again.gate.call('w', 'grep', { pattern: 'OUTSIDE' }))).not.toContain('OUTSIDE-BYTES');
  });

  it('an absolute mount configured through a symlinked folder is refused with a message naming the mount', async () => {
    const repo = repoWith();
    const data = tempDir('gatefs-data-');
    const alias = join(tempDir('gatefs-alias-'), 'link');
    symlinkSync(data, alias);
    const host = await hostFor(repo.dir, 'worktree', [{ path: join(alias, 'out'), writable: true }]);
    mkdirSync(join(data, 'out'));
    const failure = (await host.prepare({ conversation: 'a' }).catch((e: unknown) => e)) as Error & {
      code: string;
      data: { reason: string };
    };
    expect(failure).toMatchObject({ code: 'PREPARATION_FAILED', data: { reason: 'FOLDER_THROUGH_LINK' } });
    expect(failure.message).toContain(join(alias, 'out'));
    expect(failure.message).toMatch(/symbolic link/);
  });
});
