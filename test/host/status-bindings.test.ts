/**
 * The agent model's occupancy records where an operator looks: `host.status()` rows (agent,
 * active workspace, the bindings a conversation holds, who holds its workspace), `gatefs status`
 * (a BINDINGS table under the workspaces, only for what is beyond the default; the JSON rows),
 * `host.bindingHistory` (ended bindings too) and the run log's `binding.*` and `home.*` lines.
 * On the memory host; bindings are made by the operator's host API (`host.attach`, …).
 */
import { describe, expect, it } from 'vitest';
import { formatStatusTable } from '../../src/cli/status-table.js';
import { formatEventLine, formatRunLog } from '../../src/cli/run-log.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import type { RunEvent } from '../../src/state/index.js';
import { summarizeEvent } from '../../src/state/index.js';

const manifest = {
  roles: [
    { name: 'coder', tools: ['read', 'write'], workspace: { backend: 'worktree' as const } },
    { name: 'reviewer', tools: ['read'], workspace: { backend: 'worktree' as const } },
  ],
};

async function world() {
  const host = await createMemoryHost({ files: { 'README.md': '# r\n' }, manifest });
  await host.prepare({ conversation: 'a1', role: 'coder' });
  await host.prepare({ conversation: 'b1', role: 'reviewer', agent: 'rev' });
  const row = (c: string) => host.status().find((w) => w.conversation === c)!;
  return { host, row };
}

describe('occupancy records in status', () => {
  it("a fresh conversation's row: its agent, itself active, its own workspace held exclusive-write, no one else", async () => {
    const { host, row } = await world();
    expect(row('a1')).toMatchObject({
      agent: 'coder',
      active: 'a1',
      bindings: [{ workspace: 'a1', mode: 'exclusive-write', own: true, acquiredAt: expect.any(Number) }],
      heldBy: [],
    });
    // Nothing beyond the default: the table reads as it always did, except an agent other than its role.
    const text = formatStatusTable(host.status());
    expect(text).toContain('BINDINGS');
    expect(text.split('BINDINGS')[1]).toMatch(/\nb1\s+rev\s+b1\*\s+exclusive-write\s+\d{4}-\d\d-\d\dT[\d:]+Z$/);
    await host.release('b1', { discard: true });
    expect(formatStatusTable(host.status().filter((w) => w.conversation === 'a1'))).not.toContain('BINDINGS');
  });

  it('shows what a conversation attached, its active workspace, and who holds a workspace', async () => {
    const { host, row } = await world();
    host.attach('a1', 'b1', 'shared-read');
    host.attach('a1', 'canonical', 'exclusive-write');
    host.switch('a1', 'canonical');
    const a1 = row('a1');
    expect(a1).toMatchObject({ agent: 'coder', active: 'canonical', heldBy: [] });
    expect(a1.bindings.map((b) => [b.workspace, b.mode, b.own])).toEqual([
      ['a1', 'exclusive-write', true],
      ['b1', 'shared-read', false],
      ['canonical', 'exclusive-write', false],
    ]);
    expect(row('b1')).toMatchObject({
      agent: 'rev',
      active: 'b1',
      heldBy: [{ holder: 'a1', mode: 'shared-read', acquiredAt: expect.any(Number) }],
    });
    const table = formatStatusTable(host.status()).split('BINDINGS')[1]!;
    const lines = table.split('\n').slice(1);
    expect(lines[0]).toMatch(/^HOLDER\s+AGENT\s+WORKSPACE\s+MODE\s+ACQUIRED$/);
    expect(lines[1]).toMatch(/^a1\s+coder\s+b1\s+shared-read\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(lines[2]).toMatch(/^a1\s+coder\s+canonical\*\s+exclusive-write\s+\S+Z$/);
    // --json is the rows as they are.
    expect(JSON.parse(JSON.stringify(host.status()))).toEqual(host.status());
    // The run log reads each change by its fields.
    const log = host
      .events()
      .filter((e) => e.type.startsWith('binding.'))
      .map((e) => formatEventLine(e));
    expect(log[0]).toMatch(/binding\.attach\s+a1\s+workspace=b1 mode=shared-read/);
    expect(log[1]).toMatch(/binding\.attach\s+a1\s+workspace=canonical mode=exclusive-write/);
    expect(log[2]).toMatch(/binding\.switch\s+a1\s+workspace=canonical from=a1/);
  });

  it('an own workspace whose write was given up, and the home active, are listed', async () => {
    const { host } = await world();
    host.attach('a1', 'a1', 'shared-read');
    host.switch('a1', 'home');
    const table = formatStatusTable(host.status()).split('BINDINGS')[1]!;
    expect(table).toMatch(/\na1\s+coder\s+a1\s+shared-read\s+\S+Z/);
    expect(table).toMatch(/\na1\s+coder\s+home\*\s+-\s+-/);
  });

  it('bindingHistory: newest first, ended bindings with their release time and reason', async () => {
    const { host } = await world();
    host.attach('a1', 'b1', 'shared-read');
    host.detach('a1', 'b1');
    const [last, ...rest] = host.bindingHistory();
    expect(last).toMatchObject({ holder: 'a1', workspace: 'b1', mode: 'shared-read', releasedAt: expect.any(Number), endReason: 'detach' });
    expect(rest.map((b) => [b.holder, b.workspace, b.releasedAt])).toEqual([
      ['b1', 'b1', null],
      ['a1', 'a1', null],
    ]);
    expect(host.bindingHistory({ last: 1 })).toHaveLength(1);
  });
});

describe('binding and home events in the run log', () => {
  const event = (type: string, data: Record<string, unknown>): RunEvent =>
    ({ seq: 7, at: Date.UTC(2026, 0, 2, 3, 4, 5), type, conversation: 'a1', data }) as RunEvent;

  it('gatefs log reads each by its fields, the workspace first', () => {
    const lines = [
      event('binding.attach', { mode: 'exclusive-write', previous: 'shared-read', workspace: 'b1' }),
      event('binding.detach', { mode: 'shared-read', workspace: 'canonical' }),
      event('binding.switch', { from: 'a1', workspace: 'home' }),
      event('binding.end', { holder: 'a1', mode: 'shared-read', reason: 'workspace-released', workspace: 'b1' }),
      event('home.seeded', { agent: 'coder', made: ['AGENTS.md', 'notes'] }),
      event('home.tmp_cleaned', { agent: 'coder', entries: 3 }),
    ].map((e) => formatEventLine(e).replace(/^.*?a1\s+/, ''));
    expect(lines).toEqual([
      'workspace=b1 mode=exclusive-write previous=shared-read',
      'workspace=canonical mode=shared-read',
      'workspace=home from=a1',
      'workspace=b1 holder=a1 mode=shared-read reason=workspace-released',
      'agent=coder made=AGENTS.md,notes',
      'agent=coder entries=3',
    ]);
  });

  it('the short summary (status page, demo) names the workspace and the agent too', () => {
    expect(summarizeEvent({ mode: 'shared-read', workspace: 'b1' })).toBe('workspace=b1 mode=shared-read');
    expect(summarizeEvent({ from: 'a1', workspace: 'canonical' })).toBe('workspace=canonical from=a1');
    expect(summarizeEvent({ agent: 'coder', entries: 2 })).toBe('agent=coder entries=2');
    expect(formatRunLog([event('binding.switch', { from: 'a1', workspace: 'home' })])).toMatch(
      /binding\.switch\s+a1\s+workspace=home from=a1/,
    );
  });
});
