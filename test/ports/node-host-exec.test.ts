import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';

const base = { tag: 't', chain: [] as string[] };
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir() {
  const d = mkdtempSync(join(tmpdir(), 'gatefs-exec-'));
  dirs.push(d);
  return d;
}

describe('NodeHostExec', () => {
  it('passes argv as separate arguments, never through a shell', async () => {
    const cwd = tempDir();
    const exec = new NodeHostExec();
    const r = await exec.run({ ...base, argv: ['printf', '%s|', 'a b', '$(touch pwned)', '; touch pwned2'], cwd });
    expect(r).toMatchObject({ exitCode: 0, signal: null, timedOut: false, stdout: 'a b|$(touch pwned)|; touch pwned2|' });
    expect(existsSync(join(cwd, 'pwned'))).toBe(false);
    expect(existsSync(join(cwd, 'pwned2'))).toBe(false);
  });

  it('reports a non-zero exit, stderr, the working folder, extra env and stdin', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'here.txt'), 'x');
    const exec = new NodeHostExec();
    const r = await exec.run({
      ...base,
      argv: ['sh', '-c', 'cat; ls; echo "$GATEFS_T" >&2; exit 3'],
      cwd,
      env: { GATEFS_T: 'val' },
      input: 'from stdin\n',
    });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('from stdin\nhere.txt\n');
    expect(r.stderr).toBe('val\n');
    expect(r.durationMs).toBeGreaterThan(0);
  });

  it('kills a command that outlives its timeout', async () => {
    const exec = new NodeHostExec();
    const r = await exec.run({ ...base, argv: ['sleep', '30'], cwd: tempDir(), timeoutMs: 200 });
    expect(r).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
  });

  it('caps output and says it did', async () => {
    const exec = new NodeHostExec({ maxOutputBytes: 1000 });
    const r = await exec.run({ ...base, argv: ['head', '-c', '100000', '/dev/zero'], cwd: tempDir() });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.length).toBe(1000);
    expect(r.outputTruncated).toBe(true);
  });

  it('throws a typed SPAWN_FAILED for a program that does not exist', async () => {
    const exec = new NodeHostExec();
    await expect(exec.run({ ...base, argv: ['gatefs-no-such-program-x'], cwd: tempDir() })).rejects.toMatchObject({
      name: 'HostExecError',
      code: 'SPAWN_FAILED',
    });
    await expect(exec.run({ ...base, argv: [], cwd: tempDir() })).rejects.toMatchObject({ code: 'SPAWN_FAILED' });
  });

  it("keeps the tail of a long stream with keep: 'tail', the head by default, under the request's own cap", async () => {
    const exec = new NodeHostExec({ maxOutputBytes: 1 << 20 });
    const script = 'for i in $(seq 1 5000); do echo "line $i"; done; echo "last words" >&2';
    const tail = await exec.run({ ...base, argv: ['sh', '-c', script], cwd: tempDir(), keep: 'tail', maxOutputBytes: 30 });
    expect(tail.stdout).toBe('line 4998\nline 4999\nline 5000\n');
    expect(tail.stderr).toBe('last words\n');
    expect(tail.outputTruncated).toBe(true);
    const head = await exec.run({ ...base, argv: ['sh', '-c', script], cwd: tempDir(), maxOutputBytes: 14 });
    expect(head.stdout).toBe('line 1\nline 2\n');
    expect(head.outputTruncated).toBe(true);
  });

  it('a tail never starts with half a UTF-8 character', async () => {
    const exec = new NodeHostExec();
    // 'é' is two bytes: a 5-byte tail of 'éééé' would start inside a character.
    const r = await exec.run({ ...base, argv: ['printf', '%s', 'éééé'], cwd: tempDir(), keep: 'tail', maxOutputBytes: 5 });
    expect(r.stdout).toBe('éé');
    expect(r.outputTruncated).toBe(true);
  });

  it('with processGroup, a timeout ends the grandchildren too, and the result comes back', async () => {
    const exec = new NodeHostExec();
    const started = performance.now();
    // Without the group kill, `sleep` (a grandchild holding stdout) keeps the result waiting 30 s.
    const r = await exec.run({ ...base, argv: ['sh', '-c', 'sleep 30; echo done'], cwd: tempDir(), timeoutMs: 300, processGroup: true });
    expect(r).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL', stdout: '' });
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('with processGroup, a background process left by the program is killed when the program exits', async () => {
    const cwd = tempDir();
    const exec = new NodeHostExec();
    const r = await exec.run({ ...base, argv: ['sh', '-c', '(sleep 2; touch leftover) & echo started'], cwd, processGroup: true });
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'started\n' });
    await exec.run({ ...base, argv: ['sleep', '3'], cwd });
    expect(existsSync(join(cwd, 'leftover'))).toBe(false);
  });

  it('with processGroup, a descendant that left the group and holds the pipes does not keep the result waiting', async () => {
    const exec = new NodeHostExec();
    const started = performance.now();
    const r = await exec.run({
      ...base,
      argv: ['sh', '-c', 'setsid sleep 30 & sleep 30'],
      cwd: tempDir(),
      timeoutMs: 300,
      processGroup: true,
    });
    expect(r.timedOut).toBe(true);
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
