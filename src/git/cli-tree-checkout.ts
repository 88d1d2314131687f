/**
 * `CliTreeCheckout`: the tree-checkout port (./tree-checkout.ts) on the git program, run through
 * the host-exec port (each command in the run log) and neutralised like every landing command
 * (./neutral-git-config.ts: no hooks, no fsmonitor, no global or system config, every filter and
 * diff driver the repository's config names emptied).
 *
 * The checkout is `git update-index --index-info` of the entries asked for into a private index
 * file (`GIT_INDEX_FILE`: the repository's own index is never read or written) — as fast as
 * `read-tree <commit>`, and able to leave out the names `read-tree` refuses for the whole tree
 * (`.GIT`, `git~1`) — and `git checkout-index --all --prefix`,
 * with the settings that change what a checkout writes pinned: links as links
 * (`core.symlinks`), modes as stored (`core.fileMode`), no end-of-line conversion from config
 * (`core.autocrlf`, `core.eol`), no sparse checkout, no case folding. What attributes in the
 * tree still change (`eol=crlf`, `ident`, `working-tree-encoding`) is found by `hashFiles`
 * (`git hash-object --no-filters`, outside any repository: `GIT_CEILING_DIRECTORIES`), which
 * the caller compares with the tree. FIFOs are made with `mkfifo` and the folder flushed with
 * `sync` (coreutils).
 */
import type { ExecResult, HostExec } from '../ports/index.js';
import { GitError, type GitContext } from './git-port.js';
import { NeutralGitRunner, commandFailure, failureDetail } from './neutral-git-runner.js';
import type { TreeCheckout, TreeListingEntry } from './tree-checkout.js';

/** How a `CliTreeCheckout` is made. */
interface CliTreeCheckoutOptions {
  /** The integration checkout (a host path): where read-tree runs. */
  repo: string;
  exec: HostExec;
  /** Per-command timeout (default 30 minutes: a checkout of a very large tree is slow). */
  timeoutMs?: number;
}

/** The settings that would make checkout-index write anything but the stored bytes, modes and links. */
const CHECKOUT_CONFIG = [
  ['core.symlinks', 'true'],
  ['core.fileMode', 'true'],
  ['core.autocrlf', 'false'],
  ['core.eol', 'lf'],
  ['core.safecrlf', 'false'],
  ['core.sparseCheckout', 'false'],
  ['core.sparseCheckoutCone', 'false'],
  ['index.sparse', 'false'],
  ['core.ignoreCase', 'false'],
  ['core.precomposeUnicode', 'false'],
  ['checkout.workers', '1'],
].flatMap(([key, value]) => ['-c', `${key}=${value}`]);

/** Paths per `mkfifo` command (well under any argv limit). */
const FIFOS_PER_COMMAND = 256;

/** The tree-checkout port on the git program (see the file comment). */
export class CliTreeCheckout implements TreeCheckout {
  private readonly repo: string;
  private readonly exec: HostExec;
  private readonly git: NeutralGitRunner;
  private readonly timeoutMs: number;

  constructor(options: CliTreeCheckoutOptions) {
    this.repo = options.repo;
    this.exec = options.exec;
    this.timeoutMs = options.timeoutMs ?? 1_800_000;
    this.git = new NeutralGitRunner(options.exec, this.timeoutMs);
  }

  async listTree(commit: string, context: GitContext, signal: AbortSignal): Promise<TreeListingEntry[]> {
    const s = this.git.refSession(this.repo, context, false);
    const r = await this.git.check(s, ['ls-tree', '-r', '-t', '-z', '--full-tree', commit], 'ls-tree', { signal });
    if (r.outputTruncated) throw new GitError('COMMAND_FAILED', 'ls-tree', 'the tree listing is longer than the output cap');
    return parseLsTreeZ(r.stdout);
  }

  async checkout(
    entries: readonly TreeListingEntry[],
    folder: string,
    indexFile: string,
    context: GitContext,
    signal: AbortSignal,
  ): Promise<void> {
    const base = await this.git.session(this.repo, context, false);
    const s = { ...base, env: { ...base.env, GIT_INDEX_FILE: indexFile } };
    await this.git.check(s, [...CHECKOUT_CONFIG, 'update-index', '-z', '--index-info'], 'update-index', {
      input: indexInfoZ(entries),
      signal,
    });
    const prefix = `${folder.replace(/\/+$/, '')}/`;
    await this.git.check(
      s,
      [...CHECKOUT_CONFIG, 'checkout-index', '--all', '--force', '--ignore-skip-worktree-bits', `--prefix=${prefix}`],
      'checkout-index',
      {
        signal,
      },
    );
  }

  async hashFiles(folder: string, paths: readonly string[], context: GitContext, signal: AbortSignal): Promise<string[]> {
    if (paths.length === 0) return [];
    if (paths.some((p) => p.includes('\n'))) throw new GitError('COMMAND_FAILED', 'hash-object', 'a path holds a newline');
    // Outside any repository: the ceiling is the folder's parent, so no config but the host's is read.
    const s = this.git.refSession(folder, context, true);
    const r = await this.git.check(s, ['hash-object', '--no-filters', '--stdin-paths'], 'hash-object', {
      input: `${paths.join('\n')}\n`,
      signal,
    });
    const oids = r.stdout.split('\n').filter((l) => l !== '');
    if (r.outputTruncated || oids.length !== paths.length) {
      throw new GitError('COMMAND_FAILED', 'hash-object', `printed ${oids.length} ids for ${paths.length} files`);
    }
    return oids;
  }

  async makeFifos(folder: string, paths: readonly string[], context: GitContext, signal: AbortSignal): Promise<void> {
    for (let i = 0; i < paths.length; i += FIFOS_PER_COMMAND) {
      const batch = paths.slice(i, i + FIFOS_PER_COMMAND).map((p) => `./${p}`);
      const r: ExecResult = await this.exec.run({
        argv: ['mkfifo', '-m', '644', '--', ...batch],
        cwd: folder,
        timeoutMs: this.timeoutMs,
        tag: context.tag,
        chain: context.chain,
        signal,
      });
      if (r.exitCode !== 0) throw new GitError('COMMAND_FAILED', 'mkfifo', failureDetail(r));
    }
  }

  /** `sync -f <folder>` (syncfs(2), coreutils 8.24+), else a plain `sync` (macOS, BSD). */
  async flush(folder: string, context: GitContext, signal: AbortSignal): Promise<void> {
    const run = (argv: string[]) =>
      this.exec.run({ argv, cwd: folder, timeoutMs: this.timeoutMs, tag: context.tag, chain: context.chain, signal });
    if ((await run(['sync', '-f', '.'])).exitCode === 0) return;
    const r = await run(['sync']);
    if (r.exitCode !== 0) throw new GitError('COMMAND_FAILED', 'sync', failureDetail(r));
  }
}

/** `entries` but folders as `update-index -z --index-info` reads them (`<mode> SP <oid> TAB <path> NUL` …). */
function indexInfoZ(entries: readonly TreeListingEntry[]): string {
  let out = '';
  for (const e of entries) if (e.mode !== '040000') out += `${e.mode} ${e.oid}\t${e.path}\0`;
  return out;
}

/** Parses `git ls-tree -z` output (`<mode> <type> <oid>\t<path>\0` …). Throws `COMMAND_FAILED` on anything else. */
function parseLsTreeZ(out: string): TreeListingEntry[] {
  const entries: TreeListingEntry[] = [];
  for (const record of out.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const head = tab < 0 ? [] : record.slice(0, tab).split(' ');
    if (head.length !== 3 || !/^[0-7]{6}$/.test(head[0]) || !/^[0-9a-f]{40,64}$/.test(head[2])) {
      throw commandFailure('ls-tree', {
        exitCode: 0,
        signal: null,
        stdout: '',
        stderr: `unexpected line '${record.slice(0, 80)}'`,
        timedOut: false,
        durationMs: 0,
      });
    }
    entries.push({ mode: head[0], oid: head[2], path: record.slice(tab + 1) });
  }
  return entries;
}
