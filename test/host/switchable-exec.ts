/**
 * Test support: a host-exec port whose behaviour a test can change mid-run — delegate to real
 * processes, hold a matching command until released, or refuse everything.
 */
import { HostExecError, type ExecRequest, type ExecResult, type HostExec } from '../../src/ports/host-exec.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';

export class SwitchableExec implements HostExec {
  private readonly real = new NodeHostExec();
  /** Every request, in order. */
  readonly seen: ExecRequest[] = [];
  /** When set, every command is refused (to prove nothing spawns). */
  forbidden = false;
  /** Rewrites a result after the real command ran (to simulate a failure after the fact). */
  after?: (request: ExecRequest, result: ExecResult) => ExecResult;
  private hold?: { match: (argv: readonly string[]) => boolean; gate: Promise<void>; reached: () => void };
  /** When set, a matching command is not run: it answers exit 128 with this stderr. */
  failing?: { match: (argv: readonly string[]) => boolean; stderr: string };

  /** Holds the next command matching `match` until the returned `release` is called. */
  holdNext(match: (argv: readonly string[]) => boolean): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let reached!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const reachedP = new Promise<void>((r) => (reached = r));
    this.hold = { match, gate, reached };
    return { reached: reachedP, release };
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    this.seen.push(request);
    if (this.forbidden) throw new HostExecError('EXEC_FORBIDDEN', request.argv, 'this test forbids commands now');
    const hold = this.hold;
    if (hold?.match(request.argv)) {
      this.hold = undefined;
      hold.reached();
      // A held command ends as a real one would when its request's signal aborts: killed.
      const killed = new Promise<'killed'>((resolve) => {
        if (request.signal?.aborted) resolve('killed');
        request.signal?.addEventListener('abort', () => resolve('killed'), { once: true });
      });
      if ((await Promise.race([hold.gate, killed])) === 'killed') {
        return { exitCode: null, signal: 'SIGKILL', stdout: '', stderr: '', timedOut: false, durationMs: 0 };
      }
    }
    if (this.failing?.match(request.argv)) {
      return { exitCode: 128, signal: null, stdout: '', stderr: this.failing.stderr, timedOut: false, durationMs: 0 };
    }
    const result = await this.real.run(request);
    return this.after ? this.after(request, result) : result;
  }
}
