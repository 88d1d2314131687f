/**
 * `ScriptedHostExec`: a host-exec fake for tests. It answers only the commands it was told to
 * expect, in any order, and fails loudly (`HostExecError` `UNEXPECTED_COMMAND`) on anything
 * else, so a test can pin down exactly which commands a component runs.
 */
import { HostExecError, type ExecRequest, type ExecResult, type HostExec } from './host-exec.js';

/** How an expected command answers: a partial result (defaults: exit 0, no output) or a function. */
type ScriptedAnswer = Partial<ExecResult> | ((request: ExecRequest) => Partial<ExecResult>);

interface Expectation {
  argv: readonly string[];
  answer: ScriptedAnswer;
  remaining: number;
}

/** A host-exec fake that answers only expected commands (see the file comment). */
export class ScriptedHostExec implements HostExec {
  private readonly expectations: Expectation[] = [];
  /** Every request received, in order (including unexpected ones). */
  readonly calls: ExecRequest[] = [];

  /** Expects `argv` exactly (`times` times, default 1) and answers with `answer`. */
  expect(argv: readonly string[], answer: ScriptedAnswer = {}, times = 1): this {
    this.expectations.push({ argv: [...argv], answer, remaining: times });
    return this;
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    this.calls.push(request);
    const match = this.expectations.find((e) => e.remaining > 0 && sameArgv(e.argv, request.argv));
    if (!match) throw new HostExecError('UNEXPECTED_COMMAND', request.argv, 'the script does not expect this command');
    match.remaining--;
    const partial = typeof match.answer === 'function' ? match.answer(request) : match.answer;
    return { exitCode: 0, signal: null, stdout: '', stderr: '', timedOut: false, durationMs: 0, ...partial };
  }

  /** The expected commands that have not run (as many times as expected) yet. */
  pending(): string[][] {
    return this.expectations.filter((e) => e.remaining > 0).map((e) => [...e.argv]);
  }

  /** Throws `EXPECTED_COMMAND_NOT_RUN` when an expected command never ran. */
  assertDone(): void {
    const left = this.pending();
    if (left.length > 0) {
      throw new HostExecError('EXPECTED_COMMAND_NOT_RUN', left[0], `expected but never run (${left.length} pending)`);
    }
  }
}

function sameArgv(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
