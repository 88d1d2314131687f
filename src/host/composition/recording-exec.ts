/**
 * `RecordingHostExec`: wraps a host-exec port so that the commands of gatefs's own tasks land in
 * the run log as `exec` events: task tag, conversation chain, argv, cwd relative to the
 * repository, exit code, signal, timeout flag and duration. Output bodies are never recorded.
 * Commands run before the run log exists (start-up probes) are held and written when `attach`
 * is called.
 *
 * What is recorded: the git commands of tasks that change a repository or the state (prepare,
 * release, recover, commit, submit, the lander, subagents, disclosure). What is not
 * (`UNRECORDED_TASKS`): the looks a host takes of itself (the start-up probes, `diff`), whose
 * answers are the host's business and whose non-zero exits are answers, not failures, and the
 * lower folders gatefs builds for itself in the background, whose `lower.*` records say how each
 * build went (the run log is what agents and operators did: the `tool_call` or the task's own
 * records say it); and nothing at all for a quiet host (`createHost({ quiet: true })`, a
 * read-only command).
 * An agent's sandboxed commands are recorded by the command service, not here.
 */
import { codeOf } from '../../../vfs/index.js';
import type { EventDraft } from '../../state/index.js';
import type { ExecRequest, ExecResult, HostExec } from '../../ports/index.js';

/** Where exec events go. */
interface ExecEventSink {
  append(draft: EventDraft): unknown;
}

/**
 * Task tags whose commands are not recorded (see the file comment): `start` (is this a
 * repository, what git tracks under the state directory), `diff` (the diff tool and `gatefs
 * diff`) and `lower-folder` (a copy workspace's cache of its pinned commit).
 */
export const UNRECORDED_TASKS: ReadonlySet<string> = new Set(['start', 'diff', 'lower-folder']);

/** A host-exec wrapper that writes one `exec` run-log event per recorded command (see the file comment). */
export class RecordingHostExec implements HostExec {
  private sink?: ExecEventSink;
  private readonly held: EventDraft<'exec'>[] = [];

  /**
   * @param inner the port that really runs commands
   * @param relativeCwd maps a cwd to the path shown in the log (relative to the repository)
   * @param recording `'tasks'`: every command but those of `UNRECORDED_TASKS`; `'none'`: nothing (a quiet host)
   */
  constructor(
    private readonly inner: HostExec,
    private readonly relativeCwd: (cwd: string) => string,
    private readonly recording: 'tasks' | 'none' = 'tasks',
  ) {}

  /** Starts writing to `sink`, first flushing the events held so far. */
  attach(sink: ExecEventSink): void {
    this.sink = sink;
    for (const draft of this.held.splice(0)) sink.append(draft);
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (this.recording === 'none' || UNRECORDED_TASKS.has(request.tag)) return this.inner.run(request);
    let result: ExecResult | undefined;
    let failure: unknown;
    try {
      result = await this.inner.run(request);
      return result;
    } catch (e) {
      failure = e;
      throw e;
    } finally {
      this.record({
        type: 'exec',
        conversation: request.chain.length > 0 ? request.chain[request.chain.length - 1] : null,
        data: {
          tag: request.tag,
          chain: [...request.chain],
          argv: [...request.argv],
          cwd: this.relativeCwd(request.cwd),
          exitCode: result?.exitCode ?? null,
          signal: result?.signal ?? null,
          timedOut: result?.timedOut ?? false,
          durationMs: result ? Math.round(result.durationMs) : null,
          ...(failure ? { error: codeOf(failure) ?? 'ERROR' } : {}),
        },
      });
    }
  }

  private record(draft: EventDraft<'exec'>): void {
    if (this.sink) this.sink.append(draft);
    else this.held.push(draft);
  }
}
