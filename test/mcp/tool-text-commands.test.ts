/**
 * What an MCP client shows a model for the command tools under the default profile: the output
 * (stdout, then stderr under its heading), how the command ended in words, the files it changed,
 * a background run's id and how to read it, a check's diagnostics as `path:line:col` lines.
 */
import { describe, expect, it } from 'vitest';
import { toolResultText } from '../../src/mcp/text/tool-text.js';

const ended = {
  exitCode: 1,
  timedOut: false,
  durationMs: 812,
  stdout: 'FAIL src/a.test.ts\n',
  stderr: 'npm ERR! Test failed.\n',
  truncated: false,
  changed: [
    { path: 'coverage/lcov.info', status: 'added' },
    { path: 'src/a.ts', status: 'modified' },
  ],
  changedCount: 3,
};

describe('command tools as text', () => {
  it('exec: output, the exit code and duration, the changed files with how many more', () => {
    expect(toolResultText('exec', { ok: true, value: ended })).toBe(
      [
        'FAIL src/a.test.ts',
        'stderr:',
        'npm ERR! Test failed.',
        'exit code 1 after 812 ms',
        'changed 3 file(s):',
        'A coverage/lcov.info',
        'M src/a.ts',
        '(and 1 more)',
      ].join('\n'),
    );
  });

  it('exec: a timeout, a limit and a signal say so; refusals not kept are listed', () => {
    const base = { ...ended, stdout: '', stderr: '', changed: [], changedCount: 0, exitCode: null };
    expect(toolResultText('exec', { ok: true, value: { ...base, timedOut: true } })).toContain('timed out after 812 ms');
    expect(toolResultText('exec', { ok: true, value: { ...base, limit: 'memory' } })).toContain('ended at its memory limit');
    expect(toolResultText('exec', { ok: true, value: { ...base, signal: 'SIGKILL' } })).toBe('ended by SIGKILL after 812 ms');
    const notKept = { ...base, exitCode: 0, notKept: [{ path: '.git/hooks/x', code: 'PROTECTED_PATH', message: 'protected' }] };
    expect(toolResultText('exec', { ok: true, value: notKept })).toContain('not kept: .git/hooks/x (PROTECTED_PATH: protected)');
  });

  it('a background start names its run id and the tools that read and end it', () => {
    expect(toolResultText('exec', { ok: true, value: { runId: 'run-7' } })).toBe(
      'started in the background as run-7: read its output with exec_output, end it with exec_kill',
    );
    expect(
      toolResultText('exec_output', { ok: true, value: { runId: 'run-7', state: 'running', stdout: '', stderr: '', truncated: false } }),
    ).toBe('run run-7: running\n(no new output)');
    const done = {
      runId: 'run-7',
      state: 'ended',
      stdout: 'bye\n',
      stderr: '',
      truncated: false,
      result: { ...ended, stdout: 'bye\n', stderr: '' },
    };
    expect(toolResultText('exec_kill', { ok: true, value: done })).toMatch(
      /^run run-7: ended\nbye\nexit code 1 after 812 ms\nchanged 3 file/,
    );
  });

  it('check: the diagnostics as path:line:col lines, then the outcome', () => {
    const value = {
      ...ended,
      name: 'types',
      exitCode: 2,
      stdout: '',
      stderr: '',
      diagnostics: [{ path: 'src/a.ts', line: 3, column: 7, severity: 'error', message: 'TS2322: nope' }],
    };
    expect(toolResultText('check', { ok: true, value })).toMatch(
      /^check types: failed, 1 diagnostic\(s\)\nsrc\/a\.ts:3:7: error: TS2322: nope\n\nexit code 2/,
    );
  });
});
