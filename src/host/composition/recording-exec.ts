/**
 * `RecordingHostExec`: wraps a host-exec port so that every command lands in the run log as an
 * `exec` event: task tag, conversation chain, argv, cwd relative to the repository, exit code,
 * signal, timeout flag and duration. Output bodies are never recorded. Commands run before the
 * run log exists (start-up probes) are held and written when `attach` is called.
 */
import { codeOf } from '../../../vfs/index.js';
import type { EventDraft } from '../../state/index.js';
import type { ExecRequest, ExecResult, HostExec } from '../../ports/index.js';

/** Where exec events go. */
interface ExecEventSink {
  append(draft: EventDraft): unknown;
}

/** A host-exec wrapper that writes one `exec` run-log event per command (see the file comment). */
export class RecordingHostExec implements HostExec {
  private sink?: ExecEventSink;
  private readonly held: EventDraft<'exec'>[] = [];

  /**
   * @param inner the port that really runs commands
   * @param relativeCwd maps a cwd to the path shown in the log (relative to the repository)
   */
  constructor(
    private readonly inner: HostExec,
    private readonly relativeCwd: (cwd: string) => string,
  ) {}

  /** Starts writing to `sink`, first flushing the events held so far. */
  attach(sink: ExecEventSink): void {
    this.sink = sink;
    for (const draft of this.held.splice(0)) sink.append(draft);
  }

  async run(request: ExecRequest): Promise<ExecResult> {
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
