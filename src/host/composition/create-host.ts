/**
 * `createHost`: the production host over a real repository (docs/ARCHITECTURE.md § Host and lifecycle).
 *
 * Order matters: the manifest is loaded and checked first (a `container` backend throws
 * `WorkspaceError` `BACKEND_UNAVAILABLE` before anything exists on disk), then the repository
 * folder is checked, then the state directory's proof of origin (src/host/state-trust/: a state
 * directory or database that came with the repository throws `STATE_UNTRUSTED` before
 * anything in it is opened, rolled back or removed), then the state directory is created if
 * missing (default `<repo>/.gatefs`, private, excluded from git), the SQLite database
 * `<stateDir>/gatefs.db` opened (its origin recorded when it is new), and what the store
 * already holds recovered.
 *
 * This is the composition root for the real ports: node:fs, `NodeHostExec`, the system clock,
 * random ids, this process's uid and its liveness (pid + start time) come in here and nowhere
 * else in the host.
 */
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { CliGit } from '../../git/index.js';
import { CliLandingGit, CliSnapshotGit } from '../../git/index.js';
import { CliTreeCheckout } from '../../git/index.js';
import { chooseLanderSettings } from '../../manifest/index.js';
import type { CheckRunner } from '../../ports/index.js';
import { DEFAULT_EXEC } from '../../manifest/index.js';
import { SandboxCheckRunner } from '../commands/index.js';
import type { SavePointHook } from '../../lander/index.js';
import type { SnapshotSavePoint } from '../snapshots/index.js';
import type { ArtifactSavePoint } from '../artifacts/index.js';
import { loadManifest } from '../../manifest/index.js';
import { systemClock, type Clock } from '../../ports/index.js';
import type { HostExec } from '../../ports/index.js';
import { randomIds, type IdSource } from '../../ports/index.js';
import { NodeHostExec } from '../../ports/index.js';
import { BubblewrapSandbox, type Sandbox } from '../../ports/index.js';
import { environment } from '../../ports/index.js';
import { openLockFileDir } from '../../ports/lock-file-dir.js';
import { openWriteDoors } from '../../ports/write-door-dir.js';
import { StateStore } from '../../state/index.js';
import { hasProcFd } from '../../../vfs/index.js';
import { DiskPlatform } from '../platform/index.js';
import { authorityFilesOf } from './authority-files.js';
import { RecordingHostExec } from './recording-exec.js';
import { checkRepositoryFolder, relativeToRepo } from './repository-folder.js';
import { createStateDir, excludeStateDir } from '../state-trust/index.js';
import { checkOrigin, recordOriginOf, waitForOrigin } from '../state-trust/index.js';
import { inspectStateDir } from '../state-trust/index.js';
import { refuseTracked } from '../state-trust/index.js';
import { DATABASE_FILE } from '../state-trust/index.js';
import { nodeProcessLiveness } from '../../ports/index.js';
import type { ProcessLiveness } from '../../ports/index.js';
import { ownPid, ownUid } from '../../ports/index.js';
import type { Host } from './host.js';
import { WorkspaceHost } from './workspace-host.js';

export interface CreateHostOptions {
  /** The integration checkout: a git work tree (any backend) or a plain folder (`copy`, `shared`). */
  repo: string;
  /** Where gatefs keeps its database, worktrees and copies (default `<repo>/.gatefs`). */
  stateDir?: string;
  /** A `gatefs.yaml` path or an already parsed manifest object (default: the default role). */
  manifest?: string | object;
  /** The host-exec port (default: real processes). */
  exec?: HostExec;
  clock?: Clock;
  ids?: IdSource;
  /** The process-liveness port (default: this machine's, pid + start time). */
  liveness?: ProcessLiveness;
  /**
   * Lander settings: a JSON file path or an already parsed object (`{ lander: { checks, push,
   * branch } }`); default the manifest's `lander:` key. A settings file grants authority like
   * the manifest: agents can read it but never change it.
   */
  settings?: string | object;
  /**
   * The lander's check runner (default: each check's argv in the kernel sandbox over the
   * candidate checkout, src/host/commands/sandbox-check-runner.ts; never unconfined).
   */
  checks?: CheckRunner;
  /** Called at each lander save point (the crash test kills the process there). */
  savePoint?: SavePointHook;
  /** Called at each snapshot and restore save point (the crash tests kill the process there). */
  snapshotSavePoint?: (point: SnapshotSavePoint) => void;
  /** Called at each save point of a handoff (the crash test kills the process there). */
  artifactSavePoint?: (point: ArtifactSavePoint) => void;
  /** The sandbox agents' commands run in (default: bubblewrap). */
  sandbox?: Sandbox;
  /**
   * Open for a command that only reads (`gatefs status`, `lander status`, `messages`, a reading
   * tool's `call`): nothing is appended to the run log by opening (no `host.start`, no `exec`
   * records of gatefs's own git commands), interrupted preparations and releases are left for
   * the next host that is not quiet to recover (a workspace still preparing answers
   * `WORKSPACE_NOT_READY`), no copy workspace's lower folder is built (reads go to git objects),
   * and the state directory's git exclude is not written. Not a sandbox: a writing tool called
   * through it still writes (and its `tool_call` is recorded), only without that recovery.
   */
  quiet?: boolean;
  /**
   * False for a host that lives for one command (the CLI's, but `serve`): no copy workspace's
   * lower folder is built, since the build would be stopped at close, leaving only its
   * `lower.building` and `lower.stopped` records (reads go to git objects meanwhile, as before a
   * build). Default true.
   */
  lowerBuilds?: boolean;
}

/**
 * Opens a host over `options.repo`. Throws `WorkspaceError` `BACKEND_UNAVAILABLE` (container
 * role), `ManifestError` (any other manifest mistake), `WorkspaceError` `NOT_A_GIT_REPOSITORY`
 * with data.reason `MISSING_FOLDER` when the repository folder does not exist
 * (`UNREADABLE_FOLDER` when it cannot be looked at),
 * `WorkspaceError` `STATE_UNTRUSTED` (data.reason, data.hint) when the state directory or its
 * database did not come from gatefs on this machine, `StateError` `OPEN_FAILED` when the
 * database cannot be opened.
 */
export async function createHost(options: CreateHostOptions): Promise<Host> {
  const manifest = loadManifest(options.manifest);
  const settings = chooseLanderSettings(options.settings, manifest);
  const given = resolve(options.repo);
  checkRepositoryFolder(given);
  // Real paths throughout, so they compare equal to the paths git reports (a symlinked /tmp).
  const repo = fs.realpathSync(given);
  const clock = options.clock ?? systemClock;
  const quiet = options.quiet === true;
  const exec = new RecordingHostExec(options.exec ?? new NodeHostExec(), (cwd) => relativeToRepo(repo, cwd), quiet ? 'none' : 'tasks');
  const git = new CliGit({ repo, exec, fs });
  const isRepository = await git.isRepository({ tag: 'start', chain: [] });
  const uid = ownUid();
  const wantedStateDir = resolve(options.stateDir ?? join(repo, '.gatefs'));
  const { stateDir, hadDatabase } = await trustedStateDir(wantedStateDir, { repo, git: isRepository ? git : null, uid, clock });
  const liveness = options.liveness ?? nodeProcessLiveness;
  const store = StateStore.open(join(stateDir, DATABASE_FILE), { clock, liveness });
  let locks: ReturnType<typeof openLockFileDir> | undefined;
  try {
    recordOriginOf(store, stateDir, uid ?? 0, !hadDatabase);
    if (isRepository && !quiet) excludeStateDir(git.directories.common, git.directories.top, stateDir);
    exec.attach(store.runLog);
    const landing = new CliLandingGit({ repo, exec });
    const authorityFiles = authorityFilesOf(repo, options.manifest, options.settings);
    const writes = { fsync: manifest.writes?.fsync ?? false };
    const confinement = hasProcFd() ? 'procfs' : 'lstat-fallback';
    const snapshotGit = new CliSnapshotGit({ exec });
    const platform = new DiskPlatform(repo, stateDir, git, landing, confinement, authorityFiles, writes, String(ownPid()), snapshotGit);
    const treeCheckout = isRepository && !quiet && options.lowerBuilds !== false ? new CliTreeCheckout({ repo, exec }) : undefined;
    const opened = (locks = openLockFileDir(stateDir));
    const sandbox = options.sandbox ?? new BubblewrapSandbox();
    const doors = openWriteDoors(stateDir);
    const onClose = () => (opened.close(), doors.close());
    return await WorkspaceHost.start({
      platform,
      store,
      manifest,
      clock,
      ids: options.ids ?? randomIds,
      liveness,
      crossProcessLocks: opened,
      sandbox,
      commandEnv: environment(),
      writeDoors: doors,
      onClose,
      ...(treeCheckout ? { treeCheckout } : {}),
      settings,
      checks:
        options.checks ??
        new SandboxCheckRunner(
          sandbox,
          {
            repo,
            stateDir,
            share: [...new Set(manifest.roles.flatMap((r) => r.share))],
            authorityFiles,
            env: passedThrough(DEFAULT_EXEC.env),
            folderState: (path) => platform.folderState(path),
            join: (path, tail) => platform.join(path, tail),
            relativeInside: (from, path) => platform.relativeInside(from, path),
          },
          (data) => store.runLog.append({ type: 'exec', conversation: data.chain[data.chain.length - 1] ?? null, data }),
        ),
      ...(options.savePoint ? { savePoint: options.savePoint } : {}),
      ...(options.snapshotSavePoint ? { snapshotSavePoint: options.snapshotSavePoint } : {}),
      ...(options.artifactSavePoint ? { artifactSavePoint: options.artifactSavePoint } : {}),
      ...(quiet ? { quiet } : {}),
    });
  } catch (e) {
    locks?.close();
    store.close();
    throw e;
  }
}

/** Where the trust checks look, for `trustedStateDir`. */
interface TrustContext {
  repo: string;
  /** The repository's git, or null when the repository folder is not a git work tree (check 2 is skipped). */
  git: CliGit | null;
  uid: number | null;
  clock: Clock;
}

/**
 * Runs the state directory's trust checks (src/host/state-trust/state-trust.ts) on `wanted`
 * before anything in it is opened, then creates what is missing. Result: its real path, and
 * whether a database was there before. Throws `WorkspaceError` `STATE_UNTRUSTED`.
 */
async function trustedStateDir(wanted: string, trust: TrustContext): Promise<{ stateDir: string; hadDatabase: boolean }> {
  const found = inspectStateDir(wanted, trust.uid);
  if (found.exists && trust.git) {
    const real = fs.realpathSync(wanted);
    refuseTracked(real, relativeToRepo(trust.repo, real), await trust.git.trackedUnder(real, { tag: 'start', chain: [] }));
  }
  if (found.hasDatabase) {
    await waitForOrigin(wanted, trust.clock.now());
    checkOrigin(wanted, trust.uid);
  }
  createStateDir(wanted);
  return { stateDir: fs.realpathSync(wanted), hadDatabase: found.hasDatabase };
}

/** The server's values of the environment variables `names` (those it has). */
function passedThrough(names: readonly string[]): Record<string, string> {
  const env = environment();
  const out: Record<string, string> = {};
  for (const name of names) if (env[name] !== undefined) out[name] = env[name]!;
  return out;
}
