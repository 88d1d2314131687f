/**
 * `NeutralGitRunner`: runs the git program through the host-exec port with everything a
 * repository could make git execute neutralised (see neutral-git-config.ts), for
 * `CliLandingGit`. A session reads the driver list of the folder it runs in once (one
 * `git config` process, which runs nothing) and every command of the session overrides it.
 *
 * A session in a worktree sets `GIT_CEILING_DIRECTORIES` to the worktree's parent folder: a
 * folder that is not (or no longer) a worktree is then an error instead of git finding an
 * enclosing repository (the state dir usually lives inside the user's checkout).
 */
import { dirname } from 'node:path';
import type { ExecRequest, ExecResult, HostExec } from '../ports/host-exec.js';
import { GitError, type GitContext } from './git-port.js';
import {
  DRIVER_LIST_ARGS,
  NETWORK_CONFIG_ARGS,
  NETWORK_ENV,
  NEUTRAL_CONFIG_ARGS,
  NEUTRAL_ENV,
  driverOverrideEnv,
} from './neutral-git-config.js';

/** Where a neutralised command runs, its environment (driver overrides included) and its caller. */
export interface GitSession {
  cwd: string;
  env: Readonly<Record<string, string>>;
  context: GitContext;
}

/** Runs neutralised git commands (see the file comment). */
export class NeutralGitRunner {
  constructor(
    private readonly exec: HostExec,
    private readonly timeoutMs: number,
  ) {}

  /**
   * A session in `cwd` (a worktree when `isWorktree`). Reads the driver list there. Throws
   * `GitError('COMMAND_FAILED')` when git cannot read the config.
   */
  async session(cwd: string, context: GitContext, isWorktree: boolean): Promise<GitSession> {
    const base = this.refSession(cwd, context, isWorktree);
    const r = await this.run(base, DRIVER_LIST_ARGS);
    if (r.exitCode !== 0 && r.exitCode !== 1) throw commandFailure('config', r);
    return { ...base, env: { ...base.env, ...driverOverrideEnv(r.exitCode === 0 ? r.stdout : '') } };
  }

  /**
   * A session in `cwd` for commands that only read or move refs and walk history (`show-ref`,
   * `symbolic-ref`, `rev-parse`, `merge-base`, `rev-list`, `update-ref`, `worktree list`):
   * they never run a filter, diff or merge driver, so the driver list is not read (one process
   * less). Hooks stay off as in every session (`core.hooksPath=/dev/null`). Never run a command
   * that reads or writes file content (checkout, merge, diff, add, status, read-tree) in it.
   */
  refSession(cwd: string, context: GitContext, isWorktree: boolean): GitSession {
    const ceiling: Record<string, string> = isWorktree ? { GIT_CEILING_DIRECTORIES: dirname(cwd) } : {};
    return { cwd, context, env: { ...NEUTRAL_ENV, GIT_CONFIG_COUNT: '0', ...ceiling } };
  }

  /**
   * Runs `git <neutral -c flags> <args>` in the session. A non-zero exit is a result. `extra`
   * adds to the request (standard input, an abort signal, an output cap).
   */
  run(s: GitSession, args: readonly string[], extra: Pick<ExecRequest, 'input' | 'signal' | 'maxOutputBytes'> = {}): Promise<ExecResult> {
    const { cwd, env, context } = s;
    return this.exec.run({
      argv: ['git', ...NEUTRAL_CONFIG_ARGS, ...args],
      cwd,
      env,
      timeoutMs: this.timeoutMs,
      tag: context.tag,
      chain: context.chain,
      ...extra,
    });
  }

  /** `run`, throwing `GitError('COMMAND_FAILED', operation)` on a non-zero exit. */
  async check(
    s: GitSession,
    args: readonly string[],
    operation: string,
    extra: Pick<ExecRequest, 'input' | 'signal' | 'maxOutputBytes'> = {},
  ): Promise<ExecResult> {
    const r = await this.run(s, args, extra);
    if (r.exitCode !== 0) throw commandFailure(operation, r);
    return r;
  }

  /** Runs fetch or push in `cwd`: the user's global config kept, the repository's hooks off. */
  network(cwd: string, args: readonly string[], context: GitContext): Promise<ExecResult> {
    const argv = ['git', ...NETWORK_CONFIG_ARGS, ...args];
    return this.exec.run({ argv, cwd, env: NETWORK_ENV, timeoutMs: this.timeoutMs, tag: context.tag, chain: context.chain });
  }
}

/** The first lines of a failed command's stderr (or why it ended), for a `GitError` detail. */
export function failureDetail(r: ExecResult): string {
  if (r.timedOut) return 'timed out';
  return r.stderr.trim().split('\n').slice(0, 3).join(' / ').slice(0, 400) || `exit ${r.exitCode ?? r.signal}`;
}

/** `GitError('COMMAND_FAILED', operation)` carrying `failureDetail(r)`. */
export function commandFailure(operation: string, r: ExecResult): GitError {
  return new GitError('COMMAND_FAILED', operation, failureDetail(r));
}
