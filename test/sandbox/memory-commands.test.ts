/**
 * The command tools on the memory host (a scripted sandbox: no process runs): what the agent
 * sees of `exec`, background runs, `check` and its diagnostics, the role's limits, and the
 * refusals — the same code the disk host runs, deterministic.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { ScriptedSandbox } from '../../src/ports/scripted-sandbox.js';

const tsc = [
  "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
  '/usr/lib/node_modules/typescript/lib/lib.d.ts(1,1): error TS1000: outside the namespace',
  '../m2/secret.ts(1,1): error TS1000: another workspace',
].join('\n');

const manifest = {
  roles: [
    { name: 'agent', tools: ['read', 'exec', 'exec_output', 'exec_kill', 'check'], exec: { timeout: 60, env: ['PATH', 'LANG', 'NOPE'] } },
    { name: 'reader', tools: ['read'] },
  ],
  checks: [
    { name: 'types', command: 'npx tsc --noEmit', timeout: 300 },
    { name: 'unit', argv: ['npx', 'vitest', 'run'], paths: true },
  ],
};

async function world(sandbox = new ScriptedSandbox()) {
  const host = await createMemoryHost({ files: { 'src/a.ts': 'export const a: number = "x";\n' }, manifest, sandbox });
  await host.prepare({ conversation: 'm1' });
  return { host, sandbox, call: (tool: string, args: unknown) => host.gate.call('m1', tool, args) };
}

describe('commands on the memory host', () => {
  it('exec answers the scripted result with the changed paths relative to the workspace', async () => {
    const sandbox = new ScriptedSandbox().script('npm test', {
      exitCode: 1,
      stdout: 'FAIL\n',
      changed: ['/worktrees/m1/coverage/lcov.info'],
    });
    const { call } = await world(sandbox);
    expect(await call('exec', { command: 'npm test' })).toEqual({
      ok: true,
      value: {
        exitCode: 1,
        timedOut: false,
        durationMs: 0,
        stdout: 'FAIL\n',
        stderr: '',
        truncated: false,
        changed: [{ path: 'coverage/lcov.info', status: 'added' }],
        changedCount: 1,
      },
    });
  });

  it("runs with the role's limits, its cwd, and only the environment names the role passes through", async () => {
    const { call, sandbox } = await world();
    await call('exec', { command: 'true', cwd: 'src', timeoutMs: 600_000 });
    const [request] = sandbox.started;
    expect(request!.limits).toMatchObject({ timeoutMs: 60_000, memoryBytes: 2 * 1024 ** 3, processes: 256, outputBytes: 1024 ** 2 });
    expect(request!.plan.cwd).toBe('/worktrees/m1/src');
    expect(Object.keys(request!.plan.env).sort()).toEqual(['LANG', 'PATH']);
    expect(request!.plan.network).toBe(false);
  });

  it('background runs: a run id at once, output since the last call, BUSY past four, exec_kill ends one', async () => {
    const sandbox = new ScriptedSandbox();
    for (let i = 0; i < 5; i++) sandbox.script('serve', { stdout: 'listening\n', untilKilled: true });
    const { call } = await world(sandbox);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call('exec', { command: 'serve', background: true });
      ids.push((r as { value: { runId: string } }).value.runId);
    }
    expect(await call('exec', { command: 'serve', background: true })).toMatchObject({ ok: false, error: { code: 'BUSY' } });
    expect(await call('exec_output', { runId: ids[0] })).toMatchObject({ ok: true, value: { state: 'running', stdout: 'listening\n' } });
    expect(await call('exec_output', { runId: ids[0] })).toMatchObject({ ok: true, value: { state: 'running', stdout: '' } });
    expect(await call('exec_kill', { runId: ids[0] })).toMatchObject({
      ok: true,
      value: { state: 'ended', result: { exitCode: null, signal: 'SIGKILL' } },
    });
    expect((await call('exec', { command: 'serve', background: true })).ok).toBe(true);
  });

  it("another conversation's run id is NOT_FOUND", async () => {
    const sandbox = new ScriptedSandbox().script('serve', { untilKilled: true });
    const { host, call } = await world(sandbox);
    await host.prepare({ conversation: 'm2' });
    const r = (await call('exec', { command: 'serve', background: true })) as { value: { runId: string } };
    expect(await host.gate.call('m2', 'exec_output', { runId: r.value.runId })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await host.gate.call('m2', 'exec_kill', { runId: r.value.runId })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it("a release ends the conversation's background runs", async () => {
    const sandbox = new ScriptedSandbox().script('serve', { untilKilled: true });
    const { host, call } = await world(sandbox);
    await call('exec', { command: 'serve', background: true });
    await host.release('m1', { discard: true } as never);
    const ended = host.events().filter((e) => e.type === 'exec' && e.conversation === 'm1');
    expect(ended.map((e) => (e.data as { signal: string | null }).signal)).toEqual(['SIGKILL']);
  });

  it('check runs a declared check and parses its diagnostics, keeping only paths the agent can reach', async () => {
    const sandbox = new ScriptedSandbox().script('npx tsc --noEmit', { exitCode: 2, stdout: tsc });
    const { call } = await world(sandbox);
    const r = await call('check', { name: 'types' });
    expect(r).toMatchObject({ ok: true, value: { name: 'types', exitCode: 2 } });
    const diagnostics = (r as { value: { diagnostics: { path: string }[] } }).value.diagnostics;
    expect(diagnostics).toEqual([
      { path: 'src/a.ts', line: 3, column: 7, severity: 'error', message: "TS2322: Type 'string' is not assignable to type 'number'." },
    ]);
    expect(sandbox.started[0]!.limits.timeoutMs).toBe(60_000);
  });

  it('check passes the paths after -- as workspace paths, and only to a check that takes them', async () => {
    const { call, sandbox } = await world();
    expect((await call('check', { name: 'unit', paths: ['src/a.ts', '/worktrees/m1/src'] })).ok).toBe(true);
    expect(sandbox.started[0]!.command).toEqual({ argv: ['npx', 'vitest', 'run', '--', 'src/a.ts', 'src'] });
    expect(await call('check', { name: 'types', paths: ['src/a.ts'] })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await call('check', { name: 'unit', paths: ['../m2/x'] })).toMatchObject({ ok: false, error: { code: 'PATH_ESCAPE' } });
  });

  it('an undeclared check is NOT_FOUND naming the declared ones; a role without exec is refused', async () => {
    const { host, call } = await world();
    expect(await call('check', { name: 'lint' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND', message: expect.stringContaining('types, unit') },
    });
    await host.prepare({ conversation: 'r1', role: 'reader' });
    expect(await host.gate.call('r1', 'exec', { command: 'true' })).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_ALLOWED' } });
  });
});

describe('check on read-only places', () => {
  it('takes paths in a read-only mount: a check reads them', async () => {
    const sandbox = new ScriptedSandbox();
    const host = await createMemoryHost({
      files: { 'src/a.ts': 'x\n' },
      folders: { '/data/ref': { 'r.ts': 'r\n' } },
      manifest: {
        roles: [{ name: 'agent', tools: ['read', 'check'], workspace: { mounts: [{ path: '/data/ref', writable: false }] } }],
        checks: [{ name: 'unit', argv: ['npx', 'vitest', 'run'], paths: true }],
      },
      sandbox,
    });
    await host.prepare({ conversation: 'm1' });
    expect(await host.gate.call('m1', 'check', { name: 'unit', paths: ['/data/ref/r.ts', 'src'] })).toMatchObject({ ok: true });
    expect(sandbox.started[0]!.command).toEqual({ argv: ['npx', 'vitest', 'run', '--', '/data/ref/r.ts', 'src'] });
    expect(await host.gate.call('m1', 'check', { name: 'unit', paths: ['/etc/passwd'] })).toMatchObject({
      ok: false,
      error: { code: 'OUTSIDE_MOUNTS' },
    });
  });
});
