/**
 * The `claude-code` profile's Bash, BashOutput and KillShell over a memory host whose sandbox
 * answers from a script (in process): a model that calls them with Claude Code's arguments gets
 * Claude Code's answers (stdout, then stderr, `Exit code N`; "Command running in background with
 * ID: …"; `<status>` blocks; "Successfully killed shell: …"), the files a command changed as
 * absolute paths, how a timeout or limit ended it, a filter that cannot hold the server, and the
 * gate's codes with Claude Code's field names. Each call is one gated call (the run log shows
 * it). With a real sandbox over MCP: claude-code-bash-serve.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Value } from '@sinclair/typebox/value';
import { CLAUDE_CODE_PROFILE } from '../../src/mcp/profiles/claude-code.js';
import { BashOutputValue, BashValue, KillShellValue, BASH_MAX_COMMAND_CHARS } from '../../src/mcp/profiles/claude-code-schemas.js';
import { gateOf } from '../../src/mcp/profiles/tool-profile.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { ScriptedSandbox } from '../../src/ports/scripted-sandbox.js';
import { EXEC_MAX_COMMAND_CHARS } from '../../tools/exec.js';

const ROOT = '/worktrees/cc';
const COMMAND_TOOLS = ['read', 'write', 'exec', 'exec_output', 'exec_kill', 'check'];

async function world(sandbox = new ScriptedSandbox(), tools = COMMAND_TOOLS) {
  const host = await createMemoryHost({
    files: { 'src/a.ts': 'export const a = 1;\n' },
    manifest: { roles: [{ name: 'agent', tools }] },
    sandbox,
  });
  await host.prepare({ conversation: 'cc' });
  const call = async (name: string, args: Record<string, unknown>) => {
    const r: CallToolResult = await CLAUDE_CODE_PROFILE.call(name, args, gateOf(host, 'cc', undefined));
    const text = (r.content as { type: string; text?: string }[]).map((c) => c.text).join('\n');
    return { text, structured: r.structuredContent as Record<string, any>, isError: r.isError === true };
  };
  return { host, sandbox, call, tools: () => CLAUDE_CODE_PROFILE.tools(host.declaredTools('cc'), 'cc') };
}

describe('tools/list under the claude-code profile', () => {
  it("offers Bash, BashOutput and KillShell with Claude Code's argument names when the role declares exec, and keeps check's gatefs name", async () => {
    const { tools, host } = await world();
    const listed = tools();
    expect(listed.map((t) => t.name)).toEqual(['Read', 'Write', 'Bash', 'BashOutput', 'KillShell', 'check']);
    const args = Object.fromEntries(listed.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]));
    expect(args.Bash).toEqual(['command', 'timeout', 'description', 'run_in_background']);
    expect(args.BashOutput).toEqual(['bash_id', 'filter']);
    expect(args.KillShell).toEqual(['shell_id']);
    const bash = listed.find((t) => t.name === 'Bash')!;
    expect(bash.inputSchema.required).toEqual(['command']);
    expect(bash.description).toContain('/worktrees/cc');
    expect(bash.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    await host.close();
  });

  it('lists none of them for a role without exec, and each only with its own gate tool', async () => {
    const without = await world(undefined, ['read', 'grep', 'list']);
    expect(without.tools().map((t) => t.name)).toEqual(['Read', 'Glob', 'Grep', 'LS']);
    await without.host.close();
    const onlyExec = await world(undefined, ['read', 'exec']);
    expect(onlyExec.tools().map((t) => t.name)).toEqual(['Read', 'Bash']);
    expect((await onlyExec.call('BashOutput', { bash_id: 'run-1' })).structured.error.code).toBe('TOOL_NOT_ALLOWED');
    await onlyExec.host.close();
  });

  it("bounds Bash's command as the gate's exec does", () => {
    expect(BASH_MAX_COMMAND_CHARS).toBe(EXEC_MAX_COMMAND_CHARS);
  });
});

describe('Bash', () => {
  it('answers stdout then stderr, and the files the command changed as absolute paths', async () => {
    const sandbox = new ScriptedSandbox().script('npm run gen', {
      stdout: 'generated\n',
      stderr: 'warning: old node\n',
      changed: [`${ROOT}/src/gen.ts`],
    });
    const { call, host } = await world(sandbox);
    const r = await call('Bash', { command: 'npm run gen', description: 'Generate the sources' });
    expect(r.isError).toBe(false);
    expect(r.text).toBe(`generated\nwarning: old node\nFiles changed (1):\nA ${ROOT}/src/gen.ts`);
    expect(r.structured).toMatchObject({
      stdout: 'generated\n',
      stderr: 'warning: old node\n',
      interrupted: false,
      exitCode: 0,
      timedOut: false,
      changed: [{ path: `${ROOT}/src/gen.ts`, status: 'added' }],
      changedCount: 1,
    });
    expect(Value.Check(BashValue, r.structured)).toBe(true);
    expect(sandbox.started[0]!.plan.cwd).toBe(ROOT);
    await host.close();
  });

  it('adds "Exit code N" when the command failed, and is still a result, not a tool error', async () => {
    const { call, host } = await world(new ScriptedSandbox().script('npm test', { exitCode: 1, stderr: '1 failing\n' }));
    const r = await call('Bash', { command: 'npm test' });
    expect(r.isError).toBe(false);
    expect(r.text).toBe('1 failing\nExit code 1');
    expect(r.structured).toMatchObject({ exitCode: 1, interrupted: false });
    await host.close();
  });

  it('says how a timeout or a limit ended the command, and marks it interrupted', async () => {
    const sandbox = new ScriptedSandbox().script('sleep 99', { timedOut: true }).script('make -j', { limit: 'memory', stdout: 'cc a.c\n' });
    const { call, host } = await world(sandbox);
    const slow = await call('Bash', { command: 'sleep 99', timeout: 1000 });
    expect(slow.text).toMatch(/^Command timed out after \d+ ms: it was ended with every process it started$/);
    expect(slow.structured).toMatchObject({ interrupted: true, timedOut: true, exitCode: null, signal: 'SIGKILL' });
    expect(sandbox.started[0]!.limits.timeoutMs).toBe(1000);
    const big = await call('Bash', { command: 'make -j' });
    expect(big.text).toBe('cc a.c\nCommand passed its memory limit (exec.memory of your role): it was ended with every process it started');
    expect(big.structured).toMatchObject({ interrupted: true, limit: 'memory' });
    await host.close();
  });

  it('runs in the background: the ID at once, BashOutput the status and new output, KillShell ends it', async () => {
    const sandbox = new ScriptedSandbox().script('npm run dev', {
      untilKilled: true,
      stdout: 'listening on 3000\nready\n',
      stderr: 'deprecation\n',
    });
    const { call, host } = await world(sandbox);
    const started = await call('Bash', { command: 'npm run dev', run_in_background: true });
    const id = started.structured.backgroundTaskId as string;
    expect(started.text).toBe(`Command running in background with ID: ${id}`);
    expect(started.structured).toEqual({ stdout: '', stderr: '', interrupted: false, backgroundTaskId: id });
    const out = await call('BashOutput', { bash_id: id });
    expect(out.text).toBe('<status>running</status>\n\n<stdout>\nlistening on 3000\nready\n</stdout>\n\n<stderr>\ndeprecation\n</stderr>');
    expect(out.structured).toMatchObject({ shellId: id, status: 'running', exitCode: null, stdoutLines: 2, stderrLines: 1 });
    expect(Value.Check(BashOutputValue, out.structured)).toBe(true);
    expect((await call('BashOutput', { bash_id: id })).structured).toMatchObject({ status: 'running', stdout: '', stderr: '' });
    const killed = await call('KillShell', { shell_id: id });
    expect(killed.text).toBe(`Successfully killed shell: ${id}`);
    expect(killed.structured).toMatchObject({
      message: `Successfully killed shell: ${id}`,
      shell_id: id,
      status: 'killed',
      exitCode: null,
    });
    expect(Value.Check(KillShellValue, killed.structured)).toBe(true);
    const after = await call('BashOutput', { bash_id: id });
    expect(after.structured).toMatchObject({ status: 'killed', exitCode: null });
    await host.close();
  });

  it('BashOutput of a shell that ended by itself shows its exit code; KillShell says it had already ended', async () => {
    const { call, host } = await world(new ScriptedSandbox().script('make', { exitCode: 2, stderr: 'no rule\n' }));
    const id = (await call('Bash', { command: 'make', run_in_background: true })).structured.backgroundTaskId as string;
    const out = await call('BashOutput', { bash_id: id });
    expect(out.text).toBe('<status>failed</status>\n\n<exit_code>2</exit_code>\n\n<stderr>\nno rule\n</stderr>');
    expect(out.structured).toMatchObject({ status: 'failed', exitCode: 2, timedOut: false, changedCount: 0 });
    const kill = await call('KillShell', { shell_id: id });
    expect(kill.text).toBe(`Shell ${id} had already ended (failed, exit code 2)`);
    expect(kill.structured).toMatchObject({ status: 'failed', exitCode: 2 });
    await host.close();
  });
});

describe("BashOutput's filter", () => {
  const lines = 'ok 1\nERROR one\nok 2\nerror two\n';

  async function background(stdout: string) {
    const w = await world(new ScriptedSandbox().script('run', { untilKilled: true, stdout }));
    const id = (await w.call('Bash', { command: 'run', run_in_background: true })).structured.backgroundTaskId as string;
    return { ...w, id };
  }

  it('keeps the matching lines only (a leading (?i) ignores case) and names the pattern', async () => {
    const { call, id, host } = await background(lines);
    const r = await call('BashOutput', { bash_id: id, filter: '(?i)^error' });
    expect(r.structured).toMatchObject({ stdout: 'ERROR one\nerror two\n', stdoutLines: 2, filterPattern: '(?i)^error' });
    await host.close();
  });

  it('refuses a filter that is not a regular expression before the output is taken, so nothing is lost', async () => {
    const { call, id, host } = await background(lines);
    const bad = await call('BashOutput', { bash_id: id, filter: 'error(' });
    expect(bad.isError).toBe(true);
    expect(bad.structured.error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(bad.structured.error.message).toMatch(/^filter: not a valid JavaScript regular expression/);
    expect((await call('BashOutput', { bash_id: id })).structured.stdout).toBe(lines);
    await host.close();
  });

  it('a filter that backtracks without end is stopped by its budget: the output comes back unfiltered, and the server kept serving', async () => {
    const { call, id, host } = await background(`${'a'.repeat(40)}\n`);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = performance.now();
    // A backreference keeps V8 from its linear engine: this runs for ever on 40 a's.
    const r = await call('BashOutput', { bash_id: id, filter: '^(a|a)*\\1b' });
    clearInterval(timer);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(ticks).toBeGreaterThan(10); // the event loop turned while the worker ran
    expect(r.isError).toBe(false);
    expect(r.structured.stdout).toBe(`${'a'.repeat(40)}\n`);
    expect(r.text).toContain('the filter ran past its 1500 ms budget');
    await host.close();
  });
});

describe('refusals', () => {
  it("carry the gate's codes with Claude Code's field names", async () => {
    const { call, host } = await world();
    const cases: [string, Record<string, unknown>, string, RegExp?][] = [
      ['Bash', { command: 'ls', timeout: 600_001 }, 'INVALID_INPUT', /timeout/],
      ['Bash', { cmd: 'ls' }, 'INVALID_INPUT'],
      ['Bash', { command: '' }, 'INVALID_INPUT'],
      ['BashOutput', { bash_id: 'run-nope' }, 'NOT_FOUND', /run-nope/],
      ['BashOutput', { bash_id: '../x' }, 'INVALID_INPUT', /bash_id/],
      ['KillShell', { shell_id: 'run-nope' }, 'NOT_FOUND'],
    ];
    for (const [tool, args, code, message] of cases) {
      const r = await call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(r.structured.error.code, `${tool} ${JSON.stringify(args)}`).toBe(code);
      if (message) expect(r.structured.error.message).toMatch(message);
      expect(r.structured.error.message).not.toMatch(/\brunId\b|timeoutMs/);
    }
    await host.close();
  });

  it('BACKEND_UNAVAILABLE where no sandbox can run: nothing runs, and the answer says why and what to do', async () => {
    const sandbox = new ScriptedSandbox({ cause: 'bubblewrap (bwrap) is not installed', fix: 'apt-get install bubblewrap' });
    const { call, host } = await world(sandbox);
    const r = await call('Bash', { command: 'touch pwned' });
    expect(r.structured.error.code).toBe('BACKEND_UNAVAILABLE');
    expect(r.text).toContain('bubblewrap (bwrap) is not installed');
    expect(r.text).toContain('apt-get install bubblewrap');
    expect(sandbox.started).toEqual([]);
    await host.close();
  });

  it('each call is one gated call: the run log holds a tool_call record per Bash, BashOutput and KillShell, and an exec record per command', async () => {
    const { call, host } = await world(new ScriptedSandbox().script('serve', { untilKilled: true }));
    await call('Bash', { command: 'echo hi' });
    const id = (await call('Bash', { command: 'serve', run_in_background: true })).structured.backgroundTaskId as string;
    await call('BashOutput', { bash_id: id });
    await call('KillShell', { shell_id: id });
    await new Promise((r) => setTimeout(r, 10));
    const events = host.events().filter((e) => e.conversation === 'cc');
    const tools = events.filter((e) => e.type === 'tool_call').map((e) => (e.data as { tool: string }).tool);
    expect(tools).toEqual(['exec', 'exec', 'exec_output', 'exec_kill']);
    expect(events.filter((e) => e.type === 'exec')).toHaveLength(2);
    await host.close();
  });
});
