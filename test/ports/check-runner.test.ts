import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECK_OUTPUT_BYTES, checkOutput, ExecCheckRunner, type CheckSpec } from '../../src/ports/check-runner.js';
import { forbiddenHostExec } from '../../src/ports/host-exec.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';
import { ScriptedCheckRunner } from '../../src/ports/scripted-check-runner.js';
import { ScriptedHostExec } from '../../src/ports/scripted-host-exec.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir() {
  const d = mkdtempSync(join(tmpdir(), 'gatefs-check-'));
  dirs.push(d);
  return d;
}

function check(argv: string[], timeoutMs = 60_000, name = argv.join(' ')): CheckSpec {
  return { name, argv, timeoutMs, command: argv.join(' ') };
}

describe('ExecCheckRunner over NodeHostExec', () => {
  const runner = new ExecCheckRunner(new NodeHostExec());

  it('runs the argv in the checkout and reports a pass', async () => {
    const cwd = tempDir();
    const r = await runner.run(check(['sh', '-c', 'pwd; touch ran']), cwd, ['root', 'child']);
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, truncated: false });
    expect(r.output.trim().endsWith(cwd.split('/').pop()!)).toBe(true);
    expect(existsSync(join(cwd, 'ran'))).toBe(true);
  });

  it('reports a failure with its exit code, stdout then stderr', async () => {
    const r = await runner.run(check(['sh', '-c', 'echo compiling; echo "error: x is undefined" >&2; exit 2']), tempDir(), []);
    expect(r).toMatchObject({ exitCode: 2, timedOut: false, output: 'compiling\nerror: x is undefined\n', truncated: false });
  });

  it('keeps the end of a long output, marked as cut, within 8 KiB', async () => {
    const script = 'seq 1 100000; echo "FAILED: 3 tests" >&2; exit 1';
    const r = await runner.run(check(['sh', '-c', script]), tempDir(), []);
    expect(r.exitCode).toBe(1);
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(CHECK_OUTPUT_BYTES);
    expect(r.output.startsWith('…')).toBe(true);
    expect(r.output.endsWith('99999\n100000\nFAILED: 3 tests\n')).toBe(true);
  });

  it('a check that would sleep 30 s with a 1 s timeout ends, grandchildren included, as timed out', async () => {
    const cwd = tempDir();
    const started = performance.now();
    const r = await runner.run(check(['sh', '-c', 'sleep 30; touch late'], 1000), cwd, []);
    expect(r).toMatchObject({ timedOut: true, exitCode: null });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(existsSync(join(cwd, 'late'))).toBe(false);
  });

  it('a program that does not exist is a failed check naming it, not a throw', async () => {
    const r = await runner.run(check(['gatefs-no-such-check-program']), tempDir(), []);
    expect(r).toMatchObject({ exitCode: null, timedOut: false });
    expect(r.output).toContain('gatefs-no-such-check-program');
    expect(r.output).toContain('ENOENT');
  });

  it('any other exec refusal is thrown', async () => {
    await expect(new ExecCheckRunner(forbiddenHostExec).run(check(['true']), tempDir(), [])).rejects.toMatchObject({
      code: 'EXEC_FORBIDDEN',
    });
  });
});

describe('ExecCheckRunner: what it asks of the exec port', () => {
  it('tag lander.check, the chain, the timeout, the tail, a process group', async () => {
    const exec = new ScriptedHostExec().expect(['npm', 'test'], { exitCode: 1, stdout: 'out', stderr: 'err', durationMs: 7 });
    const r = await new ExecCheckRunner(exec).run(check(['npm', 'test'], 30_000, 'unit'), '/checkout', ['a', 'b']);
    expect(r).toEqual({ exitCode: 1, timedOut: false, durationMs: 7, output: 'out\nerr', truncated: false });
    expect(exec.calls[0]).toMatchObject({
      tag: 'lander.check',
      cwd: '/checkout',
      chain: ['a', 'b'],
      timeoutMs: 30_000,
      keep: 'tail',
      maxOutputBytes: CHECK_OUTPUT_BYTES,
      processGroup: true,
    });
  });
});

describe('checkOutput', () => {
  it('joins short streams unchanged', () => {
    expect(checkOutput('a\n', 'b\n')).toEqual({ output: 'a\nb\n', truncated: false });
    expect(checkOutput('', 'b')).toEqual({ output: 'b', truncated: false });
    expect(checkOutput('a', '', true)).toEqual({ output: 'a', truncated: true });
  });

  it('gives stderr at most half when both are long, more to whichever needs it, each cut from the front', () => {
    const { output, truncated } = checkOutput('o'.repeat(100), 'e'.repeat(100), false, 41);
    expect(truncated).toBe(true);
    expect(output).toBe(`…${'o'.repeat(17)}\n…${'e'.repeat(17)}`);
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(41);
    expect(checkOutput('short\n', 'e'.repeat(100), false, 41).output).toBe(`short\n…${'e'.repeat(31)}`);
    expect(checkOutput('o'.repeat(100), 'err', false, 41).output).toBe(`…${'o'.repeat(34)}\nerr`);
  });

  it('never starts a cut stream inside a UTF-8 character', () => {
    const { output } = checkOutput('é'.repeat(50), '', false, 10);
    expect(output).toBe(`…${'é'.repeat(3)}`);
  });
});

describe('ScriptedCheckRunner', () => {
  it('answers from per-name queues, passes unscripted checks, records every call', async () => {
    const runner = new ScriptedCheckRunner().script(
      'unit',
      { exitCode: 1, output: 'boom' },
      { exitCode: 0, output: 'ok', timedOut: false },
    );
    runner.script('slow', { exitCode: 0, output: 'tail', timedOut: true });
    const unit = check(['npm', 'test'], 1000, 'unit');
    expect(await runner.run(unit, '/w', ['c1'])).toEqual({ exitCode: 1, timedOut: false, durationMs: 0, output: 'boom', truncated: false });
    expect(await runner.run(unit, '/w', ['c1'])).toMatchObject({ exitCode: 0, output: 'ok' });
    expect(await runner.run(unit, '/w', ['c1'])).toMatchObject({ exitCode: 0, output: '' });
    expect(await runner.run(check(['x'], 1, 'slow'), '/v', [])).toMatchObject({ exitCode: null, timedOut: true, output: 'tail' });
    expect(await runner.run(check(['lint']), '/v', ['p', 'c'])).toMatchObject({ exitCode: 0, timedOut: false, output: '' });
    expect(runner.calls).toEqual([
      { name: 'unit', cwd: '/w', chain: ['c1'] },
      { name: 'unit', cwd: '/w', chain: ['c1'] },
      { name: 'unit', cwd: '/w', chain: ['c1'] },
      { name: 'slow', cwd: '/v', chain: [] },
      { name: 'lint', cwd: '/v', chain: ['p', 'c'] },
    ]);
  });
});
