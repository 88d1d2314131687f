/**
 * `WorkspaceReadiness`: what `gatefs serve` over stdio does in the background while it already
 * answers the client: open the host, choose the conversation (a fixed id, or
 * `--conversation auto`'s choice), prepare its workspace when it has none, and occupy it for
 * this session. Tool calls wait for it (`ready`); `tools/list` waits only for the host and the
 * conversation (`opened`), then lists the role's tools.
 *
 * A step that fails is not final: the next call that needs it runs it again (a workspace another
 * window held may be free by then; a manifest fixed on disk is not re-read, the host is kept).
 * A failure is answered with a tool error whose text says what failed and what to do, and whose
 * `details` carry the facts (`options.explain`, `options.detailsOf`: the folder, the manifest's
 * file and line, the value it got): `OCCUPIED` when another live session holds the workspace,
 * else `WORKSPACE_NOT_READY`.
 */
import type { Host, WorkspaceStatus } from '../../host/composition/index.js';
import type { ToolDescriptor, ToolError } from '../../../tools/index.js';
import { isWorkspaceError } from '../../workspace-error.js';
import { codeOf } from '../../../vfs/index.js';
import { clientNameOf, ensureWorkspace, openSession, type Session, type Readiness, type ReadinessSource } from '../protocol/index.js';
import { describeFailure } from '../text/index.js';

/**
 * The conversation to serve: an id, or how to choose one once the host is open (`resumed`: it
 * continues the workspace of an earlier, closed client window).
 */
type ConversationChoice = string | ((host: Host) => { conversation: string; note?: string; resumed?: boolean });

/** How many uncommitted files the resume notice names. */
const NOTICE_NAMES = 5;

/** What `WorkspaceReadiness` is given. */
interface ReadinessOptions {
  /** Opens the host; called once it is needed, again only after it failed. */
  openHost(): Promise<Host>;
  conversation: ConversationChoice;
  /** The role of a workspace this session prepares (default: the manifest's first role). */
  role?: string;
  /** The run of a workspace this session prepares (default: `default`). */
  run?: string;
  /** The agent identity of a workspace this session prepares (default: its role's name). */
  agent?: string;
  /** The occupancy holder of this session. */
  holder: string;
  /** The client's name from its initialize (`clientInfo.name`), when known: recorded with the holder. */
  client?: () => string | undefined;
  /** One-line notes for the operator (stderr). */
  log: (line: string) => void;
  /** A failure as the client reads it: what is wrong (the folder, file:line, the value it got) and what to do. */
  explain: (e: unknown) => string;
  /** The facts of a failure, for the tool error's `details` (the folder, file, line, got). */
  detailsOf?: (e: unknown) => Record<string, unknown>;
}

/** The host is open and the conversation known. */
interface Opened {
  host: Host;
  conversation: string;
}

const STOPPING = new Error('the server is stopping');

/** The outcome of a step not started because the server stops. */
function stopping(): Readiness {
  return { ok: false, error: { code: 'WORKSPACE_NOT_READY', message: 'the gatefs server is stopping' }, cause: STOPPING, stopped: true };
}

/** The background work of one stdio session (see the file comment). */
export class WorkspaceReadiness implements ReadinessSource {
  private host?: Host;
  private conversation?: string;
  private status?: WorkspaceStatus;
  private session?: Session;
  private opening?: Promise<Opened>;
  private running?: Promise<Readiness>;
  private closed = false;
  private last?: Readiness;
  private resumed = false;
  /** The resume notice: undefined until looked for, null when there is none or it was given. */
  private notice?: string | null;
  /** What the session waits for now, for progress messages. */
  phase = 'starting';

  constructor(private readonly options: ReadinessOptions) {}

  /** The conversation, once known (a fixed id at once). */
  get conversationId(): string | undefined {
    return this.conversation ?? (typeof this.options.conversation === 'string' ? this.options.conversation : undefined);
  }

  /** True once the workspace exists (prepared now or earlier), held or not. */
  get isPrepared(): boolean {
    return this.status !== undefined;
  }

  /** True once the workspace is prepared and held by this session. */
  get isReady(): boolean {
    return this.session !== undefined;
  }

  /** Resolves once the host is open and the conversation chosen; rejects with why not (the next call tries again). */
  opened(): Promise<Opened> {
    if (this.host && this.conversation) return Promise.resolve({ host: this.host, conversation: this.conversation });
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  /** The tools to list: the role's, ready or not. Rejects as `opened` does. */
  async tools(): Promise<ToolDescriptor[]> {
    const { host, conversation } = await this.opened();
    if (this.isReady) return host.gate.tools(conversation);
    return host.declaredTools(conversation, this.options.role);
  }

  /** Starts the work in the background (idempotent); its outcome is logged. */
  start(): void {
    void this.ready();
  }

  /** Resolves once the workspace is ready and held, or to why not; runs the missing steps again after a failure. */
  ready(): Promise<Readiness> {
    if (this.session && this.host && this.conversation && this.status)
      return Promise.resolve({
        ok: true,
        host: this.host,
        conversation: this.conversation,
        status: this.status,
        holder: this.options.holder,
      });
    this.running ??= this.run()
      .then((outcome) => (this.last = outcome))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Starts no more steps; resolves, once the work under way has finished, to the last outcome
   * (undefined when nothing was ever run).
   */
  async stop(): Promise<Readiness | undefined> {
    this.closed = true;
    await this.running;
    return this.last;
  }

  /** Waits for the work under way, then frees the workspace and closes the host. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running?.catch(() => undefined);
    await this.opening?.catch(() => undefined);
    await this.session?.close();
    this.session = undefined;
    await this.host?.close();
  }

  private async open(): Promise<Opened> {
    this.phase = 'opening the state directory';
    this.host ??= await this.options.openHost();
    if (!this.conversation) {
      const choice = this.options.conversation;
      if (typeof choice === 'string') this.conversation = choice;
      else {
        const chosen = choice(this.host);
        this.conversation = chosen.conversation;
        this.resumed = chosen.resumed === true;
        if (chosen.note) this.options.log(chosen.note);
      }
    }
    return { host: this.host, conversation: this.conversation };
  }

  private async run(): Promise<Readiness> {
    const { log, role, run, agent, holder } = this.options;
    let conversation = this.conversationId ?? 'this window';
    try {
      const { host } = await this.opened();
      conversation = this.conversation!;
      if (this.closed) return stopping();
      this.phase = `preparing the workspace of "${conversation}"`;
      const status = (this.status ??= await ensureWorkspace(host, conversation, {
        ...(role ? { role } : {}),
        ...(run ? { run } : {}),
        ...(agent ? { agent } : {}),
        onProgress: log,
      }));
      if (role && status.role !== role)
        log(`"${conversation}" already exists with role ${status.role}; --role ${role} applies to new conversations only`);
      this.phase = `occupying the workspace of "${conversation}"`;
      if (this.closed) return stopping();
      this.session = await openSession(host, conversation, holder, clientNameOf({ clientInfo: { name: this.options.client?.() } }));
      if (this.resumed && this.notice === undefined) {
        this.phase = `looking for uncommitted files in the workspace of "${conversation}"`;
        this.notice = await uncommittedNotice(host, conversation);
        if (this.notice) log(`the workspace of "${conversation}" continues a closed window's: ${this.notice}`);
      }
      this.phase = 'ready';
      log(`workspace of "${conversation}" ready (role ${status.role}, ${status.backend}); this session holds it`);
      if (status.confinement === 'lstat-fallback')
        log('WARNING: /proc/self/fd is not available: paths are confined by the weaker per-component lstat check');
      return { ok: true, host, conversation, status, holder };
    } catch (e) {
      return this.refused(e, conversation);
    }
  }

  /**
   * Once: the note for the agent when this session continues a closed window's workspace that
   * holds uncommitted files (how many, a few names, and that `diff` shows them), else undefined.
   */
  takeNotice(): string | undefined {
    const notice = this.notice ?? undefined;
    if (notice !== undefined) this.notice = null;
    return notice;
  }

  private refused(e: unknown, conversation: string): Readiness {
    this.phase = 'failed';
    const occupied = isWorkspaceError(e, 'OCCUPIED');
    this.options.log(
      occupied
        ? `conversation "${conversation}" is held by another live session (${describeFailure(e)}); tool calls answer OCCUPIED until it is free`
        : `the workspace of "${conversation}" is not ready: ${describeFailure(e)}; tool calls answer WORKSPACE_NOT_READY and try again`,
    );
    const why = this.options.explain(e);
    const error: ToolError = occupied
      ? { code: 'OCCUPIED', message: `another live MCP session holds the workspace of "${conversation}": ${why}` }
      : {
          code: 'WORKSPACE_NOT_READY',
          message: `the workspace of "${conversation}" could not be made ready (${codeOf(e) ?? 'an unexpected error'}): ${why}; the next call tries again`,
          ...(this.options.detailsOf ? { details: this.options.detailsOf(e) } : {}),
        };
    return { ok: false, error, cause: e };
  }
}

/**
 * The resume note for `conversation`'s workspace, or null when it holds no uncommitted files or
 * cannot say (a backend without a branch: `copy`, `shared`). Asks the workspace's own diff
 * against its last commit (`host.work().diff`, git through the host's neutral runner: no hook,
 * filter or fsmonitor of the repository runs).
 */
async function uncommittedNotice(host: Host, conversation: string): Promise<string | null> {
  let files: { path: string }[];
  try {
    files = (await host.work(conversation).diff({ base: 'head', maxPatchBytes: 0 })).files;
  } catch {
    return null;
  }
  if (files.length === 0) return null;
  const n = files.length;
  const names = files.slice(0, NOTICE_NAMES).map((f) => f.path);
  const more = n > names.length ? ` and ${n - names.length} more` : '';
  return (
    `this workspace continues the work of an earlier client window and holds ${n} uncommitted file${n === 1 ? '' : 's'} ` +
    `from before: ${names.join(', ')}${more}. The diff tool (base "head") shows them; keep, commit or undo them as the user wants.`
  );
}
