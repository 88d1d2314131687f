/**
 * `NeutralGitRunner`: the one place gatefs runs the git program (an architecture rule keeps it
 * so), through the host-exec port with everything a repository could make git execute
 * neutralised (see neutral-git-config.ts): `CliGit`, `CliLandingGit`, `CliTreeCheckout` and the
 * demo's sample repository all run git here. A session reads the driver list of the folder it
 * runs in once (one `git config` process, which runs nothing), so config that only applies
 * there (`includeIf "gitdir:…"` or `"onbranch:…"`, an `include.path` naming a tracked file as it
 * is now) is seen, and every command of the session overrides it. A command that makes a new
 * checkout must therefore make it empty first (`worktree add --no-checkout`) and fill it in a
 * session read inside it: the driver list of the folder it was made from does not hold what
 * applies only to the new worktree's git dir or branch.
 *
 * A session in a worktree sets `GIT_CEILING_DIRECTORIES` to the worktree's parent folder: a
 * folder that is not (or no longer) a worktree is then an error instead of git finding an
 * enclosing repository (the state dir usually lives inside the user's checkout).
 */
import { dirname } from 'node:path';
import type { ExecRequest, ExecResult, HostExec } from '../ports/index.js';
import { GitError, type GitContext } from './git-port.js';
import {
  DRIVER_LIST_ARGS,
  NETWORK_CONFIG_ARGS,
  NETWORK_ENV,
  NEUTRAL_CONFIG_ARGS,
  NEUTRAL_ENV,
  TRANSPORT_PROGRAM_ARGS,
  driverOverrideEnv,
  repositoryTransportPrograms,
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
   * A session in `cwd` (a worktree when `isWorktree`). Reads the driver list there, and in each
   * worktree of `alsoIn`: folders a command of the session makes git work in too (`worktree
   * remove` runs `git status` inside the worktree it removes); one that cannot be read there
   * (gone, not a worktree) adds nothing, since git cannot work in it either. Throws
   * `GitError('COMMAND_FAILED')` when git cannot read the config in `cwd`.
   */
  async session(cwd: string, context: GitContext, isWorktree: boolean, alsoIn: readonly string[] = []): Promise<GitSession> {
    const base = this.refSession(cwd, context, isWorktree);
    const listings = [await this.driverListing(base, true)];
    for (const folder of alsoIn) listings.push(await this.driverListing(this.refSession(folder, context, true), false));
    return { ...base, env: { ...base.env, ...driverOverrideEnv(listings.join('\0')) } };
  }

  /** The driver list read in `s`'s folder (`DRIVER_LIST_ARGS`); a failure throws when `required`, else reads as none. */
  private async driverListing(s: GitSession, required: boolean): Promise<string> {
    const r = await this.run(s, DRIVER_LIST_ARGS);
    if (r.exitCode === 0) return r.stdout;
    if (r.exitCode !== 1 && required) throw commandFailure('config', r);
    return '';
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
  run(
    s: GitSession,
    args: readonly string[],
    extra: Pick<ExecRequest, 'input' | 'signal' | 'maxOutputBytes' | 'onStdout'> = {},
  ): Promise<ExecResult> {
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
    extra: Pick<ExecRequest, 'input' | 'signal' | 'maxOutputBytes' | 'onStdout'> = {},
  ): Promise<ExecResult> {
    const r = await this.run(s, args, extra);
    if (r.exitCode !== 0) throw commandFailure(operation, r);
    return r;
  }

  /**
   * Runs fetch or push (`args[0]`) in `cwd`: the user's global config kept, the repository's
   * hooks off (`NETWORK_CONFIG_ARGS`). First reads which transport programs the repository's
   * own config names (`TRANSPORT_PROGRAM_ARGS`; one `git config` process, which runs nothing):
   * when it names any, nothing runs and this throws `GitError('COMMAND_FAILED', args[0])`
   * naming them, since the remote's transport is the operator's to choose (their global config
   * or `GIT_SSH_COMMAND`), never the repository's. Also throws when that config cannot be read.
   */
  async network(cwd: string, args: readonly string[], context: GitContext): Promise<ExecResult> {
    const listing = await this.run(this.refSession(cwd, context, false), TRANSPORT_PROGRAM_ARGS);
    if (listing.exitCode !== 0 && listing.exitCode !== 1) throw commandFailure('config', listing);
    const named = repositoryTransportPrograms(listing.exitCode === 0 ? listing.stdout : '');
    if (named.length > 0) {
      const detail = `the repository's config names ${named.join(', ')}: a program git would run for the remote; set it in the operator's global config or environment instead`;
      throw new GitError('COMMAND_FAILED', args[0] ?? 'network', detail);
    }
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

/**
 * The failure of a command that reads refs: `NOT_A_GIT_REPOSITORY` when git found no
 * repository where it ran (a git dir without `HEAD`, a removed `.git`; every session runs with
 * `LC_ALL=C`, so the message is git's own), else `commandFailure`.
 */
export function refReadFailure(operation: string, r: ExecResult): GitError {
  if (/not a git repository/.test(r.stderr)) return new GitError('NOT_A_GIT_REPOSITORY', operation, failureDetail(r));
  return commandFailure(operation, r);
}
