/**
 * `HttpReadiness`: an HTTP session of `gatefs serve --http --allow-new` on a conversation whose
 * workspace is being prepared. The session opens at once (its `initialize` does not wait), the
 * preparation runs in the background (shared by every session that asked for it), and tool
 * calls wait for it and for the conversation's shared occupancy holder
 * (`ConversationOccupants`), with progress notifications (`createWaitingMcpServer`).
 *
 * A preparation that failed answers every call of this session with `WORKSPACE_NOT_READY`
 * naming its code (a new session prepares again); occupancy refused by another live holder is
 * `OCCUPIED` and tried again on the next call. Messages name no host path (the server log has the
 * whole line).
 */
import type { Host, WorkspaceStatus } from '../../host/composition/index.js';
import type { ToolDescriptor } from '../../../tools/index.js';
import { codeOf } from '../../../vfs/index.js';
import { isWorkspaceError } from '../../workspace-error.js';
import type { Session, Readiness, ReadinessSource } from '../protocol/index.js';

/** One session's wait for a workspace being prepared (see the file comment). */
export class HttpReadiness implements ReadinessSource {
  private session?: Session;
  private status?: WorkspaceStatus;
  private running?: Promise<Readiness>;
  phase: string;

  constructor(
    private readonly host: Host,
    private readonly conversation: string,
    private readonly preparation: Promise<WorkspaceStatus>,
    private readonly occupy: () => Promise<Session>,
    private readonly log: (line: string) => void,
    private readonly role?: string,
  ) {
    this.phase = `preparing the workspace of "${conversation}"`;
  }

  get isReady(): boolean {
    return this.session !== undefined;
  }

  /** The conversation of the session's URL. */
  get conversationId(): string {
    return this.conversation;
  }

  /** True once this session took its share of the conversation's occupancy (so its end gives it back). */
  get holdsOccupancy(): boolean {
    return this.session !== undefined;
  }

  async tools(): Promise<ToolDescriptor[]> {
    if (this.isReady) return this.host.gate.tools(this.conversation);
    return this.host.declaredTools(this.conversation, this.role);
  }

  ready(): Promise<Readiness> {
    if (this.session && this.status) return Promise.resolve(this.outcome(this.status, this.session));
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<Readiness> {
    let status: WorkspaceStatus;
    try {
      status = this.status ??= await this.preparation;
    } catch (e) {
      this.phase = 'failed';
      const code = codeOf(e) ?? 'an unexpected error';
      const details = preparationFacts(e);
      const facts = Object.entries(details)
        .filter(([k]) => k !== 'cause')
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      const message = `the workspace of "${this.conversation}" could not be prepared (${code})${facts ? ` (${facts})` : ''}; the server log says why; open a new session to try again`;
      return { ok: false, error: { code: 'WORKSPACE_NOT_READY', message, details }, cause: e };
    }
    try {
      this.phase = `occupying the workspace of "${this.conversation}"`;
      this.session = await this.occupy();
      this.phase = 'ready';
      this.log(`holds conversation ${this.conversation} (holder ${this.session.holder})`);
      return this.outcome(status, this.session);
    } catch (e) {
      const code = codeOf(e) ?? 'an unexpected error';
      const occupied = isWorkspaceError(e, 'OCCUPIED');
      const message = occupied
        ? `another live session holds the workspace of "${this.conversation}" (${code}); the next call tries again`
        : `the workspace of "${this.conversation}" cannot be occupied now (${code}); the next call tries again`;
      return { ok: false, error: { code: occupied ? 'OCCUPIED' : 'WORKSPACE_NOT_READY', message }, cause: e };
    }
  }

  private outcome(status: WorkspaceStatus, session: Session): Readiness {
    return { ok: true, host: this.host, conversation: this.conversation, status, holder: session.holder };
  }
}

/**
 * The facts of a failed preparation an HTTP client may read (no host path: the client did not
 * write the server's command line): its code, and the reason, backend, manifest key, line and the
 * value it got when the error names them.
 */
function preparationFacts(e: unknown): Record<string, unknown> {
  const data = (e as { data?: Record<string, unknown> } | null)?.data ?? {};
  const facts: Record<string, unknown> = { cause: codeOf(e) ?? 'ERROR' };
  for (const key of ['reason', 'backend', 'keyPath', 'line', 'role', 'ref'])
    if ((typeof data[key] === 'string' && data[key] !== '') || typeof data[key] === 'number') facts[key] = data[key];
  return facts;
}
