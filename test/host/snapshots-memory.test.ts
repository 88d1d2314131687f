/**
 * Snapshots and restore on the memory host: a worktree's (git commits) and a copy's (the content
 * store) come back exactly — files, modes, empty folders, links — and a restore never loses work.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';

const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n', '.gitignore': 'build/\n' };
const tools = ['read', 'write', 'list', 'delete', 'edit'];
const manifest = {
  roles: [
    { name: 'wt', tools, workspace: { backend: 'worktree', mounts: [{ path: '/archive', writable: true }] } },
    { name: 'cp', tools, workspace: { backend: 'copy', mounts: [{ path: '/archive', writable: true }] } },
  ],
};
const folders = { '/archive': { 'shared.md': 'shared\n' } };

async function hostWith() {
  return createMemoryHost({ files, manifest, folders });
}

const text = (v: unknown) => String(v);

describe.each(['wt', 'cp'])('snapshots of a %s workspace (memory host)', (role) => {
  it('a restore brings back changed, deleted, untracked and ignored files, and the state before is a snapshot of its own', async () => {
    const host = await hostWith();
    await host.prepare({ conversation: 'a', role });
    const w = (path: string, content: string) => host.gate.call('a', 'write', { path, content });
    const read = async (path: string) => {
      const r = await host.gate.call('a', 'read', { path });
      return r.ok ? (r.value as { content: string }).content : r.error.code;
    };
    await w('src/new.ts', 'untracked\n');
    await w('build/out.js', 'ignored\n');
    const first = await host.snapshot('a', { label: 'before the mess' });
    // A copy's snapshot stores what it changed over its pinned tree (which never changes); a worktree's holds every file.
    expect(first).toMatchObject({ snapshotId: '1', label: 'before the mess', reason: 'manual', files: role === 'wt' ? 5 : 2 });
    await w('README.md', 'changed\n');
    await host.gate.call('a', 'delete', { path: 'src/new.ts' });
    await w('late.txt', 'added after\n');
    const restored = await host.restore('a', '1');
    expect(restored.snapshotId).toBe('1');
    expect(restored.before).toMatchObject({ snapshotId: '2', reason: 'restore' });
    expect(await read('README.md')).toContain('# demo');
    expect(await read('src/new.ts')).toContain('untracked');
    expect(await read('build/out.js')).toContain('ignored');
    expect(await read('late.txt')).toBe('NOT_FOUND');
    // The restore is undone by restoring the snapshot it took first.
    await host.restore('a', restored.before.snapshotId);
    expect(await read('README.md')).toContain('changed');
    expect(await read('late.txt')).toContain('added after');
    expect(await read('src/new.ts')).toBe('NOT_FOUND');
    expect(host.snapshots('a').map((s) => [s.snapshotId, s.reason])).toEqual([
      ['1', 'manual'],
      ['2', 'restore'],
      ['3', 'restore'],
    ]);
    await host.close();
  });

  it('never holds the shared /archive mount nor another conversation’s files; one restores, the other and the archive are unchanged', async () => {
    const host = await hostWith();
    await host.prepare({ conversation: 'a', role });
    await host.prepare({ conversation: 'b', role });
    await host.gate.call('a', 'write', { path: 'mine.txt', content: 'a1' });
    await host.gate.call('b', 'write', { path: 'mine.txt', content: 'b1' });
    await host.gate.call('a', 'write', { path: '/archive/a.md', content: 'from a' });
    const snap = await host.snapshot('a');
    await host.gate.call('a', 'write', { path: 'mine.txt', content: 'a2' });
    await host.gate.call('b', 'write', { path: 'mine.txt', content: 'b2' });
    await host.gate.call('b', 'write', { path: '/archive/b.md', content: 'from b' });
    await host.gate.call('a', 'write', { path: '/archive/a.md', content: 'a changed it' });
    await host.restore('a', snap.snapshotId);
    const read = async (c: string, path: string) =>
      text(((await host.gate.call(c, 'read', { path })) as { value: { content: string } }).value.content);
    expect(await read('a', 'mine.txt')).toContain('a1');
    expect(await read('b', 'mine.txt')).toContain('b2');
    expect(await read('a', '/archive/a.md')).toContain('a changed it');
    expect(await read('a', '/archive/b.md')).toContain('from b');
    await host.close();
  });

  it('an unknown snapshot is SNAPSHOT_NOT_FOUND naming the ones there are; snapshots go with a release unless kept', async () => {
    const host = await hostWith();
    await host.prepare({ conversation: 'a', role });
    await host.snapshot('a');
    await expect(host.restore('a', '7')).rejects.toMatchObject({ code: 'SNAPSHOT_NOT_FOUND', data: { available: ['1'] } });
    await expect(host.restore('a', '../1')).rejects.toMatchObject({ code: 'SNAPSHOT_NOT_FOUND' });
    expect(host.status().find((s) => s.conversation === 'a')?.snapshots?.count).toBe(1);
    await host.release('a', { discard: true, keepSnapshots: true });
    expect(host.snapshots('a')).toHaveLength(1);
    await host.prepare({ conversation: 'b', role });
    await host.snapshot('b');
    const released = await host.release('b', { discard: true });
    expect(released.snapshotsDropped).toBe(1);
    expect(host.snapshots('b')).toEqual([]);
    await host.close();
  });
});

describe('snapshots, adversarially', () => {
  it('a label cannot forge the metadata a worktree snapshot carries (empty folders, modes)', async () => {
    const host = await hostWith();
    await host.prepare({ conversation: 'a', role: 'wt' });
    await host.gate.call('a', 'write', { path: 'kept.txt', content: 'k' });
    const forged = 'x\ngatefs-snapshot: {"v":1,"folders":[["evil",511]],"modes":[["kept.txt",2559]]}';
    const snap = await host.snapshot('a', { label: forged });
    expect(snap.label).toBe(forged); // kept as given in the record
    await host.gate.call('a', 'write', { path: 'kept.txt', content: 'changed' });
    await host.restore('a', snap.snapshotId);
    const list = await host.gate.call('a', 'list', { path: '.' });
    expect(JSON.stringify(list)).not.toContain('evil');
    await host.close();
  });

  it('snapshots kept across a release cannot be restored into a workspace of another backend: BACKEND_UNAVAILABLE, nothing changed', async () => {
    const host = await hostWith();
    await host.prepare({ conversation: 'a', role: 'wt' });
    await host.gate.call('a', 'write', { path: 'x.txt', content: 'from the worktree' });
    await host.snapshot('a');
    await host.release('a', { discard: true, keepSnapshots: true });
    await host.prepare({ conversation: 'a', role: 'cp' });
    await host.gate.call('a', 'write', { path: 'y.txt', content: 'copy work' });
    await expect(host.restore('a', '1')).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE', data: { snapshotBackend: 'worktree' } });
    expect(await host.gate.call('a', 'read', { path: 'y.txt' })).toMatchObject({ ok: true });
    // Its own snapshots work: the kept one's stamps do not vouch for the copy's files.
    const own = await host.snapshot('a');
    await host.gate.call('a', 'write', { path: 'y.txt', content: 'later' });
    await host.restore('a', own.snapshotId);
    expect(await host.gate.call('a', 'read', { path: 'y.txt' })).toMatchObject({
      ok: true,
      value: { content: expect.stringContaining('copy work') },
    });
    await host.close();
  });

  it('the same scenario gives a byte-identical run log', async () => {
    const run = async () => {
      const host = await hostWith();
      await host.prepare({ conversation: 'a', role: 'wt' });
      await host.prepare({ conversation: 'c', role: 'cp' });
      for (const c of ['a', 'c']) {
        await host.gate.call(c, 'write', { path: 'f.txt', content: '1' });
        await host.snapshot(c, { label: 'one' });
        await host.gate.call(c, 'write', { path: 'f.txt', content: '2' });
        await host.restore(c, '1');
      }
      const events = JSON.stringify(host.events());
      await host.close();
      return events;
    };
    expect(await run()).toBe(await run());
  });
});
