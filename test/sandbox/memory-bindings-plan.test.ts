/**
 * The sandbox plan of `exec` on the memory host (a scripted sandbox records each plan) under the
 * agent model: attached worktrees and scratch folders at `/worktrees/<w>` with their mode's
 * write flag and their `.git` pointer covered, `/canonical` with `.git` hidden, an attached copy
 * left out, the own root read-only once its write is given up, `/home` writable with
 * `/home/.gatefs` read-only, and the default working folder the active workspace's anchor, read
 * when each command starts. Bindings are made by the operator's host API (`host.attach`, …).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { ScriptedSandbox } from '../../src/ports/scripted-sandbox.js';
import type { SandboxPlan } from '../../src/ports/sandbox.js';

const tools = ['read', 'write', 'exec', 'exec_output', 'exec_kill'];
const manifest = {
  roles: [
    { name: 'coder', tools, workspace: { backend: 'worktree' as const } },
    { name: 'scratch', tools, workspace: { backend: 'empty' as const } },
    { name: 'tester', tools, workspace: { backend: 'copy' as const } },
  ],
};

async function world() {
  const sandbox = new ScriptedSandbox();
  const host = await createMemoryHost({ files: { 'src/a.ts': 'export const a = 1;\n', 'gatefs.yaml': 'roles: []\n' }, manifest, sandbox });
  for (const [conversation, role] of [
    ['c1', 'coder'],
    ['c2', 'coder'],
    ['e1', 'scratch'],
    ['t1', 'tester'],
  ] as const) {
    await host.prepare({ conversation, role });
  }
  const exec = async (conversation: string, args: Record<string, unknown> = {}) => {
    const r = await host.gate.call(conversation, 'exec', { command: 'true', ...args });
    return { r, plan: r.ok ? sandbox.started.at(-1)!.plan : undefined };
  };
  return { host, sandbox, exec };
}

/** The binds of a plan as `at → writable` (an empty file cover as `at → 'empty'`). */
function bindsOf(plan: SandboxPlan): Record<string, boolean | 'empty'> {
  return Object.fromEntries(plan.binds.map((b) => [b.at, b.host === '' ? 'empty' : b.writable]));
}

describe('the sandbox plan under bindings (memory host)', () => {
  it('shows the own worktree and /home alone before anything is attached, and starts in the own root', async () => {
    const { exec } = await world();
    const { plan } = await exec('c1');
    expect(plan!.cwd).toBe('/worktrees/c1');
    const binds = bindsOf(plan!);
    expect(binds['/worktrees/c1']).toBe(true);
    expect(binds['/worktrees/c1/.git']).toBe('empty');
    expect(binds['/home']).toBe(true);
    expect(binds['/home/.gatefs']).toBe(false);
    expect(Object.keys(binds).filter((at) => at.startsWith('/worktrees/') && !at.startsWith('/worktrees/c1'))).toEqual([]);
    expect(binds['/canonical']).toBeUndefined();
  });

  it('binds an attached worktree read-only (shared-read) or writable (exclusive-write), its .git pointer covered', async () => {
    const { host, exec } = await world();
    host.attach('c1', 'c2', 'shared-read');
    let binds = bindsOf((await exec('c1')).plan!);
    expect(binds['/worktrees/c2']).toBe(false);
    expect(binds['/worktrees/c2/.git']).toBe('empty');
    host.detach('c1', 'c2');
    host.attach('c2', 'c2', 'shared-read');
    host.attach('c1', 'c2', 'exclusive-write');
    const { plan } = await exec('c1');
    binds = bindsOf(plan!);
    expect(binds['/worktrees/c2']).toBe(true);
    expect(binds['/worktrees/c2/.git']).toBe('empty');
    expect(plan!.scan?.roots).toEqual(expect.arrayContaining(['/worktrees/c1', '/worktrees/c2', '/home']));
    // The owner gave its write up: its own root is read-only to its commands.
    const own = bindsOf((await exec('c2')).plan!);
    expect(own['/worktrees/c2']).toBe(false);
  });

  it('binds /canonical with its .git hidden, writable only for exclusive-write; an empty scratch folder keeps its .git', async () => {
    const { host, exec } = await world();
    host.attach('c1', 'canonical', 'shared-read');
    host.attach('c1', 'e1', 'shared-read');
    let { plan } = await exec('c1');
    expect(bindsOf(plan!)['/canonical']).toBe(false);
    expect(plan!.hidden).toContain('/canonical/.git');
    expect(bindsOf(plan!)['/canonical/gatefs.yaml']).toBe(false);
    expect(bindsOf(plan!)['/worktrees/e1']).toBe(false);
    expect(bindsOf(plan!)['/worktrees/e1/.git']).toBeUndefined();
    host.attach('c1', 'canonical', 'exclusive-write');
    ({ plan } = await exec('c1'));
    expect(bindsOf(plan!)['/canonical']).toBe(true);
    expect(plan!.hidden).toContain('/canonical/.git');
  });

  it('leaves an attached copy workspace out: a command naming no folder while it is active answers OUTSIDE_MOUNTS', async () => {
    const { host, exec, sandbox } = await world();
    host.attach('c1', 't1', 'shared-read');
    const { plan } = await exec('c1');
    expect(Object.keys(bindsOf(plan!)).some((at) => at.startsWith('/worktrees/t1'))).toBe(false);
    host.switch('c1', 't1');
    const started = sandbox.started.length;
    expect((await exec('c1')).r).toMatchObject({ ok: false, error: { code: 'OUTSIDE_MOUNTS' } });
    expect(sandbox.started.length).toBe(started);
  });

  it('a copy workspace that gave its write up runs no command (READ_ONLY): its overlay cannot be made read-only', async () => {
    const { host, exec, sandbox } = await world();
    host.attach('t1', 't1', 'shared-read');
    const started = sandbox.started.length;
    expect((await exec('t1')).r).toMatchObject({ ok: false, error: { code: 'READ_ONLY' } });
    expect(sandbox.started.length).toBe(started);
  });

  it("starts in the active workspace's anchor, read when each command starts; an explicit cwd wins", async () => {
    const { host, exec } = await world();
    host.attach('c1', 'c2', 'shared-read');
    host.attach('c1', 'canonical', 'shared-read');
    const cwds: string[] = [];
    for (const active of ['c2', 'canonical', 'home', 'c1']) {
      host.switch('c1', active);
      cwds.push((await exec('c1')).plan!.cwd);
    }
    expect(cwds).toEqual(['/worktrees/c2', '/canonical', '/home', '/worktrees/c1']);
    host.switch('c1', 'c2');
    expect((await exec('c1', { cwd: '/worktrees/c1/src' })).plan!.cwd).toBe('/worktrees/c1/src');
  });

  it('a switch while a background command runs changes only the commands started after it', async () => {
    const { host, sandbox, exec } = await world();
    sandbox.script('serve', { untilKilled: true });
    host.attach('c1', 'c2', 'shared-read');
    const bg = await host.gate.call('c1', 'exec', { command: 'serve', background: true });
    const running = sandbox.started.at(-1)!.plan;
    host.switch('c1', 'c2');
    host.detach('c1', 'c2');
    host.attach('c1', 'canonical', 'shared-read');
    host.switch('c1', 'canonical');
    const next = (await exec('c1')).plan!;
    expect(running.cwd).toBe('/worktrees/c1');
    expect(bindsOf(running)['/worktrees/c2']).toBe(false);
    expect(next.cwd).toBe('/canonical');
    expect(bindsOf(next)['/worktrees/c2']).toBeUndefined();
    const runId = (bg as { value: { runId: string } }).value.runId;
    expect(await host.gate.call('c1', 'exec_kill', { runId })).toMatchObject({ ok: true, value: { state: 'ended' } });
  });

  it("a release of an attached workspace ends the holder's commands that show it", async () => {
    const { host, sandbox } = await world();
    sandbox.script('watch', { untilKilled: true });
    host.attach('c1', 'c2', 'shared-read');
    const bg = (await host.gate.call('c1', 'exec', { command: 'watch', background: true })) as { value: { runId: string } };
    await host.release('c2', { discard: true });
    expect(await host.gate.call('c1', 'exec_output', { runId: bg.value.runId })).toMatchObject({
      ok: true,
      value: { state: 'ended', result: { signal: 'SIGKILL' } },
    });
  });
});
