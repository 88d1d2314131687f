/**
 * The real sandbox port: a command sees only what its plan binds, every limit ends the whole
 * process tree with a named outcome, and the scans before and after report what it changed.
 * Skips with the reason where bubblewrap cannot run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import type { SandboxLimits, SandboxPlan } from '../../src/ports/sandbox.js';

const sandbox = new BubblewrapSandbox();
const support = await sandbox.probe();
const reason = support.available ? '' : `${support.cause}; ${support.fix}`;
if (!support.available) console.warn(`skipping the bubblewrap sandbox tests: ${reason}`);

const dir = mkdtempSync(join(tmpdir(), 'gatefs-bwrap-'));
const ws = join(dir, 'ws');
mkdirSync(ws);
writeFileSync(join(ws, 'a.txt'), 'A\n');
const outside = join(dir, 'outside');
mkdirSync(outside);
writeFileSync(join(outside, 'secret'), 'S\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = '/worktrees/c1';
const limits: SandboxLimits = { timeoutMs: 20_000, memoryBytes: 512 * 1024 ** 2, processes: 64, outputBytes: 1024 ** 2, keepBytes: 30_000 };
const plan = (extra: Partial<SandboxPlan> = {}): SandboxPlan => ({
  binds: [{ host: ws, at, writable: true }],
  hidden: [],
  cwd: at,
  network: false,
  env: { PATH: '/usr/bin:/bin' },
  scan: { roots: [at], prune: [] },
  ...extra,
});

async function run(shell: string, extra: Partial<SandboxPlan> = {}, lim: Partial<SandboxLimits> = {}) {
  const cmd = await sandbox.start({ command: { shell }, plan: plan(extra), limits: { ...limits, ...lim }, tag: 'test', chain: ['c1'] });
  return cmd.done;
}

describe.skipIf(!support.available)('the bubblewrap sandbox', () => {
  it('runs a shell line in the workspace at its namespace path and reports its output and exit code', async () => {
    const r = await run('pwd; cat a.txt; echo err >&2; exit 3');
    expect(r).toMatchObject({ exitCode: 3, timedOut: false, stdout: `${at}\nA\n`, stderr: 'err\n' });
  });

  it('reports the files a command added, modified and deleted', async () => {
    writeFileSync(join(ws, 'old.txt'), 'old');
    const r = await run('echo new > new.txt; echo more >> a.txt; rm old.txt');
    const before = r.scan!.before;
    const after = r.scan!.after;
    expect(after.has(`${at}/new.txt`)).toBe(true);
    expect(before.has(`${at}/old.txt`) && !after.has(`${at}/old.txt`)).toBe(true);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('A\nmore\n');
  });

  it('shows nothing of the host outside its binds', async () => {
    const r = await run(`cat ${outside}/secret; ls ${dir}; ls /root /home; cat /etc/shadow; echo $HOME`);
    expect(r.stdout).toBe('/tmp/home\n');
    expect(r.stderr).not.toContain('S\n');
  });

  it('has no network unless the plan allows it', async () => {
    const r = await run('cat /proc/net/dev | tail -n +3 | cut -d: -f1');
    expect(r.stdout.trim()).toBe('lo');
  });

  it('ends the whole process tree at the timeout', async () => {
    const r = await run('(sleep 30 &) ; sleep 30', {}, { timeoutMs: 500 });
    expect(r).toMatchObject({ exitCode: null, timedOut: true, signal: 'SIGKILL' });
    expect(r.durationMs).toBeLessThan(10_000);
  });

  it('ends a fork bomb with the processes limit', async () => {
    const r = await run('i=0; while [ $i -lt 500 ]; do sleep 20 & i=$((i+1)); done; wait', {}, { processes: 32 });
    // The watchdog ends it (always so for root, whom the kernel does not limit), or the kernel's
    // per-namespace limit refuses the fork first (an ordinary user): either way it does not run on.
    if (r.limit === undefined) expect(`${r.exitCode} ${r.stderr}`).toMatch(/^[1-9]\d* [\s\S]*fork/i);
    else expect(r).toMatchObject({ limit: 'processes', exitCode: null, signal: 'SIGKILL' });
    expect(r.durationMs).toBeLessThan(15_000);
  });

  it('ends a command that holds too much memory with the memory limit', async () => {
    const r = await run(
      `node -e 'const a=[];for(;;){a.push(Buffer.alloc(16*1024*1024,1))}'`,
      { env: { PATH: '/usr/bin:/bin:/usr/local/bin' } },
      { memoryBytes: 128 * 1024 ** 2 },
    );
    expect(r.limit).toBe('memory');
  });

  it('ends a command flooding its output with the output limit and keeps the tail', async () => {
    const r = await run('yes gatefs', {}, { outputBytes: 256 * 1024, keepBytes: 1000 });
    expect(r.limit).toBe('output');
    expect(r.stdout.length).toBeLessThanOrEqual(1000);
    expect(r.stdoutTruncated).toBe(true);
  });
});

describe.skipIf(!support.available)('what a command sees of the server', () => {
  it("keeps only the PATH entries the sandbox holds, and no host path in any process's command line", async () => {
    const r = await run('echo "$PATH"; cat /proc/1/cmdline | tr "\\0" " "; echo; cat /proc/*/cmdline 2>/dev/null | tr "\\0" " "', {
      env: { PATH: `/root/.cargo/bin:${dir}/node_modules/.bin:./node_modules/.bin:/usr/local/bin:/usr/bin:/bin:${at}/bin` },
    });
    expect(r.stdout.split('\n')[0]).toBe(`/usr/local/bin:/usr/bin:/bin:${at}/bin`);
    expect(r.stdout).not.toContain(dir);
  });
});

describe.skipIf(!support.available)('when bubblewrap cannot make the sandbox', () => {
  it('the probe says so, and a start that fails in bwrap itself is SandboxUnavailableError, never a command that exited 1', async () => {
    const fake = join(dir, 'fake-bwrap');
    writeFileSync(
      fake,
      '#!/bin/sh\ncase "$*" in *MAKE-BWRAP-FAIL*) echo "bwrap: Creating new namespace failed: No space left on device" >&2; exit 1;; esac\nexec /usr/bin/bwrap "$@"\n',
      { mode: 0o755 },
    );
    const flaky = new BubblewrapSandbox({ bwrap: fake });
    expect((await flaky.probe()).available).toBe(true);
    const started = flaky.start({ command: { shell: 'echo MAKE-BWRAP-FAIL' }, plan: plan(), limits, tag: 'test', chain: [] });
    await expect(started).rejects.toMatchObject({
      name: 'SandboxUnavailableError',
      message: expect.stringContaining('Creating new namespace failed'),
    });
    const broken = new BubblewrapSandbox({ bwrap: join(dir, 'missing-bwrap') });
    expect(await broken.probe()).toMatchObject({ available: false });
    writeFileSync(join(dir, 'failing-bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const refusing = await new BubblewrapSandbox({ bwrap: join(dir, 'failing-bwrap') }).probe();
    expect(refusing).toMatchObject({ available: false, cause: expect.stringContaining('setting up uid map: Permission denied') });
  });
});
