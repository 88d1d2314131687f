/**
 * The agent model's bindings on the memory host (src/host/agents/): attach, detach, switch and
 * release in every order, modes up and down, the own workspace given up and taken back, two
 * conversations contending for exclusive-write, readers beside a writer, relative paths after a
 * switch, the run log byte-identical for one scenario run twice.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import type { Host } from '../../src/host/composition/host.js';

const TOOLS = ['read', 'list', 'write', 'delete', 'attach', 'detach', 'switch'];
const manifest = {
  roles: [
    { name: 'worker', tools: TOOLS, workspace: { backend: 'worktree' }, attach_mode: 'exclusive-write' },
    { name: 'reader', tools: TOOLS, workspace: { backend: 'worktree' } },
    { name: 'copier', tools: TOOLS, workspace: { backend: 'copy' }, attach_mode: 'exclusive-write' },
    { name: 'scratch', tools: TOOLS, workspace: { backend: 'empty' }, attach_mode: 'exclusive-write' },
    { name: 'sharer', tools: TOOLS, workspace: { backend: 'shared' } },
  ],
};
const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n' };

async function hostWith(...conversations: [string, string][]): Promise<Host> {
  const host = await createMemoryHost({ files, manifest });
  for (const [conversation, role] of conversations) await host.prepare({ conversation, role });
  return host;
}

const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);
const textOf = async (host: Host, c: string, path: string) => {
  const r = await host.gate.call(c, 'read', { path });
  return r.ok ? (r.value as { content: string }).content : `!${r.error.code}`;
};

describe('bindings on the memory host', () => {
  it('attach shared-read shows another workspace read-only at its anchor; detach takes it away', async () => {
    const host = await hostWith(['a', 'worker'], ['b', 'reader']);
    await host.gate.call('a', 'write', { path: 'note.md', content: 'from a\n' });
    expect(code(await host.gate.call('b', 'read', { path: '/worktrees/a/note.md' }))).toBe('OUTSIDE_MOUNTS');
    const bound = host.attach('b', 'a');
    expect(bound).toMatchObject({ holder: 'b', workspace: 'a', mode: 'shared-read', anchor: '/worktrees/a', own: false });
    expect(await textOf(host, 'b', '/worktrees/a/note.md')).toContain('from a');
    expect(code(await host.gate.call('b', 'write', { path: '/worktrees/a/x.md', content: 'x' }))).toBe('READ_ONLY');
    // The reader sees the writer's changes live.
    await host.gate.call('a', 'write', { path: 'note.md', content: 'changed\n' });
    expect(await textOf(host, 'b', '/worktrees/a/note.md')).toContain('changed');
    const ended = host.detach('b', '/worktrees/a');
    expect(ended).toMatchObject({ workspace: 'a', mode: 'shared-read', endReason: 'detach', active: '/worktrees/b' });
    expect(code(await host.gate.call('b', 'read', { path: '/worktrees/a/note.md' }))).toBe('OUTSIDE_MOUNTS');
    expect(() => host.detach('b', 'a')).toThrow(expect.objectContaining({ code: 'NOT_ATTACHED' }));
    await host.close();
  });

  it('exclusive-write is refused while the owner holds it; the owner gives write up, another takes it, the owner gets OCCUPIED', async () => {
    const host = await hostWith(['a', 'worker'], ['b', 'worker'], ['c', 'worker']);
    expect(() => host.attach('b', 'a', 'exclusive-write')).toThrow(expect.objectContaining({ code: 'OCCUPIED' }));
    // The owner gives its write up: its root is read-only to it (nobody holds it yet).
    host.attach('a', 'a', 'shared-read');
    expect(code(await host.gate.call('a', 'write', { path: 'x.md', content: 'x' }))).toBe('READ_ONLY');
    // Two contenders: exactly one wins.
    const tries = ['b', 'c'].map((c) => {
      try {
        return host.attach(c, 'a', 'exclusive-write').holder;
      } catch (e) {
        return (e as { code: string }).code;
      }
    });
    expect(tries.sort()).toEqual(['OCCUPIED', 'b']);
    expect(code(await host.gate.call('b', 'write', { path: '/worktrees/a/by-b.md', content: 'b\n' }))).toBe('ok');
    expect(code(await host.gate.call('a', 'write', { path: 'x.md', content: 'x' }))).toBe('OCCUPIED');
    expect(await textOf(host, 'a', 'by-b.md')).toContain('b');
    // Taking it back is refused while b holds it; after b steps down to shared-read, it works.
    expect(() => host.attach('a', 'a', 'exclusive-write')).toThrow(expect.objectContaining({ code: 'OCCUPIED' }));
    expect(host.attach('b', 'a', 'shared-read')).toMatchObject({ mode: 'shared-read' });
    expect(code(await host.gate.call('b', 'write', { path: '/worktrees/a/by-b.md', content: 'b2' }))).toBe('READ_ONLY');
    expect(host.attach('a', 'a', 'exclusive-write')).toMatchObject({ own: true, mode: 'exclusive-write' });
    expect(code(await host.gate.call('a', 'write', { path: 'x.md', content: 'x' }))).toBe('ok');
    expect(() => host.detach('a', 'a')).toThrow(expect.objectContaining({ code: 'NOT_ATTACHED' }));
    const events = host.events().filter((e) => e.type.startsWith('binding.'));
    expect(events.map((e) => [e.type, e.conversation, e.data])).toEqual([
      ['binding.attach', 'a', { workspace: 'a', mode: 'shared-read', previous: 'exclusive-write' }],
      ['binding.attach', 'b', { workspace: 'a', mode: 'exclusive-write' }],
      ['binding.attach', 'b', { workspace: 'a', mode: 'shared-read', previous: 'exclusive-write' }],
      ['binding.attach', 'a', { workspace: 'a', mode: 'exclusive-write', previous: 'shared-read' }],
    ]);
    await host.close();
  });

  it('switch moves relative paths to the active anchor; own-workspace tools stay; detach of the active one falls back', async () => {
    const host = await hostWith(['a', 'worker'], ['b', 'worker']);
    await host.gate.call('a', 'write', { path: 'only-a.md', content: 'A\n' });
    await host.gate.call('b', 'write', { path: 'only-b.md', content: 'B\n' });
    expect(() => host.switch('b', 'a')).toThrow(expect.objectContaining({ code: 'NOT_ATTACHED' }));
    host.attach('b', 'a');
    expect(host.switch('b', '/worktrees/a')).toMatchObject({ workspace: 'a', anchor: '/worktrees/a', from: 'b' });
    expect(await textOf(host, 'b', 'only-a.md')).toContain('A');
    expect(await textOf(host, 'b', '/worktrees/b/only-b.md')).toContain('B');
    // Relative writes land in the (read-only) active workspace.
    expect(code(await host.gate.call('b', 'write', { path: 'new.md', content: 'n' }))).toBe('READ_ONLY');
    host.detach('b', 'a');
    expect(await textOf(host, 'b', 'only-b.md')).toContain('B');
    // Switch to home and back (home is never bound).
    expect(host.switch('b', 'b')).toMatchObject({ workspace: 'b', from: 'b' });
    const types = host
      .events()
      .filter((e) => e.type.startsWith('binding.'))
      .map((e) => e.type);
    expect(types).toEqual(['binding.attach', 'binding.switch', 'binding.detach', 'binding.switch']);
    await host.close();
  });

  it('a release ends every binding of the workspace: the holder gets WORKSPACE_RELEASED under its anchor, binding.end is logged', async () => {
    const host = await hostWith(['a', 'worker'], ['b', 'reader'], ['c', 'worker']);
    await host.gate.call('a', 'write', { path: 'f.md', content: 'f\n' });
    host.attach('b', 'a');
    host.attach('c', 'a');
    host.switch('c', 'a');
    expect(await textOf(host, 'b', '/worktrees/a/f.md')).toContain('f');
    await host.release('a', { discard: true });
    expect(code(await host.gate.call('b', 'read', { path: '/worktrees/a/f.md' }))).toBe('WORKSPACE_RELEASED');
    expect(code(await host.gate.call('b', 'write', { path: '/worktrees/a/g.md', content: 'g' }))).toBe('WORKSPACE_RELEASED');
    expect(code(await host.gate.call('b', 'list', { path: '/worktrees/a' }))).toBe('WORKSPACE_RELEASED');
    // c had it active: relative paths are its own again.
    expect(code(await host.gate.call('c', 'write', { path: 'mine.md', content: 'm' }))).toBe('ok');
    expect(await textOf(host, 'c', '/worktrees/c/mine.md')).toBe('m');
    const ends = host.events().filter((e) => e.type === 'binding.end');
    expect(ends.map((e) => [e.conversation, e.data])).toEqual([
      ['b', { workspace: 'a', holder: 'b', mode: 'shared-read', reason: 'workspace-released' }],
      ['c', { workspace: 'a', holder: 'c', mode: 'shared-read', reason: 'workspace-released' }],
    ]);
    expect(() => host.attach('b', 'a')).toThrow(expect.objectContaining({ code: 'WORKSPACE_RELEASED' }));
    expect(() => host.detach('b', 'a')).toThrow(expect.objectContaining({ code: 'NOT_ATTACHED' }));
    await host.close();
  });

  it('canonical: attached at /canonical; exclusive-write blocks shared conversations with OCCUPIED; the state dir never shows', async () => {
    const host = await hostWith(['s', 'sharer'], ['w', 'worker']);
    expect(code(await host.gate.call('s', 'write', { path: 'by-s.md', content: 's' }))).toBe('ok');
    host.attach('w', '/canonical', 'exclusive-write');
    expect(await textOf(host, 'w', '/canonical/by-s.md')).toBe('s');
    expect(code(await host.gate.call('w', 'write', { path: '/canonical/by-w.md', content: 'w' }))).toBe('ok');
    expect(code(await host.gate.call('s', 'write', { path: 'by-s.md', content: 's2' }))).toBe('OCCUPIED');
    expect(code(await host.gate.call('w', 'write', { path: '/canonical/.git/config', content: 'x' }))).toBe('PROTECTED_PATH');
    expect(code(await host.gate.call('w', 'write', { path: '/canonical/gatefs.yaml', content: 'x' }))).toBe('PROTECTED_PATH');
    const listing = await host.gate.call('w', 'list', { path: '/canonical' });
    expect(JSON.stringify(listing)).not.toContain('.gatefs');
    // Attaching a shared conversation's workspace is attaching the checkout.
    expect(() => host.attach('w', 's', 'exclusive-write')).not.toThrow();
    expect(host.detach('w', 'canonical')).toMatchObject({ workspace: 'canonical', anchor: '/canonical' });
    expect(code(await host.gate.call('s', 'write', { path: 'by-s.md', content: 's3' }))).toBe('ok');
    await host.close();
  });

  it('copy and empty workspaces attach like their own root', async () => {
    const host = await hostWith(['cp', 'copier'], ['e', 'scratch'], ['w', 'worker']);
    await host.gate.call('cp', 'write', { path: 'copy-only.md', content: 'c' });
    await host.gate.call('e', 'write', { path: 'scratch.md', content: 'e' });
    host.attach('w', 'cp');
    host.attach('e', 'e', 'shared-read');
    host.attach('w', 'e', 'exclusive-write');
    expect(await textOf(host, 'w', '/worktrees/cp/copy-only.md')).toBe('c');
    expect(await textOf(host, 'w', '/worktrees/cp/README.md')).toContain('demo');
    expect(await textOf(host, 'w', '/worktrees/e/scratch.md')).toBe('e');
    expect(code(await host.gate.call('w', 'write', { path: '/worktrees/e/by-w.md', content: 'w' }))).toBe('ok');
    expect(await textOf(host, 'e', 'by-w.md')).toBe('w');
    await host.close();
  });

  it('reserved ids are refused at prepare', async () => {
    const host = await hostWith();
    for (const id of ['canonical', 'home']) {
      await expect(host.prepare({ conversation: id, role: 'worker' })).rejects.toMatchObject({
        code: 'PREPARATION_FAILED',
        data: { reason: 'RESERVED_ID' },
      });
    }
    await host.close();
  });

  it('the same scenario gives a byte-identical run log', async () => {
    async function scenario() {
      const host = await hostWith(['a', 'worker'], ['b', 'reader'], ['c', 'worker']);
      host.attach('b', 'a');
      host.attach('a', 'a', 'shared-read');
      host.attach('c', 'a', 'exclusive-write');
      host.switch('c', 'a');
      await host.gate.call('c', 'write', { path: 'x.md', content: 'x' });
      host.detach('c', 'a');
      await host.release('a', { discard: true });
      await host.gate.call('b', 'read', { path: '/worktrees/a/x.md' });
      const log = JSON.stringify(host.events());
      await host.close();
      return log;
    }
    expect(await scenario()).toBe(await scenario());
  });
});
