/**
 * The `attach`, `detach` and `switch` tools (tools/attach.ts, detach.ts, switch.ts) on the memory
 * host: declared per role, limited by the role's `attach_mode`, answering anchors only, with the
 * tool codes of their refusals; offered by the Claude Code profile and `gatefs tools`; refused at
 * manifest load for a role with progressive disclosure.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { loadManifest } from '../../src/manifest/index.js';
import { CLAUDE_CODE_PROFILE } from '../../src/mcp/profiles/claude-code.js';

const TOOLS = ['read', 'write', 'attach', 'detach', 'switch'];
const manifest = {
  roles: [
    { name: 'lead', tools: TOOLS, workspace: { backend: 'worktree' }, attach_mode: 'exclusive-write' },
    { name: 'peer', tools: TOOLS, workspace: { backend: 'worktree' } },
    { name: 'plain', tools: ['read', 'write'], workspace: { backend: 'worktree' } },
  ],
};

async function host() {
  const h = await createMemoryHost({ files: { 'README.md': '# demo\n' }, manifest });
  await h.prepare({ conversation: 'l', role: 'lead' });
  await h.prepare({ conversation: 'p', role: 'peer' });
  await h.prepare({ conversation: 'x', role: 'plain' });
  return h;
}

describe('binding tools', () => {
  it('attach, switch and detach answer anchors and ids only, and change what the next call sees', async () => {
    const h = await host();
    const attached = await h.gate.call('p', 'attach', { workspace: '/worktrees/l' });
    expect(attached).toEqual({
      ok: true,
      value: { workspace: 'l', anchor: '/worktrees/l', mode: 'shared-read', acquiredAt: expect.any(Number) },
    });
    expect(JSON.stringify(attached)).not.toMatch(/\/repo|\.gatefs/);
    expect(await h.gate.call('p', 'switch', { workspace: 'l' })).toEqual({
      ok: true,
      value: { workspace: 'l', anchor: '/worktrees/l', from: '/worktrees/p' },
    });
    expect(await h.gate.call('p', 'read', { path: 'README.md' })).toMatchObject({ ok: true });
    expect(await h.gate.call('p', 'write', { path: 'n.md', content: 'n' })).toMatchObject({ ok: false, error: { code: 'READ_ONLY' } });
    expect(await h.gate.call('p', 'detach', { workspace: 'l' })).toEqual({
      ok: true,
      value: { workspace: 'l', anchor: '/worktrees/l', mode: 'shared-read', active: '/worktrees/p' },
    });
    expect(await h.gate.call('p', 'write', { path: 'n.md', content: 'n' })).toMatchObject({ ok: true });
    await h.close();
  });

  it('refusals: a mode past attach_mode, NOT_ATTACHED, the own workspace, OCCUPIED, unknown workspaces, undeclared tools', async () => {
    const h = await host();
    const call = async (c: string, tool: string, args: object) => {
      const r = await h.gate.call(c, tool, args);
      return r.ok ? 'ok' : r.error.code;
    };
    expect(await call('p', 'attach', { workspace: 'canonical', mode: 'exclusive-write' })).toBe('TOOL_NOT_ALLOWED');
    expect(await call('l', 'attach', { workspace: 'canonical', mode: 'exclusive-write' })).toBe('ok');
    expect(await call('l', 'attach', { workspace: 'p', mode: 'exclusive-write' })).toBe('OCCUPIED');
    expect(await call('p', 'switch', { workspace: '/worktrees/x' })).toBe('NOT_ATTACHED');
    expect(await call('p', 'detach', { workspace: 'canonical' })).toBe('NOT_ATTACHED');
    expect(await call('p', 'detach', { workspace: 'p' })).toBe('INVALID_INPUT');
    expect(await call('p', 'attach', { workspace: 'nobody' })).toBe('UNKNOWN_CONVERSATION');
    expect(await call('p', 'attach', { workspace: 'home' })).toBe('UNKNOWN_CONVERSATION');
    expect(await call('p', 'attach', { workspace: 'l', mode: 'both' })).toBe('INVALID_INPUT');
    expect(await call('x', 'attach', { workspace: 'l' })).toBe('TOOL_NOT_ALLOWED');
    // The own workspace given up by its tool, and taken back.
    expect(await call('p', 'attach', { workspace: 'p', mode: 'shared-read' })).toBe('ok');
    expect(await call('p', 'write', { path: 'y.md', content: 'y' })).toBe('READ_ONLY');
    await h.release('x', { discard: true });
    expect(await call('p', 'attach', { workspace: 'x' })).toBe('WORKSPACE_RELEASED');
    await h.close();
  });

  it('gatefs tools and the Claude Code profile offer them when the role declares them', async () => {
    const h = await host();
    const names = h.gate.tools('p').map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['attach', 'detach', 'switch']));
    expect(h.gate.tools('x').map((t) => t.name)).not.toContain('attach');
    const offered = CLAUDE_CODE_PROFILE.tools(h.gate.tools('p'), 'p').map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['attach', 'detach', 'switch']));
    await h.close();
  });

  it('a role with progressive disclosure declaring attach is refused at load, naming the key', () => {
    const disclosed = {
      roles: [
        {
          name: 'd',
          tools: ['read', 'request_files', 'attach'],
          workspace: { backend: 'worktree', progressive_disclosure: { initial_paths: ['README.md'], allowed_paths: ['src'] } },
        },
      ],
    };
    expect(() => loadManifest(disclosed)).toThrow(expect.objectContaining({ code: 'INVALID_VALUE', keyPath: 'roles[0].tools[2]' }));
    expect(() => loadManifest({ roles: [{ name: 'm', tools: ['read'], attach_mode: 'owner' }] })).toThrow(
      expect.objectContaining({ code: 'INVALID_VALUE' }),
    );
    expect(loadManifest({ roles: [{ name: 'm', tools: ['read'] }] }).roles[0]!.attachMode).toBe('shared-read');
  });
});
