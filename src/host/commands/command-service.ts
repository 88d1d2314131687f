/**
 * `CommandService`: one conversation's commands (`CommandRequests` of tools/command-requests.ts)
 * over the sandbox port (docs/ARCHITECTURE.md § Commands). It builds the sandbox plan from the
 * workspace (sandbox-plan.ts), applies the role's limits, runs in the foreground or as one of at
 * most `MAX_BACKGROUND_RUNS` background runs, turns the scans into `changed` paths, parses a
 * check's diagnostics, and appends one `exec` record per command to the run log (the command,
 * its folder, how it ended, the count of changed paths; never its output).
 *
 * Runs are kept per conversation in `CommandRuns`, so a release and the host's close end every
 * run of the conversation first, and a release also ends the runs of this process that show the
 * released workspace attached (their folder is about to be removed; a binding's holder in
 * another process keeps its run until it ends, seeing the folder go).
 *
 * A command's sandbox is planned when it starts, from the bindings at that moment: a `switch`,
 * `attach` or `detach` while it runs changes only the commands started after it. A command
 * naming no folder starts in the active workspace's anchor (`CommandTarget.defaultCwd`); a folder
 * the sandbox does not show (an attached `copy` workspace) answers `OUTSIDE_MOUNTS`, nothing run.
 *
 * With the role's `exec: { checkpoint: true }`, a snapshot of the workspace is taken before each
 * `exec` command starts (`CommandTarget.checkpoint`); its id is in the answer (`checkpoint`), and a
 * snapshot that cannot be taken stops the command before it runs.
 */
import type { BackgroundValue, ChangedPath, CheckValue, CommandRequests, ExecValue, RunOutputValue } from '../../../tools/index.js';
import { ToolFailure } from '../../../tools/index.js';
import type { CommandCheck, ExecSettings } from '../../manifest/index.js';
import type { IdSource, RunningCommand, Sandbox, SandboxPlan, SandboxRun } from '../../ports/index.js';
import { SandboxUnavailableError } from '../../ports/index.js';
import type { StateStore } from '../../state/index.js';
import { parseDiagnostics } from './diagnostics.js';
import { withKeptChanges, type KeptChanges } from './overlay-changes.js';

/** Background runs one conversation may have at once. */
export const MAX_BACKGROUND_RUNS = 4;
/** Bytes of each stream's tail an answer carries (about what Claude Code's Bash shows). */
export const ANSWER_KEEP_BYTES = 30_000;
/** Changed paths an answer lists (`changedCount` counts them all). */
export const MAX_CHANGED = 200;
/** Characters of a command its checkpoint's label keeps. */
const CHECKPOINT_LABEL_COMMAND_CHARS = 80;
/** Ended background runs kept for a last `exec_output`. */
const KEPT_ENDED = 16;

/** One run of a conversation: under way, or ended with its value. */
interface Run {
  readonly id: string;
  readonly command: RunningCommand;
  readonly ended: Promise<ExecValue>;
  value?: ExecValue;
  background: boolean;
  /** The workspaces of other conversations its sandbox shows (`/worktrees/<id>` binds). */
  readonly shows: ReadonlySet<string>;
}

/** Every run under way in this host, by conversation, so a release or close can end them. */
export class CommandRuns {
  private readonly byConversation = new Map<string, Map<string, Run>>();

  runsOf(conversation: string): Map<string, Run> {
    let runs = this.byConversation.get(conversation);
    if (!runs) this.byConversation.set(conversation, (runs = new Map()));
    return runs;
  }

  /** True while a run of `conversation` is under way. */
  isRunning(conversation: string): boolean {
    for (const run of this.byConversation.get(conversation)?.values() ?? []) if (run.value === undefined) return true;
    return false;
  }

  /**
   * Ends every run of `conversation` (whole process trees), and every run of another conversation
   * whose sandbox shows `conversation`'s workspace attached, and waits for them.
   */
  async stop(conversation: string): Promise<void> {
    const runs = this.byConversation.get(conversation);
    const holders = [...this.byConversation.entries()].flatMap(([c, map]) =>
      c === conversation ? [] : [...map.values()].filter((r) => r.value === undefined && r.shows.has(conversation)),
    );
    const ending = [...(runs?.values() ?? []), ...holders];
    for (const run of ending) run.command.kill();
    await Promise.all(ending.map((r) => r.ended.catch(() => undefined)));
    this.byConversation.delete(conversation);
  }

  /** Ends every run of every conversation. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.byConversation.keys()].map((c) => this.stop(c)));
  }
}

/** What the service takes of the host. */
export interface CommandParts {
  readonly sandbox: Sandbox;
  readonly store: Pick<StateStore, 'runLog'>;
  readonly ids: IdSource;
  readonly runs: CommandRuns;
  readonly checks: readonly CommandCheck[];
}

/** What the service knows of its conversation. */
export interface CommandTarget {
  readonly conversation: string;
  readonly chain?: readonly string[];
  readonly exec: ExecSettings;
  /** The sandbox plan for a command in `cwd` (a namespace folder); throws `SandboxUnavailableError` when none can be made. */
  plan(cwd: string): SandboxPlan | Promise<SandboxPlan>;
  /** Where a command naming no folder starts: the active workspace's anchor (absent: the own root). Read when it starts. */
  defaultCwd?(): string;
  /** A `copy` workspace: keeps what a command changed in its overlay (overlay-changes.ts). */
  keepChanges?(changes: NonNullable<SandboxRun['overlayChanges']>): Promise<KeptChanges>;
  /** True for an absolute namespace path the conversation can reach (a diagnostic's path). */
  reachable(path: string): boolean;
  /**
   * Called once a command over `plan` has ended (or could not start): takes away what the
   * sandbox left in the workspace for its own sake (the empty mount points bwrap made for
   * routed artifact folders). Never throws.
   */
  settle?(plan: SandboxPlan): Promise<void>;
  /**
   * Takes a snapshot of the workspace labelled `label` (reason `exec`) and answers its id; called
   * before each `exec` command when the role's `exec.checkpoint` is on. A throw stops the command.
   */
  checkpoint?(label: string): Promise<string>;
}

/** One conversation's commands (see the file comment). */
export class CommandService implements CommandRequests {
  private readonly root: string;

  constructor(
    private readonly parts: CommandParts,
    private readonly target: CommandTarget,
  ) {
    this.root = `/worktrees/${target.conversation}`;
  }

  async exec(request: { command: string; cwd?: string; timeoutMs?: number; background: boolean }): Promise<ExecValue | BackgroundValue> {
    const runs = this.parts.runs.runsOf(this.target.conversation);
    if (request.background && [...runs.values()].filter((r) => r.value === undefined && r.background).length >= MAX_BACKGROUND_RUNS) {
      throw new ToolFailure(
        'BUSY',
        `${MAX_BACKGROUND_RUNS} background commands are running already: end one with exec_kill or wait for one to end`,
      );
    }
    const timeoutMs = Math.min(request.timeoutMs ?? this.target.exec.timeoutMs, this.target.exec.timeoutMs);
    const checkpoint = await this.checkpointBefore(request.command);
    const cwd = request.cwd ?? this.target.defaultCwd?.() ?? this.root;
    const run = await this.start({ shell: request.command }, cwd, timeoutMs, request.command, request.background);
    const taken = checkpoint === undefined ? {} : { checkpoint };
    if (!request.background) return { ...(await run.ended), ...taken };
    return { runId: run.id, ...taken };
  }

  /**
   * The snapshot taken before a command when the role asks for one (`exec.checkpoint`): its id, or
   * undefined when none is asked for. Labelled `before exec: <the command, cut to 80 characters>`.
   * Throws what taking it throws (the command then does not run); `BACKEND_UNAVAILABLE` when the
   * role asks for one and this workspace takes none.
   */
  private async checkpointBefore(command: string): Promise<string | undefined> {
    if (!this.target.exec.checkpoint) return undefined;
    if (!this.target.checkpoint) {
      throw new ToolFailure(
        'BACKEND_UNAVAILABLE',
        'the role takes a snapshot before each command (exec: { checkpoint: true }), and this workspace takes none: nothing ran',
      );
    }
    // One line of printable text, like a label the agent gives (control characters become spaces).
    const oneLine = command.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
    const cut = oneLine.length > CHECKPOINT_LABEL_COMMAND_CHARS ? `${oneLine.slice(0, CHECKPOINT_LABEL_COMMAND_CHARS - 1)}…` : oneLine;
    return this.target.checkpoint(`before exec: ${cut}`);
  }

  async output(runId: string, waitMs: number): Promise<RunOutputValue> {
    const run = this.runOf(runId);
    if (run.value === undefined && waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([run.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    }
    return this.answer(run);
  }

  async kill(runId: string): Promise<RunOutputValue> {
    const run = this.runOf(runId);
    run.command.kill();
    await run.ended;
    return this.answer(run);
  }

  async check(name: string, paths: readonly string[]): Promise<CheckValue> {
    const check = this.parts.checks.find((c) => c.name === name);
    if (!check) {
      const declared = this.parts.checks.map((c) => c.name);
      throw new ToolFailure(
        'NOT_FOUND',
        declared.length === 0
          ? `no check named '${name}': gatefs.yaml declares no checks (checks:)`
          : `no check named '${name}'; the checks are ${declared.join(', ')}`,
      );
    }
    if (paths.length > 0 && !check.paths) throw new ToolFailure('INVALID_INPUT', `paths: the check '${name}' takes no paths`);
    const argv = paths.length > 0 ? [...check.argv, '--', ...paths.map((p) => this.shown(p))] : check.argv;
    const timeoutMs = Math.min(check.timeoutMs, this.target.exec.timeoutMs);
    const run = await this.start({ argv }, this.root, timeoutMs, check.command, false, `check ${name}`);
    const value = await run.ended;
    const diagnostics = parseDiagnostics(
      { stdout: value.stdout, stderr: value.stderr },
      { cwd: this.root, root: this.root, reachable: (p) => this.target.reachable(p) },
    );
    return { ...value, name, diagnostics };
  }

  /** Starts a command and records it; `ended` resolves with its value once it is over. */
  private async start(
    command: { shell: string } | { argv: readonly string[] },
    cwd: string,
    timeoutMs: number,
    shown: string,
    background: boolean,
    tag = 'agent.exec',
  ): Promise<Run> {
    const { exec, conversation } = this.target;
    let running: RunningCommand;
    const plan = await this.target.plan(cwd);
    if (!showsFolder(plan, cwd)) {
      await this.target.settle?.(plan);
      throw new ToolFailure(
        'OUTSIDE_MOUNTS',
        `'${cwd}' is not shown to commands (an attached copy workspace, or a workspace the sandbox leaves out): name a folder of your own workspace, an attached worktree or /home as cwd; nothing ran`,
        cwd,
      );
    }
    try {
      running = await this.parts.sandbox.start({
        command,
        plan,
        limits: {
          timeoutMs,
          memoryBytes: exec.memoryBytes,
          processes: exec.processes,
          outputBytes: exec.outputBytes,
          keepBytes: ANSWER_KEEP_BYTES,
        },
        tag,
        chain: this.target.chain ?? [conversation],
      });
    } catch (e) {
      await this.target.settle?.(plan);
      if (e instanceof SandboxUnavailableError) {
        throw new ToolFailure(
          'BACKEND_UNAVAILABLE',
          `${e.message}. Nothing ran (commands never run unconfined); gatefs doctor says what works here`,
        );
      }
      throw e;
    }
    const id = this.parts.ids.next('run');
    const runs = this.parts.runs.runsOf(conversation);
    const run: Run = {
      id,
      command: running,
      background,
      shows: shownWorkspaces(plan, conversation),
      ended: running.done.then(async (done) => {
        await this.target.settle?.(plan);
        const kept = done.overlayChanges && this.target.keepChanges ? await this.target.keepChanges(done.overlayChanges) : undefined;
        const result = kept ? withKeptChanges(done, kept) : done;
        const value = this.valueOf(result, kept?.notKept);
        run.value = value;
        this.record(shown, cwd, result, value, tag);
        if (!background) runs.delete(id);
        else this.trimEnded(runs);
        return value;
      }),
    };
    runs.set(id, run);
    return run;
  }

  private runOf(runId: string): Run {
    const run = this.parts.runs.runsOf(this.target.conversation).get(runId);
    if (!run?.background) throw new ToolFailure('NOT_FOUND', `no background command '${runId}' in this conversation`);
    return run;
  }

  private answer(run: Run): RunOutputValue {
    const fresh = run.command.takeOutput();
    const base = { runId: run.id, stdout: fresh.stdout, stderr: fresh.stderr, truncated: fresh.truncated };
    if (run.value === undefined) return { ...base, state: 'running' };
    return { ...base, state: 'ended', result: { ...run.value, stdout: fresh.stdout, stderr: fresh.stderr, truncated: fresh.truncated } };
  }

  private trimEnded(runs: Map<string, Run>): void {
    const ended = [...runs.values()].filter((r) => r.value !== undefined);
    for (const r of ended.slice(0, Math.max(0, ended.length - KEPT_ENDED))) runs.delete(r.id);
  }

  /** The agent's view of a run: the tails, and the changed paths from the scans. */
  private valueOf(result: SandboxRun, notKept: readonly { path: string; code: string; message: string }[] = []): ExecValue {
    const changed = result.scan ? changedPaths(result.scan.before, result.scan.after) : [];
    return {
      exitCode: result.exitCode,
      ...(result.signal ? { signal: result.signal } : {}),
      timedOut: result.timedOut,
      ...(result.limit ? { limit: result.limit } : {}),
      durationMs: result.durationMs,
      stdout: result.stdout,
      stderr: result.stderr,
      truncated: result.stdoutTruncated || result.stderrTruncated,
      changed: changed.slice(0, MAX_CHANGED).map((c) => ({ path: this.shown(c.path), status: c.status })),
      changedCount: changed.length,
      ...(notKept.length > 0
        ? { notKept: notKept.slice(0, MAX_CHANGED).map((n) => ({ path: n.path, code: n.code, message: n.message })) }
        : {}),
    };
  }

  /** A namespace path as answers show it: workspace-relative inside the workspace, absolute elsewhere. */
  private shown(path: string): string {
    if (path === this.root) return '.';
    return path.startsWith(`${this.root}/`) ? path.slice(this.root.length + 1) : path;
  }

  private record(command: string, cwd: string, result: SandboxRun, value: ExecValue, tag: string): void {
    this.parts.store.runLog.append({
      type: 'exec',
      conversation: this.target.conversation,
      data: {
        tag,
        chain: [...(this.target.chain ?? [this.target.conversation])],
        argv: ['/bin/sh', '-c', command.length > 2000 ? `${command.slice(0, 2000)}…` : command],
        cwd,
        exitCode: result.exitCode,
        signal: result.signal ?? null,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
        sandboxed: true,
        ...(result.limit ? { limit: result.limit } : {}),
        changed: value.changedCount,
      },
    });
  }
}

/** True when the sandbox of `plan` shows folder `path`: inside a folder bound or the overlay, not inside a cover. */
export function showsFolder(plan: SandboxPlan, path: string): boolean {
  const inside = (at: string) => path === at || path.startsWith(`${at}/`);
  if (plan.hidden.some(inside) || plan.binds.some((b) => b.host === '' && inside(b.at))) return false;
  return (plan.overlay !== undefined && inside(plan.overlay.at)) || plan.binds.some((b) => b.host !== '' && inside(b.at));
}

/** The other conversations' workspaces a plan shows (binds at `/worktrees/<id>`). */
function shownWorkspaces(plan: SandboxPlan, conversation: string): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const b of plan.binds) {
    const m = /^\/worktrees\/([^/]+)$/.exec(b.at);
    if (m && m[1] !== conversation) ids.add(m[1]!);
  }
  return ids;
}

/** What changed between two scans: files and links added, modified (type, size, mtime or inode) or deleted; folders left out. Sorted by path. */
export function changedPaths(
  before: ReadonlyMap<string, { type: string; size: number; mtime: string; inode: number }>,
  after: ReadonlyMap<string, { type: string; size: number; mtime: string; inode: number }>,
): ChangedPath[] {
  const out: ChangedPath[] = [];
  for (const [path, now] of after) {
    if (now.type === 'd') continue;
    const then = before.get(path);
    if (!then || then.type === 'd') out.push({ path, status: 'added' });
    else if (then.type !== now.type || then.size !== now.size || then.mtime !== now.mtime || then.inode !== now.inode)
      out.push({ path, status: 'modified' });
  }
  for (const [path, then] of before) {
    if (then.type === 'd') continue;
    const now = after.get(path);
    if (!now || now.type === 'd') out.push({ path, status: 'deleted' });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
