/**
 * The lander's checks run in the kernel sandbox over the candidate: a submitted script that
 * reads the user's files or opens a socket at landing reaches nothing, the check still runs the
 * agent's code against its dependencies, its timeout ends everything it started, the landing
 * report names each check with its exit code and duration, and where no sandbox can run the
 * check fails without running. Skips where bubblewrap cannot run (except the last case).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { ScriptedSandbox } from '../../src/ports/scripted-sandbox.js';
import { makeTempRepo } from '../host/temp-repo.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping the sandboxed lander checks: ${support.cause}; ${support.fix}`);

const manifest = {
  roles: [{ name: 'agent', tools: ['read', 'write', 'commit', 'submit'], share: ['node_modules'] }],
};
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(checks: unknown[], options: { sandbox?: ScriptedSandbox } = {}) {
  const repo = makeTempRepo({ 'README.md': '# r\n', '.gitignore': 'node_modules/\n' });
  cleanups.push(() => repo.cleanup());
  mkdirSync(join(repo.dir, 'node_modules/dep'), { recursive: true });
  writeFileSync(join(repo.dir, 'node_modules/dep/index.txt'), 'dependency\n');
  const secret = join(repo.dir, '..', 'ssh-key');
  writeFileSync(secret, 'PRIVATE KEY\n');
  const host = await createHost({ repo: repo.dir, manifest, settings: { lander: { checks } }, ...options });
  cleanups.push(() => host.close());
  return { repo, host, secret };
}

async function submit(host: Host, files: Record<string, string>): Promise<string> {
  await host.prepare({ conversation: 'a' });
  for (const [path, content] of Object.entries(files)) expect((await host.gate.call('a', 'write', { path, content })).ok).toBe(true);
  expect((await host.gate.call('a', 'commit', { message: 'work' })).ok).toBe(true);
  const submitted = await host.gate.call('a', 'submit', { divergence: 'None' });
  return (submitted as { value: { submissionId: string } }).value.submissionId;
}

describe.skipIf(!support.available)('lander checks in the sandbox', () => {
  it("a submitted test that reads the user's key or opens a socket gets nothing; the failure names the check", async () => {
    const { repo, host, secret } = await world([{ command: 'sh test.sh', name: 'unit' }]);
    let accepted = 0;
    const server = createServer((socket) => {
      accepted++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const port = (server.address() as AddressInfo).port;
    const connect = `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>console.log('socket open')).on('error',e=>console.log('socket',e.code))"`;
    const id = await submit(host, {
      'test.sh': `cat ${secret} ${repo.dir}/.git/config 2>&1; ls /root 2>&1; ${connect}; cat /proc/net/dev | tail -n +3 | cut -d: -f1; pwd; cat node_modules/dep/index.txt; exit 7\n`,
    });
    const report = await host.lander.run();
    expect(report.failed).toEqual([id]);
    const [input] = host.messages('a');
    expect(input!.body).toMatchObject({ reason: 'CHECK_FAILED', check: 'unit', exitCode: 7 });
    const output = String(input!.body.output);
    expect(output).not.toContain('PRIVATE KEY');
    expect(output).not.toContain('[core]');
    expect(output).toContain('/worktrees/a\ndependency\n');
    expect(output).toMatch(/\n\s*lo\n/);
    expect(output).toContain('socket ECONNREFUSED');
    expect(accepted).toBe(0);
  });

  it('a check that outlives its timeout ends with everything it started', async () => {
    const { host } = await world([{ command: 'sh slow.sh', name: 'slow', timeout: 1 }]);
    const id = await submit(host, { 'slow.sh': '(setsid sleep 60 &); nohup sleep 60 & echo started; sleep 60\n' });
    const report = await host.lander.run();
    expect(report.failed).toEqual([id]);
    const [input] = host.messages('a');
    expect(input!.body).toMatchObject({ reason: 'CHECK_TIMED_OUT', check: 'slow', exitCode: null, timedOut: true });
    expect(String(input!.body.output)).toContain('started');
  });

  it('a landing report names each check with its exit code and duration, and the run log records each in the sandbox', async () => {
    const { repo, host } = await world(['true', { command: 'sh -c "test -f a.txt"', name: 'has-a' }]);
    const id = await submit(host, { 'a.txt': 'A\n' });
    expect((await host.lander.run()).landed).toEqual([id]);
    expect(repo.git('show', 'main:a.txt')).toBe('A');
    const report = host.messages('a').find((m) => m.kind === 'report');
    const checks = (report!.body as { checks: { name: string; exitCode: number; durationMs: number }[] }).checks;
    expect(checks.map((c) => [c.name, c.exitCode])).toEqual([
      ['true', 0],
      ['has-a', 0],
    ]);
    for (const c of checks) expect(c.durationMs).toBeGreaterThanOrEqual(0);
    const records = host.events().filter((e) => e.type === 'exec' && (e.data as { tag: string }).tag === 'lander.check');
    expect(records.map((r) => (r.data as { sandboxed?: boolean }).sandboxed)).toEqual([true, true]);
  });
});

describe('lander checks where no sandbox can run', () => {
  it('fail without running, saying why and how to fix it; main does not move', async () => {
    const sandbox = new ScriptedSandbox({ cause: 'bubblewrap (bwrap) is not installed', fix: 'apt-get install bubblewrap' });
    const { repo, host } = await world(['true'], { sandbox });
    const before = repo.git('rev-parse', 'main');
    const id = await submit(host, { 'a.txt': 'A\n' });
    expect((await host.lander.run()).failed).toEqual([id]);
    expect(repo.git('rev-parse', 'main')).toBe(before);
    const [input] = host.messages('a');
    expect(input!.body).toMatchObject({ reason: 'CHECK_FAILED', check: 'true', exitCode: null });
    expect(String(input!.body.output)).toContain('bubblewrap (bwrap) is not installed');
    expect(String(input!.body.output)).toContain('never run unconfined');
    expect(sandbox.started).toEqual([]);
  });
});
