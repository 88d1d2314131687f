/**
 * The sandbox port: runs one shell line in a kernel sandbox whose view of the disk is a
 * conversation's namespace and nothing more (docs/ARCHITECTURE.md § Commands). The host turns a
 * workspace and its role into a `SandboxPlan` (src/host/commands/sandbox-plan.ts); the port only
 * carries the plan out. `BubblewrapSandbox` (bubblewrap-sandbox.ts) is the real one;
 * `ScriptedSandbox` (scripted-sandbox.ts) answers from a script for the memory host and tests.
 *
 * Every path in a plan's `at`, `cwd`, `hidden` and `scan` fields is a sandbox path, which is the
 * namespace path itself (`/worktrees/<id>/src`): what a command prints names what the file tools
 * name. Host paths appear only in `host` fields and never leave the port.
 */

import { CodedError } from '../../vfs/index.js';

/** One folder or file of the host shown in the sandbox. */
export interface SandboxBind {
  /** The host path (a folder, or a file to cover with itself read-only); '' for an empty read-only file. */
  readonly host: string;
  /** Where the command sees it (a namespace path). */
  readonly at: string;
  readonly writable: boolean;
}

/**
 * A `copy` workspace's root as the command sees it: exactly the view gatefs's own overlay gives
 * the file tools (vfs/overlay-layer.ts), rebuilt per command as a kernel overlay: `upper` over
 * `lower` with `whiteouts` hidden in `lower` only, under a fresh per-command upper folder the
 * command writes to. Nothing the command does reaches `upper` or `lower`: the port reports what
 * it changed (`SandboxRun.overlayChanges`) and the host writes those changes through the
 * workspace's own namespace afterwards, so every change passes the same checks as a tool's.
 */
export interface SandboxOverlay {
  /** Where the command sees the workspace root (`/worktrees/<id>`). */
  readonly at: string;
  /** The workspace's upper folder (`<stateDir>/copies/<id>`): shown above everything; read-only to the command. */
  readonly upper: string;
  /** The tree under it: the pinned commit checked out (`<stateDir>/lowers/<id>/tree`) or the plain folder itself; never written. */
  readonly lower: string;
  /**
   * Paths (relative to the root) hidden in `lower` and everything below them: the overlay's
   * whiteouts, the state directory inside a plain folder. An entry `upper` holds at such a path
   * still shows (a folder deleted and made again shows only what `upper` holds), as in gatefs's overlay.
   */
  readonly whiteouts: readonly string[];
  /** Names at the top of `upper` the command never sees and the port never reports (the overlay's own record folder). */
  readonly reserved: readonly string[];
  /**
   * A host folder, on the file system of `upper`, the port keeps one folder per command in
   * (the kernel overlay's upper and work folders); each is removed when its command ends, and
   * what a process that died left is removed by the next command.
   */
  readonly scratch: string;
}

/** What the sandbox shows and how the command runs (see the file comment). */
export interface SandboxPlan {
  /** Binds in order: a later one may cover part of an earlier one (a read-only file inside a writable folder). */
  readonly binds: readonly SandboxBind[];
  readonly overlay?: SandboxOverlay;
  /** Sandbox paths covered by an empty read-only folder (the state dir inside a shared checkout, its `.git`). */
  readonly hidden: readonly string[];
  /** The working folder, a sandbox path inside one of the binds. */
  readonly cwd: string;
  /** True: the host's network; false: a network namespace of its own (loopback only). */
  readonly network: boolean;
  /** The command's environment, exactly (HOME and TMPDIR are the sandbox's own). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Folders whose files are listed before and after the command to report what changed
   * (`roots`), leaving out `prune` (read-only places inside them and `.git` names); absent: no report.
   */
  readonly scan?: { readonly roots: readonly string[]; readonly prune: readonly string[] };
  /** Bytes each of the sandbox's tmpfs folders (`/tmp`, `/dev/shm`) may hold; the port sets it to the memory limit. */
  readonly tmpfsBytes?: number;
}

/** Limits of one command; each hit ends the whole process tree and is named in `SandboxRun`. */
export interface SandboxLimits {
  readonly timeoutMs: number;
  /** Bytes of memory the command's processes may hold together. */
  readonly memoryBytes: number;
  /** Processes the command may run at once. */
  readonly processes: number;
  /** Bytes each of stdout and stderr may carry; past it the command is ended (`limit: 'output'`). */
  readonly outputBytes: number;
  /** Bytes of each stream's tail kept for the answer. */
  readonly keepBytes: number;
}

/** What a scan saw of one entry: type letter (`f`, `d`, `l`, other), size, mtime, inode. */
export interface ScanEntry {
  readonly type: string;
  readonly size: number;
  readonly mtime: string;
  readonly inode: number;
}

/** How a command ended. A failing, killed or limited command is a result, never a throw. */
export interface SandboxRun {
  /** The exit code; null when a signal or a limit ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it (`SIGKILL`, …), when one did. */
  readonly signal?: string;
  readonly timedOut: boolean;
  /** The limit that ended it, when one did (a timeout is `timedOut`). */
  readonly limit?: 'memory' | 'processes' | 'output';
  readonly durationMs: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  /** The scan before and after (sandbox path → entry); absent when the plan asked none or it could not be taken. */
  readonly scan?: { readonly before: ReadonlyMap<string, ScanEntry>; readonly after: ReadonlyMap<string, ScanEntry> };
  /**
   * For a plan with an overlay: what the command changed under `overlay.at`, parents before
   * what they hold (see `OverlayChange`). Absent for other plans.
   */
  readonly overlayChanges?: readonly OverlayChange[];
}

/**
 * One change a command made under a `copy` workspace's overlay, at a sandbox path. A list is in
 * walk order (a folder before what it holds), and folders whose entries are not listed keep them.
 *
 * - `file`: the file's bytes and whether its owner may execute it;
 * - `link`: a symbolic link; `place()` makes it in the workspace's upper folder (`SandboxOverlay.upper`)
 *   at `path`, reaching the parent folder without following a link, once the host has checked
 *   the path and made room (the file system's error when the name is taken: `EEXIST`);
 * - `folder`: a folder the command made or wrote into; `opaque`: it replaces whatever was there,
 *   so entries the workspace had in it that the list does not name are gone;
 * - `removed`: the entry at `path` and everything below it are gone;
 * - `unkept`: something the workspace cannot hold, never kept: `code` is what the host reports
 *   (`NOT_REGULAR_FILE` for a FIFO, socket or device, `BAD_NAME` for a name or link target that
 *   is not UTF-8, `TOO_LARGE` for a file past what the port reads back), `what` says it in words.
 */
export type OverlayChange =
  | { readonly kind: 'file'; readonly path: string; readonly bytes: Uint8Array; readonly executable: boolean }
  | { readonly kind: 'link'; readonly path: string; readonly target: string; place(): Promise<void> }
  | { readonly kind: 'folder'; readonly path: string; readonly opaque: boolean }
  | { readonly kind: 'removed'; readonly path: string }
  | { readonly kind: 'unkept'; readonly path: string; readonly code: string; readonly what: string };

/** A command under way: its output so far, its end, and a way to end it. */
export interface RunningCommand {
  /** What arrived on stdout and stderr since the last call (each within `keepBytes`, tail kept). */
  takeOutput(): { stdout: string; stderr: string; truncated: boolean };
  /** Resolves once the command and everything it started have ended. */
  readonly done: Promise<SandboxRun>;
  /** Ends the whole process tree now (SIGKILL); `done` then resolves with `signal: 'SIGKILL'`. */
  kill(): void;
}

/** What `probe` found: a sandbox that runs, or why none can. */
export type SandboxSupport =
  | { readonly available: true; readonly kind: 'bubblewrap' | 'scripted'; readonly version: string; readonly details: readonly string[] }
  | { readonly available: false; readonly cause: string; readonly fix: string; readonly details: readonly string[] };

/** One command to run (see `SandboxPlan`, `SandboxLimits`). */
export interface SandboxRequest {
  /** The shell line, run by `/bin/sh -c` inside the sandbox; or an argv run as is (checks). */
  readonly command: { readonly shell: string } | { readonly argv: readonly string[] };
  readonly plan: SandboxPlan;
  readonly limits: SandboxLimits;
  /** The run-log task tag and the caller's conversation chain, parents first. */
  readonly tag: string;
  readonly chain: readonly string[];
}

/** Runs commands in a kernel sandbox (see the file comment). */
export interface Sandbox {
  /** What this machine's sandbox can do; cached after the first call. */
  probe(): Promise<SandboxSupport>;
  /**
   * What `probe` found, once it has (never probing itself: no process runs); undefined before.
   * Optional: a port without it is reported as not yet probed.
   */
  known?(): SandboxSupport | undefined;
  /**
   * Starts `request`. Throws `SandboxUnavailableError` when no sandbox can run here (nothing
   * runs then, never unconfined).
   */
  start(request: SandboxRequest): Promise<RunningCommand>;
}

/** No sandbox can run here: `cause` says why, `fix` what to do. Nothing was run. */
export class SandboxUnavailableError extends CodedError<'BACKEND_UNAVAILABLE', { reason: string; fix: string }> {
  override readonly name = 'SandboxUnavailableError';

  constructor(reason: string, fix: string) {
    super('BACKEND_UNAVAILABLE', `no kernel sandbox can run here: ${reason}; ${fix}`, { reason, fix });
  }
}
