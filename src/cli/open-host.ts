/**
 * Opens the real host (`createHost`) for a CLI command from the global flags, and closes it
 * when the command is done, whatever happens. A command that only reads (`status`, `lander
 * status`, `messages`, `tools`, a reading tool's `call`) opens it with `withReadingHost`: quiet,
 * so the look appends nothing to the run log (the run log records what agents and operators
 * did, not gatefs looking at itself).
 */
import type { CreateHostOptions } from '../host/composition/index.js';
import type { Host } from '../host/composition/index.js';
import type { GlobalFlags } from './global-flags.js';
import { checkRepoFolder } from './repo-folder-check.js';

/**
 * The package's `createHost`, loaded on first use so `--help` and usage errors do not pay for
 * loading git, SQLite and the VFS.
 */
export async function loadCreateHost(): Promise<typeof import('../index.js').createHost> {
  return (await import('../index.js')).createHost;
}

/**
 * Creates the host for `globals`. Throws `UsageError` for a repository folder that would make a
 * second state directory (`checkRepoFolder`), and the host's typed errors (ManifestError,
 * WorkspaceError).
 */
export async function openHost(
  globals: GlobalFlags,
  extra: Pick<CreateHostOptions, 'savePoint' | 'quiet' | 'lowerBuilds'> = {},
): Promise<Host> {
  checkRepoFolder({ repo: globals.repo, given: globals.repoGiven });
  const createHost = await loadCreateHost();
  return createHost({
    repo: globals.repo,
    ...(globals.stateDir ? { stateDir: globals.stateDir } : {}),
    ...(globals.manifest ? { manifest: globals.manifest } : {}),
    ...(globals.settings ? { settings: globals.settings } : {}),
    ...extra,
  });
}

/**
 * Runs `fn` with an open host and closes the host afterwards: a host for one command, which
 * builds no copy workspace's lower folder (a build would only be started to be stopped at close).
 */
export async function withHost<T>(
  globals: GlobalFlags,
  fn: (host: Host) => Promise<T>,
  extra: Pick<CreateHostOptions, 'savePoint' | 'quiet' | 'lowerBuilds'> = {},
): Promise<T> {
  const host = await openHost(globals, { lowerBuilds: false, ...extra });
  try {
    return await fn(host);
  } finally {
    await host.close();
  }
}

/**
 * Runs `fn` with a host opened for a command that only reads, and closes it: `createHost`'s
 * `quiet` (no `host.start`, no `exec` records of its own git, no recovery of interrupted work,
 * no lower-folder builds). A tool call made through it still records its `tool_call`.
 */
export function withReadingHost<T>(globals: GlobalFlags, fn: (host: Host) => Promise<T>): Promise<T> {
  return withHost(globals, fn, { quiet: true });
}
