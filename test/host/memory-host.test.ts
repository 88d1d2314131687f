import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { createMemoryHost as fromRoot, createHost } from '../../src/index.js';
import { createMemoryHost as fromTesting } from '../../src/testing.js';

const files = {
  'README.md': '# demo\n',
  'src/a.ts': 'export const a = 1;\n',
  '.campaign/plan.md': 'the plan\n',
  'docs/guide.md': 'guide\n',
};
const manifest = {
  roles: [
    {
      name: 'worker',
      tools: ['read', 'grep', 'list', 'edit', 'write'],
      workspace: {
        backend: 'worktree',
        mounts: [
          { path: '.campaign', writable: false },
          { path: '/data/out', writable: true },
          { path: '/data/ref', writable: false },
        ],
      },
    },
    { name: 'copier', tools: ['read', 'write', 'list'], workspace: { backend: 'copy' } },
    { name: 'sharer', tools: ['read', 'write'], workspace: { backend: 'shared' } },
  ],
};
const folders = { '/data/out': {}, '/data/ref': { 'r.md': 'reference\n' } };
const text = (v: Uint8Array | string) => String(v);

/** One scenario touching every part of the host that writes to the run log. */
async function scenario() {
  const host = await createMemoryHost({ files, manifest, folders });
  await host.prepare({ conversation: 'w', role: 'worker' });
  await host.prepare({ conversation: 'c', role: 'copier' });
  await host.prepare({ conversation: 's', role: 'sharer' });
  await host.gate.call('w', 'write', { path: 'src/b.ts', content: 'b' });
  await host.gate.call('w', 'read', { path: '.campaign/plan.md' });
  await host.gate.call('w', 'write', { path: '/data/ref/r.md', content: 'no' });
  await host.gate.call('c', 'write', { path: 'README.md', content: 'copy' });
  host.acquire('s', 'agent-1');
  await host.gate.call('s', 'write', { path: 'x.txt', content: 'x' }, { holder: 'agent-2' });
  host.releaseOccupancy('s', 'agent-1');
  await host.release('w').catch(() => undefined);
  await host.prepare({ conversation: 'bad', baseRef: 'nope' }).catch(() => undefined);
  const events = host.events();
  const status = host.status();
  await host.close();
  return { events, status, host };
}

describe('createMemoryHost', () => {
  it('is exported from the package root with createHost (loading gatefs/testing when called), and from gatefs/testing', async () => {
    expect(fromTesting).toBe(createMemoryHost);
    expect(typeof createHost).toBe('function');
    const host = await fromRoot({ files });
    expect(await host.prepare({ conversation: 'a' })).toMatchObject({ conversation: 'a' });
    expect(String(host.volume.readFileSync('/state/worktrees/a/README.md', 'utf8'))).toBe(files['README.md']);
    await host.close();
  });

  it('gives a byte-identical run log for the same scenario', async () => {
    const one = await scenario();
    const two = await scenario();
    expect(one.events.length).toBeGreaterThan(10);
    expect(JSON.stringify(two.events)).toBe(JSON.stringify(one.events));
    expect(JSON.stringify(two.status)).toBe(JSON.stringify(one.status));
    expect(one.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['prepare.start', 'prepare.ready', 'tool_call', 'occupancy.acquire', 'occupancy.release', 'prepare.failed']),
    );
    expect(one.events.filter((e) => e.type === 'exec')).toEqual([]);
  });

  it('prepares every backend in memory, with mounts and their write flags', async () => {
    const host = await createMemoryHost({ files, manifest, folders });
    expect(await host.prepare({ conversation: 'w', role: 'worker' })).toMatchObject({
      backend: 'worktree',
      state: 'ready',
      branch: 'gatefs/w',
      confinement: 'memory',
    });
    expect(await host.prepare({ conversation: 'c', role: 'copier' })).toMatchObject({
      backend: 'copy',
      guarantee: 'confined',
      branch: null,
    });
    expect(await host.prepare({ conversation: 's', role: 'sharer' })).toMatchObject({ backend: 'shared', guarantee: 'none' });
    await host.gate.call('w', 'write', { path: 'src/b.ts', content: 'from w' });
    expect(text(host.volume.readFileSync('/state/worktrees/w/src/b.ts', 'utf8'))).toBe('from w');
    expect(await host.gate.call('w', 'write', { path: '.campaign/plan.md', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(await host.gate.call('w', 'write', { path: '/data/ref/r.md', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(await host.gate.call('w', 'write', { path: '/data/out/o.txt', content: 'out' })).toMatchObject({ ok: true });
    expect(text(host.volume.readFileSync('/data/out/o.txt', 'utf8'))).toBe('out');
    await host.gate.call('c', 'write', { path: 'README.md', content: 'copy' });
    expect(text(host.volume.readFileSync('/repo/README.md', 'utf8'))).toBe('# demo\n');
    expect(await host.gate.call('c', 'read', { path: 'README.md' })).toMatchObject({ ok: true, value: { content: 'copy' } });
    await host.gate.call('s', 'write', { path: 'shared.txt', content: 's' });
    expect(text(host.volume.readFileSync('/repo/shared.txt', 'utf8'))).toBe('s');
    expect(await host.gate.call('c', 'read', { path: 'shared.txt' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    await host.close();
  });

  it('keeps a read-only mount read-only when its folder lies inside the writable checkout', async () => {
    const ro = {
      roles: [
        {
          name: 's',
          tools: ['read', 'write', 'edit'],
          workspace: { backend: 'shared', mounts: [{ path: '/repo/docs', writable: false }] },
        },
      ],
    };
    const host = await createMemoryHost({ files, manifest: ro });
    await host.prepare({ conversation: 's' });
    expect(await host.gate.call('s', 'write', { path: 'docs/guide.md', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(await host.gate.call('s', 'write', { path: 'docs/new/deeper.md', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(await host.gate.call('s', 'write', { path: '/repo/docs/guide.md', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(text(host.volume.readFileSync('/repo/docs/guide.md', 'utf8'))).toBe('guide\n');
    expect(host.volume.existsSync('/repo/docs/new')).toBe(false);
    expect(await host.gate.call('s', 'write', { path: 'src/ok.ts', content: 'fine' })).toMatchObject({ ok: true });
    await host.close();
  });

  it('enforces exclusive-write occupancy through the gate', async () => {
    const host = await createMemoryHost({ files });
    await host.prepare({ conversation: 'a' });
    host.acquire('a', 'one');
    expect(() => host.acquire('a', 'two')).toThrow(
      expect.objectContaining({ code: 'OCCUPIED', data: expect.objectContaining({ holder: 'one' }) }),
    );
    expect(host.status()[0].holder).toBe('one');
    expect(await host.gate.call('a', 'write', { path: 'f', content: 'x' }, { holder: 'two' })).toMatchObject({
      ok: false,
      error: { code: 'OCCUPIED' },
    });
    expect(await host.gate.call('a', 'read', { path: 'README.md' }, { holder: 'two' })).toMatchObject({ ok: true });
    expect(await host.gate.call('a', 'write', { path: 'f', content: 'x' }, { holder: 'one' })).toMatchObject({ ok: true });
    expect(host.releaseOccupancy('a', 'one')).toBe(true);
    expect(await host.gate.call('a', 'write', { path: 'f', content: 'y' }, { holder: 'two' })).toMatchObject({ ok: true });
    expect(() => host.acquire('zzz', 'one')).toThrow(expect.objectContaining({ code: 'UNKNOWN_CONVERSATION' }));
    await host.close();
  });

  it('releases: refuses a dirty worktree, removes a clean one, keeps the tombstone and the branch', async () => {
    const host = await createMemoryHost({ files });
    await host.prepare({ conversation: 'a' });
    await host.gate.call('a', 'write', { path: 'src/a.ts', content: 'changed' });
    await expect(host.release('a')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['src/a.ts'] } });
    await host.gate.call('a', 'write', { path: 'src/a.ts', content: 'export const a = 1;\n' });
    expect(await host.release('a', { deleteBranch: true })).toEqual({ conversation: 'a', removed: true, branchDeleted: true });
    expect(host.volume.existsSync('/state/worktrees/a')).toBe(false);
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_RELEASED' } });
    expect(host.status()).toMatchObject([{ conversation: 'a', state: 'released' }]);
    await host.close();
  });

  it('reuses a ready workspace and refuses another role for it', async () => {
    const host = await createMemoryHost({ files, manifest, folders });
    const first = await host.prepare({ conversation: 'a', role: 'worker' });
    await host.gate.call('a', 'write', { path: 'kept.txt', content: 'kept' });
    expect(await host.prepare({ conversation: 'a' })).toEqual(first);
    expect(await host.gate.call('a', 'read', { path: 'kept.txt' })).toMatchObject({ ok: true, value: { content: 'kept' } });
    await expect(host.prepare({ conversation: 'a', role: 'copier' })).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'ROLE_MISMATCH' },
    });
    await host.close();
  });

  it('rejects a container role before building anything', async () => {
    const container = { roles: [{ name: 'x', tools: ['read'], workspace: { backend: 'container' } }] };
    await expect(createMemoryHost({ files, manifest: container })).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
  });

  it('copies a plain folder that is not a git repository, and refuses a worktree there', async () => {
    const host = await createMemoryHost({ files, manifest, folders, git: false });
    expect(await host.prepare({ conversation: 'c', role: 'copier' })).toMatchObject({ pinnedSha: null });
    expect(await host.gate.call('c', 'read', { path: 'docs/guide.md' })).toMatchObject({ ok: true, value: { content: 'guide\n' } });
    await expect(host.prepare({ conversation: 'w', role: 'worker' })).rejects.toMatchObject({ code: 'NOT_A_GIT_REPOSITORY' });
    await host.close();
  });
});
