/**
 * `exec` and its background runs through a real host over a real repository: the command runs
 * in the conversation's workspace at its namespace path, what it writes is what the file tools
 * read, protected entries stay protected, shared dependency folders are read-only for both, and
 * every command leaves one run-log record without its output. Skips where bubblewrap cannot run.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping exec through the host: ${support.cause}; ${support.fix}`);

const tools = ['read', 'write', 'list', 'exec', 'exec_output', 'exec_kill'];
let repo: TempRepo;
let host: Host;
const root = '/worktrees/c1';

beforeAll(async () => {
  if (!support.available) return;
  repo = makeTempRepo({ 'src/a.txt': 'alpha\n', '.gitignore': 'node_modules/\n', 'gatefs.yaml': 'roles: []\n' });
  mkdirSync(join(repo.dir, 'node_modules/dep'), { recursive: true });
  writeFileSync(join(repo.dir, 'node_modules/dep/index.js'), 'module.exports = 1;\n');
  host = await createHost({
    repo: repo.dir,
    manifest: { roles: [{ name: 'agent', tools, share: ['node_modules'], exec: { timeout: 30 } }] },
  });
  await host.prepare({ conversation: 'c1' });
});
afterAll(async () => {
  await host?.close();
  repo?.cleanup();
});

const call = async (tool: string, args: unknown) => host.gate.call('c1', tool, args);
const value = async (tool: string, args: unknown) => {
  const r = await call(tool, args);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
  return r.value as Record<string, unknown>;
};

describe.skipIf(!support.available)('exec through the host', () => {
  it('runs in the workspace at its namespace path and sees its files', async () => {
    const v = await value('exec', { command: 'pwd; cat src/a.txt' });
    expect(v).toMatchObject({ exitCode: 0, timedOut: false, stdout: `${root}\nalpha\n`, changed: [], changedCount: 0 });
  });

  it('runs in a sub-folder given as cwd, relative or absolute', async () => {
    expect((await value('exec', { command: 'pwd', cwd: 'src' })).stdout).toBe(`${root}/src\n`);
    expect((await value('exec', { command: 'pwd', cwd: `${root}/src` })).stdout).toBe(`${root}/src\n`);
    expect(await call('exec', { command: 'pwd', cwd: 'src/a.txt' })).toMatchObject({ ok: false, error: { code: 'NOT_DIRECTORY' } });
    expect(await call('exec', { command: 'pwd', cwd: '/etc' })).toMatchObject({ ok: false, error: { code: 'OUTSIDE_MOUNTS' } });
  });

  it('writes what the file tools then read, and reports the changed files', async () => {
    const v = await value('exec', { command: 'echo made > src/new.txt && echo more >> src/a.txt' });
    expect(v.changed).toEqual([
      { path: 'src/a.txt', status: 'modified' },
      { path: 'src/new.txt', status: 'added' },
    ]);
    expect(await value('read', { path: 'src/new.txt' })).toMatchObject({ content: expect.stringContaining('made') });
    await value('write', { path: 'src/from-tool.txt', content: 'tool\n' });
    expect((await value('exec', { command: 'cat src/from-tool.txt; rm src/new.txt' })).changed).toEqual([
      { path: 'src/new.txt', status: 'deleted' },
    ]);
  });

  it('shows the shared dependency folder read-only to commands and file tools alike', async () => {
    const v = await value('exec', { command: 'cat node_modules/dep/index.js; touch node_modules/x 2>&1; echo rc=$?' });
    expect(v.stdout).toContain('module.exports = 1;');
    expect(v.stdout).toMatch(/Read-only file system[\s\S]*rc=1/);
    expect(await value('read', { path: 'node_modules/dep/index.js' })).toMatchObject({
      content: expect.stringContaining('module.exports'),
    });
    expect(await call('write', { path: 'node_modules/dep/index.js', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
  });

  it('keeps the workspace .git and gatefs.yaml out of reach, and shows no state directory', async () => {
    const v = await value('exec', {
      command:
        'wc -c < .git; echo x > gatefs.yaml 2>/dev/null || echo yaml-refused; echo x > .git 2>/dev/null || echo git-refused; ls -a /worktrees; ls -a',
    });
    expect(v.stdout).toMatch(/^0\nyaml-refused\ngit-refused\n\.\n\.\.\nc1\n/);
    expect(v.stdout).not.toContain('.gatefs');
    expect(v.stdout).not.toContain(repo.dir);
    expect(readFileSync(join(repo.dir, 'gatefs.yaml'), 'utf8')).toBe('roles: []\n');
  });

  it('runs in the background, answers its output since the last call, and ends it on exec_kill', async () => {
    const started = await value('exec', { command: 'echo first; sleep 30; echo never', background: true });
    expect(started.runId).toMatch(/^run/);
    let out = await value('exec_output', { runId: started.runId, waitMs: 300 });
    for (let i = 0; i < 50 && out.stdout === ''; i++) out = await value('exec_output', { runId: started.runId, waitMs: 100 });
    expect(out).toMatchObject({ state: 'running', stdout: 'first\n' });
    const killed = await value('exec_kill', { runId: started.runId });
    expect(killed).toMatchObject({ state: 'ended', result: { exitCode: null, signal: 'SIGKILL' } });
    const quick = await value('exec', { command: 'echo done', background: true });
    expect(await value('exec_output', { runId: quick.runId, waitMs: 20_000 })).toMatchObject({
      state: 'ended',
      stdout: 'done\n',
      result: { exitCode: 0 },
    });
    expect(await call('exec_output', { runId: 'run-nope' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('appends one exec record per command, with the command and its end but never its output', async () => {
    await value('exec', { command: 'echo secret-output-text; exit 4' });
    const records = host.events().filter((e) => e.type === 'exec' && (e.data as { sandboxed?: boolean }).sandboxed);
    const last = records[records.length - 1]!;
    expect(last.data).toMatchObject({ argv: ['/bin/sh', '-c', 'echo secret-output-text; exit 4'], exitCode: 4, cwd: root, changed: 0 });
    expect(JSON.stringify(records)).not.toContain('secret-output-text\n');
  });
});
