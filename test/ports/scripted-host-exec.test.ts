import { describe, expect, it } from 'vitest';
import { ScriptedHostExec } from '../../src/ports/scripted-host-exec.js';
import { forbiddenHostExec } from '../../src/ports/host-exec.js';

const req = (argv: string[]) => ({ argv, cwd: '/r', tag: 't', chain: ['a'] });

describe('ScriptedHostExec', () => {
  it('answers expected commands and fails on anything else', async () => {
    const exec = new ScriptedHostExec()
      .expect(['git', 'status'], { stdout: 'clean' })
      .expect(['git', 'fail'], { exitCode: 1, stderr: 'no' });
    expect(await exec.run(req(['git', 'fail']))).toMatchObject({ exitCode: 1, stderr: 'no' });
    expect(await exec.run(req(['git', 'status']))).toMatchObject({ exitCode: 0, stdout: 'clean', timedOut: false });
    await expect(exec.run(req(['git', 'status']))).rejects.toMatchObject({ code: 'UNEXPECTED_COMMAND' });
    await expect(exec.run(req(['git', 'status', '--porcelain']))).rejects.toMatchObject({ code: 'UNEXPECTED_COMMAND' });
    expect(exec.calls.map((c) => c.argv.join(' '))).toEqual(['git fail', 'git status', 'git status', 'git status --porcelain']);
    exec.assertDone();
  });

  it('says which expected command never ran, and answers from a function', async () => {
    const exec = new ScriptedHostExec().expect(['a'], (r) => ({ stdout: r.cwd }), 2).expect(['b']);
    expect((await exec.run(req(['a']))).stdout).toBe('/r');
    expect(() => exec.assertDone()).toThrow(expect.objectContaining({ code: 'EXPECTED_COMMAND_NOT_RUN' }));
    expect(exec.pending()).toEqual([['a'], ['b']]);
  });

  it('has a port that refuses every command', async () => {
    await expect(forbiddenHostExec.run(req(['git']))).rejects.toMatchObject({ code: 'EXEC_FORBIDDEN' });
  });
});
