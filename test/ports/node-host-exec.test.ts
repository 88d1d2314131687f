import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
