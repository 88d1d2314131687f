/**
 * Attacks on the agent model (issue 25) beyond the cases its own tests list: a role mount that
 * would shadow `/canonical`, hostile workspace names to attach, switch and detach, writes
 * through a shared-read binding by every writing tool, the agent home's runtime folder through
 * every route a tool has. Memory host: each answer is a typed code, nothing else changes.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';

const TOOLS = ['read', 'list', 'grep', 'write', 'edit', 'delete', 'move', 'attach', 'detach', 'switch', 'whereami'];
const manifest = {
  roles: [
    { name: 'worker', tools: TOOLS, workspace: { backend: 'worktree' }, attach_mode: 'exclusive-write' },
    { name: 'sharer', tools: TOOLS, workspace: { backend: 'shared' } },
  ],
};
const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n' };
const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);

describe('agent model attacks (memory host)', () => {
  it('refuses a role mount at or under /canonical at load (INVALID_VALUE): it would shadow the attached source checkout', async () => {
    for (const path of ['/canonical', '/canonical/src']) {
      await expect(
        createMemoryHost({
          files,
          manifest: { roles: [{ name: 'r', tools: TOOLS, workspace: { backend: 'worktree', mounts: [{ path, writable: true }] } }] },
          folders: { [path]: { 'a.ts': 'mount\n' } },
        }),
      ).rejects.toMatchObject({ code: 'INVALID_VALUE' });
    }
    // A name that only begins like it is a different segment.
    const host = await createMemoryHost({
      files,
      manifest: {
        roles: [{ name: 'r', tools: TOOLS, workspace: { backend: 'worktree', mounts: [{ path: '/canonicalx', writable: false }] } }],
      },
      folders: { '/canonicalx': { 'a.md': 'a\n' } },
    });
    await host.close();
  });

  it('hostile workspace names to attach, switch and detach bind nothing and log nothing', async () => {
    const host = await createMemoryHost({ files, manifest });
    await host.prepare({ conversation: 'a', role: 'worker' });
    await host.prepare({ conversation: 'b', role: 'worker' });
    const before = host.events().length;
    const hostile = [
      '../b',
      'b/..',
      '/worktrees/../canonical',
      '/worktrees//b',
      '/canonical/.',
      '/canonical/..',
      'CANONICAL',
      'cаnonical',
      'b\u0000',
      '.',
      '/',
      '/worktrees',
      '/home/..',
      'B',
    ];
    for (const workspace of hostile) {
      for (const tool of ['attach', 'switch', 'detach']) {
        const r = await host.gate.call('a', tool, { workspace, mode: 'exclusive-write' });
        expect([tool, workspace, code(r)]).toEqual([tool, workspace, expect.stringMatching(/UNKNOWN_CONVERSATION|INVALID_INPUT/)]);
      }
    }
    expect(code(await host.gate.call('a', 'attach', { workspace: 'x'.repeat(5000) }))).toBe('INVALID_INPUT');
    expect(
      host
        .events()
        .slice(before)
        .filter((e) => e.type.startsWith('binding.')),
    ).toEqual([]);
    expect(host.describe('a').attached).toEqual([]);
    await host.close();
  });

  it('a shared-read binding refuses every writing tool, in both directions of a move, and changes nothing', async () => {
    const host = await createMemoryHost({ files, manifest });
    await host.prepare({ conversation: 'a', role: 'worker' });
    await host.prepare({ conversation: 'b', role: 'worker' });
    host.attach('a', 'b', 'shared-read');
    const attempts: [string, Record<string, unknown>][] = [
      ['write', { path: '/worktrees/b/new.md', content: 'x' }],
      ['write', { path: '/worktrees/b/README.md', content: 'x' }],
      ['edit', { path: '/worktrees/b/README.md', oldString: 'demo', newString: 'pwn' }],
      ['delete', { path: '/worktrees/b/README.md' }],
      ['delete', { path: '/worktrees/b/src' }],
      ['move', { from: '/worktrees/b/README.md', to: '/worktrees/b/R.md' }],
      ['move', { from: '/worktrees/b/README.md', to: 'stolen.md' }],
      ['move', { from: 'src/a.ts', to: '/worktrees/b/src/a.ts' }],
      ['move', { from: '/worktrees/b', to: 'bdir' }],
      ['move', { from: '/worktrees/b/src', to: '/worktrees/b/src2' }],
    ];
    for (const [tool, args] of attempts)
      expect([tool, args, code(await host.gate.call('a', tool, args))]).toEqual([
        tool,
        args,
        expect.stringMatching(/READ_ONLY|CROSS_MOUNT/),
      ]);
    // After a switch, relative paths land in b's root, still read-only.
    await host.gate.call('a', 'switch', { workspace: 'b' });
    expect(code(await host.gate.call('a', 'write', { path: 'README.md', content: 'x' }))).toBe('READ_ONLY');
    expect(code(await host.gate.call('a', 'delete', { path: 'src/a.ts' }))).toBe('READ_ONLY');
    const r = await host.gate.call('b', 'read', { path: 'README.md' });
    expect(r.ok && (r.value as { content: string }).content).toBe('# demo\n');
    expect(code(await host.gate.call('b', 'read', { path: 'src/a.ts' }))).toBe('ok');
    await host.close();
  });

  it("the home's runtime folder is PROTECTED_PATH by every route a tool has: odd spellings, moves in and out, the folder itself", async () => {
    const host = await createMemoryHost({ files, manifest });
    await host.prepare({ conversation: 'a', role: 'worker' });
    const attempts: [string, Record<string, unknown>][] = [
      ['write', { path: '/home/./.gatefs/x', content: 'x' }],
      ['write', { path: '/home/tmp/../.gatefs/x', content: 'x' }],
      ['write', { path: '/home/.gatefs/agent.json', content: '{}' }],
      ['edit', { path: '/home/.gatefs/agent.json', oldString: 'agent', newString: 'x' }],
      ['delete', { path: '/home/.gatefs/agent.json' }],
      ['delete', { path: '/home/.gatefs' }],
      ['move', { from: '/home/.gatefs', to: '/home/old' }],
      ['move', { from: '/home/.gatefs/agent.json', to: '/home/x.json' }],
      ['move', { from: '/home/notes', to: '/home/.gatefs/notes' }],
      ['move', { from: '/home/AGENTS.md', to: '/home/.gatefs/agent.json' }],
    ];
    for (const [tool, args] of attempts)
      expect([tool, args, code(await host.gate.call('a', tool, args))]).toEqual([tool, args, 'PROTECTED_PATH']);
    // The home itself cannot be moved away or deleted (its runtime folder would go with it).
    expect(code(await host.gate.call('a', 'move', { from: '/home', to: 'h' }))).not.toBe('ok');
    expect(code(await host.gate.call('a', 'delete', { path: '/home' }))).not.toBe('ok');
    await host.gate.call('a', 'switch', { workspace: 'home' });
    expect(code(await host.gate.call('a', 'move', { from: '.', to: 'x' }))).not.toBe('ok');
    const r = await host.gate.call('a', 'read', { path: '/home/.gatefs/agent.json' });
    expect(r.ok && JSON.parse((r.value as { content: string }).content)).toMatchObject({ agent: 'worker' });
    await host.close();
  });

  it("OCCUPIED to the operator says how the holder lets go (the owner's give-up, another holder's detach), not a session's hint", async () => {
    const host = await createMemoryHost({ files, manifest });
    for (const c of ['a', 'b', 'c']) await host.prepare({ conversation: c, role: 'worker' });
    expect(() => host.attach('b', 'a', 'exclusive-write')).toThrow(
      expect.objectContaining({
        code: 'OCCUPIED',
        data: expect.objectContaining({ hint: expect.stringContaining('gatefs attach a a --mode shared-read') }),
      }),
    );
    host.attach('b', 'canonical', 'exclusive-write');
    expect(() => host.attach('c', '/canonical', 'exclusive-write')).toThrow(
      expect.objectContaining({
        code: 'OCCUPIED',
        data: expect.objectContaining({ hint: expect.stringContaining('gatefs detach b canonical') }),
      }),
    );
    await host.close();
  });

  it('a conversation prepared again after its release starts in its own workspace: attaching the one it had switched to does not make that one active', async () => {
    const host = await createMemoryHost({ files, manifest });
    await host.prepare({ conversation: 'a', role: 'worker' });
    await host.prepare({ conversation: 'b', role: 'worker' });
    host.attach('a', 'b', 'shared-read');
    host.switch('a', 'b');
    await host.release('a', { discard: true });
    await host.prepare({ conversation: 'a', role: 'worker' });
    // b gives its write up and a takes it: a's relative writes must still land in its own root.
    host.attach('b', 'b', 'shared-read');
    host.attach('a', 'b', 'exclusive-write');
    expect(host.describe('a').active.id).toBe('a');
    expect(code(await host.gate.call('a', 'write', { path: 'mine.md', content: 'a\n' }))).toBe('ok');
    expect(code(await host.gate.call('a', 'read', { path: '/worktrees/a/mine.md' }))).toBe('ok');
    expect(code(await host.gate.call('b', 'read', { path: 'mine.md' }))).toBe('NOT_FOUND');
    // The same for home: a released conversation does not come back in /home.
    host.switch('a', 'home');
    await host.release('a', { discard: true });
    await host.prepare({ conversation: 'a', role: 'worker' });
    expect(host.describe('a').active.id).toBe('a');
    await host.close();
  });

  it("rollback by an owner that gave its write up is OCCUPIED while another holds its workspace exclusive-write: the holder's files stay", async () => {
    const snapshotTools = ['read', 'write', 'attach', 'checkpoint', 'rollback'];
    const host = await createMemoryHost({
      files,
      manifest: { roles: [{ name: 'worker', tools: snapshotTools, workspace: { backend: 'worktree' }, attach_mode: 'exclusive-write' }] },
    });
    await host.prepare({ conversation: 'a', role: 'worker' });
    await host.prepare({ conversation: 'b', role: 'worker' });
    const cp = await host.gate.call('a', 'checkpoint', {});
    const snapshotId = cp.ok ? (cp.value as { snapshotId: string }).snapshotId : '';
    host.attach('a', 'a', 'shared-read');
    host.attach('b', 'a', 'exclusive-write');
    expect(code(await host.gate.call('b', 'write', { path: '/worktrees/a/by-b.md', content: 'b\n' }))).toBe('ok');
    expect(code(await host.gate.call('a', 'checkpoint', {}))).toBe('ok');
    expect(code(await host.gate.call('a', 'rollback', { snapshotId }))).toBe('OCCUPIED');
    expect(code(await host.gate.call('b', 'read', { path: '/worktrees/a/by-b.md' }))).toBe('ok');
    // Once b lets go and a takes its write back, the rollback runs.
    host.detach('b', 'a');
    host.attach('a', 'a', 'exclusive-write');
    expect(code(await host.gate.call('a', 'rollback', { snapshotId }))).toBe('ok');
    expect(code(await host.gate.call('a', 'read', { path: 'by-b.md' }))).toBe('NOT_FOUND');
    await host.close();
  });
  it('commit and rollback by an owner that gave its write up: OCCUPIED while another holds it, READ_ONLY while nobody does', async () => {
    const tools = ['read', 'write', 'attach', 'detach', 'checkpoint', 'rollback', 'commit'];
    const host = await createMemoryHost({
      files,
      manifest: { roles: [{ name: 'worker', tools, workspace: { backend: 'worktree' }, attach_mode: 'exclusive-write' }] },
    });
    await host.prepare({ conversation: 'a', role: 'worker' });
    await host.prepare({ conversation: 'b', role: 'worker' });
    const cp = await host.gate.call('a', 'checkpoint', {});
    const snapshotId = cp.ok ? (cp.value as { snapshotId: string }).snapshotId : '';
    expect(code(await host.gate.call('a', 'write', { path: 'mine.md', content: 'a\n' }))).toBe('ok');
    host.attach('a', 'a', 'shared-read');
    expect(code(await host.gate.call('a', 'commit', { message: 'nobody holds it' }))).toBe('READ_ONLY');
    expect(code(await host.gate.call('a', 'rollback', { snapshotId }))).toBe('READ_ONLY');
    host.attach('b', 'a', 'exclusive-write');
    expect(code(await host.gate.call('b', 'write', { path: '/worktrees/a/by-b.md', content: 'b\n' }))).toBe('ok');
    const refused = await host.gate.call('a', 'commit', { message: "b's work under a's name" });
    expect(code(refused)).toBe('OCCUPIED');
    expect(refused.ok ? undefined : refused.error.message).toContain("'b'");
    expect(code(await host.gate.call('a', 'read', { path: 'by-b.md' }))).toBe('ok');
    // Once b lets go and a takes its write back, it commits both files.
    host.detach('b', 'a');
    host.attach('a', 'a', 'exclusive-write');
    const done = await host.gate.call('a', 'commit', { message: 'after taking it back' });
    expect(done.ok ? (done.value as { files: { path: string }[] }).files.map((f) => f.path).sort() : done).toEqual(['by-b.md', 'mine.md']);
    await host.close();
  });
});
