/**
 * Agent identity on the memory host: the default agent (the role's name, or a name derived from
 * it), `--agent`, a conversation keeping its agent (`AGENT_MISMATCH`), names outside the grammar
 * (`BAD_AGENT_NAME`), a subagent seeing its parent's home, `/home` refused as a mount at load,
 * and a byte-identical run log for the same scenario.
 */
import { describe, expect, it } from 'vitest';
import { defaultAgentOf } from '../../src/host/platform/index.js';
import { createMemoryHost, type MemoryHost } from '../../src/host/memory/create-memory-host.js';

const TOOLS = ['read', 'list', 'write', 'edit'];
const manifest = {
  roles: [
    { name: 'writer', tools: TOOLS, workspace: { backend: 'worktree' } },
    { name: 'Code Reviewer', tools: TOOLS, workspace: { backend: 'worktree' } },
    { name: 'sharer', tools: TOOLS, workspace: { backend: 'shared' } },
  ],
};

async function host(): Promise<MemoryHost> {
  return createMemoryHost({ files: { 'README.md': '# r\n' }, manifest });
}

const agentOf = (h: MemoryHost, conversation: string) =>
  h.events().find((e) => e.type === 'home.seeded' && e.conversation === conversation);

async function readHome(h: MemoryHost, conversation: string, path: string): Promise<string> {
  const r = await h.gate.call(conversation, 'read', { path });
  if (!r.ok) return r.error.code;
  return (r.value as { content: string }).content;
}

describe('agent identity', () => {
  it("defaults to the role's name, or a name derived from it with a hash when the name is outside the grammar", async () => {
    expect(defaultAgentOf('writer')).toBe('writer');
    expect(defaultAgentOf('Code Reviewer')).toMatch(/^code-reviewer-[0-9a-f]{6}$/);
    expect(defaultAgentOf('code reviewer')).not.toBe(defaultAgentOf('Code Reviewer'));
    expect(defaultAgentOf('!!!')).toMatch(/^agent-[0-9a-f]{6}$/);
    const h = await host();
    await h.prepare({ conversation: 'c1', role: 'writer' });
    await h.prepare({ conversation: 'c2', role: 'Code Reviewer' });
    expect(h.volume.readdirSync('/state/homes')).toEqual([defaultAgentOf('Code Reviewer'), 'writer']);
    expect(await readHome(h, 'c1', '/home/.gatefs/agent.json')).toBe('{"agent":"writer","layout":1}\n');
    expect(agentOf(h, 'c2')).toMatchObject({ data: { agent: defaultAgentOf('Code Reviewer') } });
    expect(await h.homes()).toEqual([
      { agent: defaultAgentOf('Code Reviewer'), folder: `/state/homes/${defaultAgentOf('Code Reviewer')}` },
      { agent: 'writer', folder: '/state/homes/writer' },
    ]);
    await h.close();
  });

  it('keeps the agent a conversation was prepared for: another one is AGENT_MISMATCH, none keeps it', async () => {
    const h = await host();
    await h.prepare({ conversation: 'c1', agent: 'ada' });
    await expect(h.prepare({ conversation: 'c1', agent: 'bob' })).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'AGENT_MISMATCH', agent: 'ada', asked: 'bob' },
    });
    expect(h.volume.existsSync('/state/homes/bob')).toBe(false);
    await h.prepare({ conversation: 'c1' });
    await h.prepare({ conversation: 'c1', agent: 'ada' });
    await h.gate.call('c1', 'write', { path: '/home/notes/n.md', content: 'ada\n' });
    // Released and prepared again: still ada's.
    await h.release('c1', { discard: true });
    await expect(h.prepare({ conversation: 'c1', agent: 'bob' })).rejects.toMatchObject({ data: { reason: 'AGENT_MISMATCH' } });
    await h.prepare({ conversation: 'c1' });
    expect(await readHome(h, 'c1', '/home/notes/n.md')).toBe('ada\n');
    const failed = h.events().filter((e) => e.type === 'prepare.failed');
    expect(failed.map((e) => (e.data as { reason: string }).reason)).toEqual(['AGENT_MISMATCH', 'AGENT_MISMATCH']);
    await h.close();
  });

  it('refuses agent names outside the grammar (BAD_AGENT_NAME) before anything is made', async () => {
    const h = await host();
    for (const agent of ['../etc', 'a/b', '..', 'Ada', '', '.gatefs', `a${'b'.repeat(63)}`, 'x\u0000y']) {
      await expect(h.prepare({ conversation: 'c1', agent }), JSON.stringify(agent)).rejects.toMatchObject({
        code: 'PREPARATION_FAILED',
        data: { reason: 'BAD_AGENT_NAME' },
      });
    }
    expect(h.volume.existsSync('/state/homes')).toBe(false);
    expect(h.status()).toEqual([]);
    await expect(h.cleanHomeTmp('..')).rejects.toMatchObject({ data: { reason: 'BAD_AGENT_NAME' } });
    await h.close();
  });

  it("gives a subagent its parent's agent, so both see one /home", async () => {
    const h = await host();
    await h.prepare({ conversation: 'p', role: 'writer', agent: 'ada' });
    await h.gate.call('p', 'write', { path: '/home/notes/plan.md', content: 'the plan\n' });
    await h.subagents.start({ parent: 'p', child: 'k' });
    expect(await readHome(h, 'k', '/home/notes/plan.md')).toBe('the plan\n');
    await h.subagents.start({ parent: 'p', child: 'k2', agent: 'bob' });
    expect(await readHome(h, 'k2', '/home/notes/plan.md')).toBe('NOT_FOUND');
    await h.close();
  });

  it('seeds one complete home when two conversations of one agent are prepared at once', async () => {
    const h = await host();
    await Promise.all([h.prepare({ conversation: 'c1', agent: 'ada' }), h.prepare({ conversation: 'c2', agent: 'ada' })]);
    expect((h.volume.readdirSync('/state/homes/ada') as string[]).sort()).toEqual([
      '.gatefs',
      'AGENTS.md',
      'memory',
      'notes',
      'skills',
      'tmp',
      'work-items',
    ]);
    expect(await readHome(h, 'c2', '/home/.gatefs/agent.json')).toBe('{"agent":"ada","layout":1}\n');
    expect(await readHome(h, 'c1', '/home/memory/self.md')).toBe('# About me\n\n');
    await h.close();
  });

  it('shows /home to a shared-backend conversation too', async () => {
    const h = await host();
    await h.prepare({ conversation: 's1', role: 'sharer' });
    expect(await readHome(h, 's1', '/home/memory/self.md')).toBe('# About me\n\n');
    expect((await h.gate.call('s1', 'write', { path: '/home/.gatefs/x', content: 'x' })) as unknown).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
    await h.close();
  });

  it('refuses a role mount at or under /home at load (INVALID_VALUE)', async () => {
    for (const path of ['/home', '/home/alice/docs']) {
      await expect(
        createMemoryHost({
          files: { 'README.md': '# r\n' },
          manifest: { roles: [{ name: 'r', tools: TOOLS, workspace: { backend: 'worktree', mounts: [{ path, writable: false }] } }] },
          folders: { [path]: { 'a.md': 'a\n' } },
        }),
      ).rejects.toMatchObject({ code: 'INVALID_VALUE' });
    }
  });

  it('writes a byte-identical run log for the same scenario', async () => {
    const scenario = async () => {
      const h = await host();
      await h.prepare({ conversation: 'c1', agent: 'ada' });
      await h.prepare({ conversation: 'c2', role: 'Code Reviewer' });
      await h.gate.call('c1', 'write', { path: '/home/tmp/t.txt', content: 't' });
      await h.gate.call('c1', 'write', { path: '/home/.gatefs/x', content: 'x' });
      await h.prepare({ conversation: 'c1', agent: 'bob' }).catch(() => undefined);
      await h.cleanHomeTmp('ada');
      const log = JSON.stringify(h.events());
      await h.close();
      return log;
    };
    const first = await scenario();
    expect(first).toContain('home.seeded');
    expect(first).toContain('home.tmp_cleaned');
    expect(await scenario()).toBe(first);
  });
});
