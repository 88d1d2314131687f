/**
 * The manifest as code sees it: camelCase, defaults filled in, every rule already checked.
 * (`gatefs.yaml` uses snake_case keys; see `schema.ts` for the file form.)
 */
import type { CheckSpec } from '../ports/index.js';

/** The agent tool names a role may declare (docs/ARCHITECTURE.md § Tools, results and error codes). */
export const TOOL_NAMES = [
  'read',
  'grep',
  'list',
  'edit',
  'write',
  'delete',
  'move',
  'request_files',
  'diff',
  'commit',
  'submit',
  'messages',
  'exec',
  'exec_output',
  'exec_kill',
  'check',
  'checkpoint',
  'rollback',
  'handoff',
  'end',
  'attach',
  'detach',
  'switch',
  'whereami',
] as const;

/** One agent tool name. */
type ToolName = (typeof TOOL_NAMES)[number];

/**
 * How a role's workspace is made (docs/ARCHITECTURE.md § Glossary, "backend": `shared`, `worktree`, `copy`,
 * `empty` — a confined folder of its own that starts empty, with no repository behind it).
 */
export type Backend = 'shared' | 'worktree' | 'copy' | 'empty';

/** What a backend promises: `confined` (a workspace of its own) for `worktree`, `copy` and `empty`, `none` for `shared`. */
export type Guarantee = 'none' | 'confined';

/** A mount: a relative path projected from the pinned snapshot, or an absolute host folder. */
export interface MountSpec {
  /** Normalized: no trailing '/', no '.' or '..' segments. Relative ('.campaign') or absolute ('/data/out'). */
  path: string;
  writable: boolean;
}

/** The progressive-disclosure policy: repository-relative literal paths, normalized. */
export interface DisclosurePolicy {
  /** Files present in the workspace from the start. */
  initialPaths: string[];
  /** Roots under which exact files may be requested with `request_files`. */
  allowedPaths: string[];
}

/** Artifact handoff limits of a role. */
interface ArtifactSettings {
  /** Hand back the work as a patch; default true for `worktree`, false otherwise. */
  autoPatch: boolean;
  /** Largest artifact file in bytes; default 1 MiB. */
  maxFileBytes: number;
  /** Most artifact files; default 32. */
  maxFiles: number;
}

/** One role of the manifest. */
export interface Role {
  name: string;
  /** How many times a conversation of this role may be visited; null = unlimited. */
  maxVisits: number | null;
  /** Declared tools, in manifest order, no duplicates. */
  tools: ToolName[];
  workspace: {
    backend: Backend;
    mounts: MountSpec[];
    progressiveDisclosure: DisclosurePolicy | null;
  };
  artifacts: ArtifactSettings;
  /** How this role's subagents are isolated by default (`subagents: { isolate }`; only `worktree` exists). */
  subagents: { isolate: 'worktree' };
  /** The limits of the role's commands (`exec:`; docs/ARCHITECTURE.md § Commands). */
  exec: ExecSettings;
  /**
   * Folders of the source checkout that git ignores and the role's workspace shows read-only at
   * the same place (`share:`, e.g. `node_modules`): repository-relative, normalized.
   */
  share: string[];
  /** The strongest mode the role's `attach` tool may take (`attach_mode:`; default `shared-read`). */
  attachMode: 'shared-read' | 'exclusive-write';
}

/** What a role's commands may do (`exec:`); every limit hit ends the command's whole process tree. */
export interface ExecSettings {
  /** True: the host's network; false (default): none but loopback. */
  network: boolean;
  /** Wall time per command (default 120 s, at most 600 s). */
  timeoutMs: number;
  /** Resident memory of the command's processes together (default 2 GiB). */
  memoryBytes: number;
  /** Processes at once (default 256). */
  processes: number;
  /** Bytes per output stream before the command is ended (default 1 MiB). */
  outputBytes: number;
  /** Names of the server's environment variables passed through (default PATH, LANG, TERM). */
  env: string[];
  /** True: a snapshot of the workspace is taken before each `exec` command (reason `exec`), so it can be rolled back; default false. */
  checkpoint: boolean;
}

/** An operator-declared check (`checks:`) an agent may run by name with the `check` tool. */
export interface CommandCheck {
  name: string;
  /** Program and arguments, split without a shell (or `argv:` as written). */
  argv: string[];
  timeoutMs: number;
  /** True: the agent's `paths` are passed after `--`; false: the check takes none. */
  paths: boolean;
  /** The command as written (`argv` joined by spaces when given as a list). */
  command: string;
}

/** How the lander lands work (docs/ARCHITECTURE.md § Lander), from settings or the manifest's `lander:` key. */
export interface LanderSettings {
  /** Checks run in order on each candidate; empty = none. */
  checks: CheckSpec[];
  /** The remote to fetch from and push to; null = land locally only. */
  push: string | null;
  /** The branch to land on; null = the integration checkout's current branch. */
  branch: string | null;
}

/**
 * How the tools' writes reach the disk (the manifest's `writes:` key). Every write is atomic
 * whatever this says: a temp file renamed over the name, so a reader sees the old or the new
 * bytes, never a mix, and a crash of gatefs itself loses nothing it reported done.
 */
export interface WritePolicy {
  /**
   * True: each change (write, edit, delete, move, and the copy-ups and records behind them) is
   * fsynced — the file before its rename, the folder after — before the tool reports ok, so it
   * survives an operating-system crash or power loss. False (the default): no fsync, as the MCP
   * reference server, editors and most tools write; such a crash within the system's writeback
   * delay (seconds) can lose the last changes.
   */
  fsync: boolean;
}

/** A loaded, validated manifest: at least one role, names unique. */
export interface Manifest {
  roles: Role[];
  /** The manifest's `lander:` settings; absent when the manifest has no `lander:` key. */
  lander?: LanderSettings;
  /** The manifest's `writes:` policy; absent means the default (`fsync: false`). */
  writes?: WritePolicy;
  /** The checks agents may run with `check` (`checks:`); empty when none are declared. */
  checks: CommandCheck[];
}
