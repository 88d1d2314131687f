import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { makeTempRepo } from './temp-repo.js';

const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n', '.campaign/plan.md': 'pinned plan\n' };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function repoWith(extra: Record<string, string> = {}) {
  const repo = makeTempRepo({ ...files, ...extra });
  cleanups.push(() => repo.cleanup());
  return repo;
}

async function hostFor(repo: string, backend: string, mounts: { path: string; writable: boolean }[] = [], stateDir?: string) {
  const manifest = { roles: [{ name: 'r', tools: ['read', 'grep', 'list', 'edit', 'write'], workspace: { backend, mounts } }] };
  const host = await createHost({ repo, manifest, stateDir });
  cleanups.push(() => host.close());
  return host;
}

function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, p: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${p}${e.name}/`);
      else out[p + e.name] = readFileSync(join(d, e.name), 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

describe('copy backend', () => {
  it('writes to a durable upper over the pinned commit and never touches the checkout', async () => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, 'copy');
    const status = await host.prepare({ conversation: 'c' });
    expect(status).toMatchObject({ backend: 'copy', guarantee: 'confined', branch: null, pinnedSha: repo.git('rev-parse', 'HEAD') });
    repo.write({ 'src/a.ts': 'changed after pinning\n' });
    expect(await host.gate.call('c', 'read', { path: 'src/a.ts' })).toMatchObject({
      ok: true,
      value: { content: 'export const a = 1;\n' },
    });
    await host.gate.call('c', 'edit', { path: 'README.md', oldString: 'demo', newString: 'copy' });
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe('# demo\n');
    expect(readFileSync(join(repo.dir, '.gatefs/copies/c/README.md'), 'utf8')).toBe('# copy\n');
    await expect(host.release('c')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['README.md'] } });
    await host.close();
    const again = await hostFor(repo.dir, 'copy');
    expect(await again.gate.call('c', 'read', { path: 'README.md' })).toMatchObject({ ok: true, value: { content: '# copy\n' } });
  });

  it("sees at the next call what the agent's shell put in the copy folder after the tools had looked there", async () => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, 'copy');
    await host.prepare({ conversation: 'c' });
    const copy = join(repo.dir, '.gatefs/copies/c');
    expect(await host.gate.call('c', 'read', { path: 'README.md' })).toMatchObject({ ok: true });
    expect(await host.gate.call('c', 'list', { pattern: '**' })).toMatchObject({ ok: true });
    expect(await host.gate.call('c', 'read', { path: 'src/built.js' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // A build run in the workspace folder: a new file, a new folder, a changed pinned file.
    mkdirSync(join(copy, 'src'), { recursive: true });
    writeFileSync(join(copy, 'src/built.js'), 'built\n');
    mkdirSync(join(copy, 'out'));
    writeFileSync(join(copy, 'out/log.txt'), 'log\n');
    writeFileSync(join(copy, 'README.md'), '# rebuilt\n');
    expect(await host.gate.call('c', 'read', { path: 'src/built.js' })).toMatchObject({ ok: true, value: { content: 'built\n' } });
    expect(await host.gate.call('c', 'read', { path: 'README.md' })).toMatchObject({ ok: true, value: { content: '# rebuilt\n' } });
    const listed = await host.gate.call('c', 'list', { pattern: '**' });
    const paths = listed.ok ? (listed.value as { entries: { path: string }[] }).entries.map((e) => e.path) : [];
    expect(paths).toEqual(expect.arrayContaining(['out/log.txt', 'src/a.ts', 'src/built.js']));
    const found = await host.gate.call('c', 'grep', { pattern: 'log' });
    expect(JSON.stringify(found)).toContain('out/log.txt');
  });

  it('releases an unchanged copy by removing its folder', async () => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, 'copy');
    await host.prepare({ conversation: 'c' });
    expect(await host.gate.call('c', 'read', { path: 'README.md' })).toMatchObject({ ok: true });
    expect(await host.release('c')).toEqual({ conversation: 'c', removed: true, branchDeleted: false });
    expect(existsSync(join(repo.dir, '.gatefs/copies/c'))).toBe(false);
  });

  it('works over a folder that is not a git repository, with the state dir hidden', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-plain-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs/x.md'), 'plain\n');
    const host = await hostFor(dir, 'copy');
    expect(await host.prepare({ conversation: 'p' })).toMatchObject({ backend: 'copy', pinnedSha: null });
    const listed = await host.gate.call('p', 'list', {});
    expect(listed).toMatchObject({ ok: true });
    expect(JSON.stringify(listed)).not.toContain('.gatefs');
    expect(await host.gate.call('p', 'read', { path: '.gatefs/gatefs.db' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    await host.gate.call('p', 'write', { path: 'docs/x.md', content: 'mine\n' });
    expect(readFileSync(join(dir, 'docs/x.md'), 'utf8')).toBe('plain\n');
    expect(await host.gate.call('p', 'read', { path: 'docs/x.md' })).toMatchObject({ ok: true, value: { content: 'mine\n' } });
    await expect(host.prepare({ conversation: 'w', baseRef: 'HEAD' })).rejects.toMatchObject({ code: 'NOT_A_GIT_REPOSITORY' });
  });
});

describe('shared backend', () => {
  it('serves the checkout itself with guarantee none and the state directory protected', async () => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, 'shared');
    expect(await host.prepare({ conversation: 's' })).toMatchObject({ backend: 'shared', guarantee: 'none', branch: null });
    await host.gate.call('s', 'write', { path: 'src/shared.ts', content: 'shared\n' });
    expect(readFileSync(join(repo.dir, 'src/shared.ts'), 'utf8')).toBe('shared\n');
    const db = readFileSync(join(repo.dir, '.gatefs/gatefs.db'));
    expect(await host.gate.call('s', 'write', { path: '.gatefs/gatefs.db', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
    expect(await host.gate.call('s', 'write', { path: '.gatefs/worktrees/evil.txt', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
    expect(await host.gate.call('s', 'read', { path: '.gatefs/gatefs.db' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(JSON.stringify(await host.gate.call('s', 'list', {}))).not.toContain('.gatefs');
    // Whole-tree walks never enter the state directory either (the database holds SQL text).
    expect(JSON.stringify(await host.gate.call('s', 'list', { pattern: '**' }))).not.toContain('.gatefs');
    const grep = await host.gate.call('s', 'grep', { pattern: 'CREATE TABLE', literal: true });
    expect(grep).toMatchObject({ ok: true, value: { files: [] } });
    expect(await host.gate.call('s', 'grep', { pattern: 'shared', output: 'files' })).toMatchObject({
      ok: true,
      value: { files: ['src/shared.ts'] },
    });
    expect(readFileSync(join(repo.dir, '.gatefs/gatefs.db')).length).toBeGreaterThanOrEqual(db.length);
    expect(existsSync(join(repo.dir, '.gatefs/worktrees/evil.txt'))).toBe(false);
  });
});

describe('mounts', () => {
  it('projects relative mounts read-only from the pinned commit', async () => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, 'worktree', [{ path: '.campaign', writable: false }]);
    await host.prepare({ conversation: 'm' });
    repo.write({ '.campaign/plan.md': 'newer plan\n' });
    repo.commit('plan moves on');
    expect(await host.gate.call('m', 'read', { path: '.campaign/plan.md' })).toMatchObject({
      ok: true,
      value: { content: 'pinned plan\n' },
    });
    expect(await host.gate.call('m', 'write', { path: '.campaign/plan.md', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(await host.gate.call('m', 'write', { path: '.campaign/new.md', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
  });

  it('mounts host folders with their write flag, and a read-only tree reached through a writable one stays read-only', async () => {
    const repo = repoWith();
    const outside = mkdtempSync(join(tmpdir(), 'gatefs-mounts-'));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    const out = join(outside, 'out');
    const ref = join(out, 'reference');
    mkdirSync(ref, { recursive: true });
    writeFileSync(join(ref, 'spec.md'), 'spec\n');
    const host = await hostFor(repo.dir, 'worktree', [
      { path: out, writable: true },
      { path: ref, writable: false },
    ]);
    await host.prepare({ conversation: 'm' });
    const before = tree(outside);
    expect(await host.gate.call('m', 'write', { path: `${ref}/spec.md`, content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    // The same tree through the writable parent mount: the identity guard keeps it read-only.
    expect(await host.gate.call('m', 'write', { path: `${out}/reference/spec.md`, content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(await host.gate.call('m', 'write', { path: `${out}/reference/new.md`, content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(tree(outside)).toEqual(before);
    expect(await host.gate.call('m', 'write', { path: `${out}/result.txt`, content: 'ok\n' })).toMatchObject({ ok: true });
    expect(readFileSync(join(out, 'result.txt'), 'utf8')).toBe('ok\n');
    expect(await host.gate.call('m', 'read', { path: `${ref}/spec.md` })).toMatchObject({ ok: true, value: { content: 'spec\n' } });
  });

  it('keeps a read-only mount read-only when the same folder is reached through the writable workspace root', async () => {
    const repo = repoWith({ 'docs/guide.md': 'guide\n' });
    const docs = join(repo.dir, 'docs');
    const host = await hostFor(repo.dir, 'shared', [{ path: docs, writable: false }]);
    await host.prepare({ conversation: 's' });
    expect(await host.gate.call('s', 'write', { path: 'docs/new.md', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(tree(docs)).toEqual({ 'guide.md': 'guide\n' });
  });

  it('refuses a mount whose configured path goes through a symlink, naming it, and leaves nothing', async () => {
    // Mount folders are reached from / without following links (like every workspace root):
    // an alias of the repository is refused instead of being trusted. The identity guard that
    // keeps a read-only tree read-only through a writable root is tested on the layer
    // (test/security/i-read-only.test.ts), where bind mounts would reach it.
    const repo = repoWith({ 'docs/guide.md': 'guide\n' });
    const alias = join(repo.dir, '..', 'alias');
    symlinkSync(repo.dir, alias);
    const host = await hostFor(repo.dir, 'shared', [{ path: join(alias, 'docs'), writable: false }]);
    const failure = await host.prepare({ conversation: 's' }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'PREPARATION_FAILED', data: { reason: 'FOLDER_THROUGH_LINK' } });
    expect((failure as Error).message).toContain(join(alias, 'docs'));
    expect(host.status()).toEqual([]);
    expect(await host.gate.call('s', 'write', { path: 'docs/guide.md', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_CONVERSATION' },
    });
    expect(tree(join(repo.dir, 'docs'))).toEqual({ 'guide.md': 'guide\n' });
  });

  it('fails preparation with a typed error when an absolute mount folder is missing, leaving nothing', async () => {
    const repo = repoWith();
    const host = await hostFor(repo.dir, 'worktree', [{ path: '/nonexistent-gatefs-mount', writable: true }]);
    await expect(host.prepare({ conversation: 'm' })).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'MISSING_FOLDER' },
    });
    expect(existsSync(join(repo.dir, '.gatefs/worktrees/m'))).toBe(false);
    expect(repo.git('branch', '--list', 'gatefs/*')).toBe('');
    expect(host.status()).toEqual([]);
  });
});

describe('the container backend', () => {
  it('is rejected before anything exists on disk', async () => {
    const repo = repoWith();
    const stateDir = join(repo.dir, '..', 'custom-state');
    const manifest = { roles: [{ name: 'c', tools: ['read'], workspace: { backend: 'container' } }] };
    const before = repo.git('status', '--porcelain', '--ignored');
    await expect(createHost({ repo: repo.dir, manifest })).rejects.toMatchObject({ name: 'WorkspaceError', code: 'BACKEND_UNAVAILABLE' });
    await expect(createHost({ repo: repo.dir, manifest, stateDir })).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
    expect(existsSync(join(repo.dir, '.gatefs'))).toBe(false);
    expect(existsSync(stateDir)).toBe(false);
    expect(existsSync(join(repo.dir, '.git/info/exclude')) ? readFileSync(join(repo.dir, '.git/info/exclude'), 'utf8') : '').not.toContain(
      '.gatefs',
    );
    expect(repo.git('status', '--porcelain', '--ignored')).toBe(before);
  });
});
