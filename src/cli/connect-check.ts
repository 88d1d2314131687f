/**
 * Why a `gatefs serve` session cannot make its workspace ready, as a `WorkspaceProblem` the
 * client reads: `checkBeforeConnect` finds the causes that are cheap to know before the
 * initialize answer (a variable the client did not expand, a missing folder, a manifest that
 * does not load, a folder that is not a git repository for a worktree role), and `problemOf`
 * turns the error the background work met later into the same shape.
 *
 * The folder and the manifest file are named as the server's own command line named them: over
 * stdio the client wrote that command line, so they tell it nothing new (`hostPaths: false`
 * keeps them out for HTTP clients, which did not).
 *
 * `checkBeforeConnect` only looks at names on disk (`stat`, a `.git` entry at or above the
 * folder), and loads the manifest when there is one (the module the host loads anyway, so the
 * workspace is ready no later); it never runs git.
 */
import { dirname, relative } from 'node:path';
import type { WorkspaceProblem } from '../mcp/initialize/index.js';
import type { ManifestError } from '../manifest/index.js';
import { folderKind, isInGitWorkTree } from './repo-folder-check.js';
import { CodedError, codeOf } from '../../vfs/coded-error.js';
import type { GlobalFlags } from './global-flags.js';
import { remedyFor } from './remedy.js';

/** The command line's own words for the folders and the manifest (before resolution), and the role asked for. */
export interface ConnectArgs {
  repo?: string;
  manifest?: string;
  stateDir?: string;
  role?: string;
}

/** How `problemOf` may name things. */
interface ProblemContext {
  args: ConnectArgs;
  globals: Pick<GlobalFlags, 'repo'>;
  /** False over HTTP: no absolute folder or file in what the client reads. */
  hostPaths: boolean;
}

/** A `$VAR` or `${VAR}` an MCP client was meant to expand. */
const VARIABLE = /\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*/;

/**
 * The problem known before connecting, or null when none is: see the file comment. Resolves,
 * never rejects (a check that cannot decide says nothing; the background work will).
 */
export async function checkBeforeConnect(args: ConnectArgs, globals: GlobalFlags): Promise<WorkspaceProblem | null> {
  const context: ProblemContext = { args, globals, hostPaths: true };
  const unexpanded = unexpandedArg(args, globals);
  if (unexpanded) return unexpanded;
  const folder = folderProblem(globals.repo, context);
  if (folder) return folder;
  let backend = 'worktree';
  if (globals.manifest !== undefined) {
    try {
      const { loadManifest } = await import('../manifest/index.js');
      const manifest = loadManifest(globals.manifest);
      const role = manifest.roles.find((r) => r.name === args.role) ?? manifest.roles[0];
      backend = role?.workspace.backend ?? backend;
    } catch (e) {
      // A manifest mistake is the cause; anything else (a module that failed to load) is left to the host.
      return codeOf(e) === undefined ? null : problemOf(e, context);
    }
  }
  if (backend === 'worktree' && !isInGitWorkTree(globals.repo)) {
    return {
      summary: `the repository folder ${globals.repo} is not a git repository (no .git in it or above it), and the role uses backend worktree`,
      remedy: remedyFor('NOT_A_GIT_REPOSITORY')!,
      details: { cause: 'NOT_A_GIT_REPOSITORY', folder: globals.repo, backend },
    };
  }
  return null;
}

/**
 * A problem found before connecting that must stop the host from opening: a `--state-dir` or
 * `--manifest` holding a variable nobody expanded would otherwise be made or read as a literal
 * `${...}` folder. Its code is the problem's cause.
 */
export class ConnectProblemError extends CodedError<string, { readonly problem: WorkspaceProblem }> {
  override readonly name = 'ConnectProblemError';

  constructor(readonly problem: WorkspaceProblem) {
    super(problem.details.cause, problem.summary, { problem });
  }
}

/** True when `problem` must keep the host from opening (see `ConnectProblemError`). */
export function isBlocking(problem: WorkspaceProblem | null): problem is WorkspaceProblem {
  return problem?.details.cause === 'UNEXPANDED_VARIABLE';
}

/** `e` (what opening, choosing or preparing failed with) as a problem. */
export function problemOf(e: unknown, context: ProblemContext): WorkspaceProblem {
  if (e instanceof ConnectProblemError) return e.problem;
  const code = codeOf(e) ?? 'ERROR';
  const remedy = remedyFor(code) ?? "the gatefs server's log (its stderr) says why";
  if (isManifestError(e)) return manifestProblem(e, context, remedy);
  const data = (e as { data?: Record<string, unknown> } | null)?.data ?? {};
  if (code === 'NOT_A_GIT_REPOSITORY') {
    const missing = data.reason === 'MISSING_FOLDER' ? folderProblem(context.globals.repo, context) : null;
    if (missing) return unexpandedArg(context.args, context.globals) ?? missing;
    const backend = typeof data.backend === 'string' ? data.backend : undefined;
    return {
      summary: context.hostPaths
        ? `the repository folder ${context.globals.repo} is not a git repository${backend ? ` (backend ${backend})` : ''}`
        : `the repository folder is not a git repository${backend ? ` (backend ${backend})` : ''}`,
      remedy,
      details: { cause: code, ...(context.hostPaths ? { folder: context.globals.repo } : {}), ...(backend ? { backend } : {}) },
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return {
    summary: context.hostPaths ? message : code,
    remedy,
    details: { cause: code, ...(context.hostPaths ? { folder: context.globals.repo } : {}) },
  };
}

/**
 * True for a `ManifestError`, told by its name: the manifest's error module loads the VFS door,
 * which `early-serve.ts` must not wait for.
 */
function isManifestError(e: unknown): e is ManifestError {
  return e instanceof Error && e.name === 'ManifestError' && 'keyPath' in e;
}

function manifestProblem(e: ManifestError, { globals, hostPaths }: ProblemContext, remedy: string): WorkspaceProblem {
  const source = e.source === null ? null : hostPaths || !e.source.startsWith('/') ? e.source : relative(globals.repo, e.source);
  const where = source === null ? '' : `${source}${e.line === null ? '' : `:${e.line}`}: `;
  const got = e.got ?? (e.code === 'UNKNOWN_KEY' ? e.keyPath.split('.').pop() : null);
  return {
    summary: `${where}${e.keyPath === '' ? '' : `${e.keyPath}: `}${e.detail}`,
    remedy,
    details: {
      cause: e.code,
      ...(source === null ? {} : { file: source }),
      ...(e.line === null ? {} : { line: e.line }),
      ...(e.keyPath === '' ? {} : { keyPath: e.keyPath }),
      ...(got ? { got } : {}),
    },
  };
}

/** A flag holding a variable the client did not expand, when what it names does not exist. */
function unexpandedArg(args: ConnectArgs, globals: Pick<GlobalFlags, 'repo'>): WorkspaceProblem | null {
  const flags: [string, string | undefined, string][] = [
    ['--repo', args.repo, 'the repository folder'],
    ['--manifest', args.manifest, 'the manifest file'],
    ['--state-dir', args.stateDir, 'the state folder'],
  ];
  for (const [flag, value, what] of flags) {
    const variable = value === undefined ? null : VARIABLE.exec(value);
    if (!variable || value === undefined || (flag === '--state-dir' && exists(dirname(value)))) continue;
    if (flag !== '--state-dir' && exists(flag === '--repo' ? globals.repo : value)) continue;
    return {
      summary: `${flag} is "${value}": ${variable[0]} is a variable the MCP client did not expand, so ${what} does not exist`,
      remedy: `put the absolute path in the client's config (this client does not expand ${variable[0]} in a server's args), or leave ${flag} out and start the server in the repository`,
      details: { cause: 'UNEXPANDED_VARIABLE', flag, got: value, ...(flag === '--repo' ? { folder: globals.repo } : {}) },
    };
  }
  return null;
}

/** A repository folder that is missing or not a folder, or null. */
function folderProblem(folder: string, { hostPaths }: ProblemContext): WorkspaceProblem | null {
  const kind = folderKind(folder);
  if (kind === 'missing') {
    const named = hostPaths ? ` ${folder}` : '';
    return {
      summary: `the repository folder${named} does not exist`,
      remedy: "pass --repo an existing folder (the repository's absolute path)",
      details: { cause: 'FOLDER_MISSING', ...(hostPaths ? { folder } : {}) },
    };
  }
  if (kind !== 'other') return null;
  return {
    summary: `the repository folder${hostPaths ? ` ${folder}` : ''} is not a folder`,
    remedy: "pass --repo the repository's folder",
    details: { cause: 'NOT_A_FOLDER', ...(hostPaths ? { folder } : {}) },
  };
}

function exists(path: string): boolean {
  return folderKind(path) !== 'missing';
}
