/**
 * Commands over a `copy` workspace (sandbox.ts `SandboxOverlay`): the workspace root is a kernel
 * overlay made for the one command, showing exactly what gatefs's overlay shows the file tools,
 * and the command's changes are read back afterwards (overlay-upper.ts) for the host to keep.
 *
 * Per command, in `<scratch>/run-<pid>-<n>/`: the kernel overlay's upper `u/` and work `w/`
 * folders (fresh), a `mask/` folder holding a kernel whiteout (a character device 0/0, hard
 * links of one made by `mknod` once per scratch folder) for each path gatefs's overlay whited
 * out, and links `l0` → the workspace's upper folder, `l1` → its lower tree (so the mount
 * options hold no host path to escape). The layers, uppermost first:
 *
 *     u (the command's writes) : l0 (the workspace's upper) : mask : l1 (the lower tree)
 *
 * A whiteout in `mask` hides the lower's entry and everything below it, while an entry `l0` holds
 * at the same path still shows, alone: gatefs's own rule for a folder removed and made again.
 * The overlay's reserved record folder in `l0` is hidden by a whiteout placed in `u` itself.
 *
 * The mount needs a mount namespace of its own: `unshare -m` as root, `unshare -Urm` (a user
 * namespace too, extended attributes in the `user.` space: `userxattr`) for anyone else; a
 * shell in it mounts the overlay at `m/` and execs bwrap (bubblewrap-sandbox.ts) with `m/` bound
 * at the workspace's namespace path, so the process the supervisor watches is bwrap itself. The
 * mount goes with the namespace when bwrap ends. A plain folder holding the state directory
 * cannot be a layer beside folders inside it (the kernel refuses overlapping layers): it is
 * stacked first, read-only, as an overlay of its own over an empty tmpfs.
 *
 * Redirects and metadata-only copy-ups are off, so a moved folder is copied and every changed
 * file's bytes are in `u/`. Limits: files of the lower tree owned by a user this process cannot
 * map (another user's files, for an ordinary user) cannot be changed by a command; the layers
 * must not change while a command runs (a file tool writing the workspace meanwhile may or may
 * not be seen by it, as overlayfs documents).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { bwrapLine, feedSandbox, SANDBOX_STDIO, startedOrUnavailable, superviseCommand, wrapperScript } from './bubblewrap-sandbox.js';
import { readOverlayUpper } from './overlay-upper.js';
import { ownPid, ownUid } from './own-process.js';
import { pidExists } from './process-signals.js';
import type { RunningCommand, SandboxOverlay, SandboxPlan, SandboxRequest } from './sandbox.js';
import { SandboxUnavailableError } from './sandbox.js';
import { codeOf } from '../../vfs/index.js';

/** Where the programs the overlay needs are looked for. */
const PROGRAM_FOLDERS = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'];
/** The environment of the shell that mounts the overlay (bwrap clears it for the command). */
const MOUNT_ENV = { PATH: PROGRAM_FOLDERS.join(':'), LC_ALL: 'C' };
/** The name of the whiteout every mask entry is a hard link of, in the scratch folder. */
const WHITEOUT = 'whiteout';

/**
 * The shell run in the new mount namespace: `$1` the run folder, `$2` 1 to stack the lower tree
 * first, `$3` the overlay's options, then bwrap's argv.
 */
const MOUNT_SCRIPT = [
  'cd "$1" || exit 125',
  'fail() { echo "gatefs: the copy workspace could not be mounted for the command" >&2; exit 125; }',
  'if [ "$2" = 1 ]; then',
  '  mount -t tmpfs -o size=16k,mode=0755 gatefs t && mount -t overlay gatefs -o "ro,$3,lowerdir=l1:t" a || fail',
  '  low=a',
  'else low=l1; fi',
  'mount -t overlay gatefs -o "$3,lowerdir=l0:mask:$low,upperdir=u,workdir=w" m || fail',
  'shift 3',
  'exec "$@"',
].join('\n');

/** How this process mounts overlays, once found. */
interface OverlayTools {
  readonly unshare: string;
  readonly tar: string;
  /** `unshare`'s options before the program. */
  readonly namespaces: readonly string[];
  /** The overlay mount options every layer gets. */
  readonly options: string;
}

let tools: Promise<OverlayTools> | undefined;
let runs = 0;
/** Run folders of this process's commands under way. */
const active = new Set<string>();

/**
 * Starts a command whose plan has an overlay (see the file comment). Throws
 * `SandboxUnavailableError` when overlays cannot be mounted here (nothing runs).
 */
export async function runOverlay(
  bwrap: string,
  request: SandboxRequest,
  argvOf: (plan: SandboxPlan, script: string, extraFds: number) => string[],
): Promise<RunningCommand> {
  const overlay = request.plan.overlay!;
  const found = await overlayTools(overlay.scratch);
  const run = prepareRun(overlay);
  try {
    const plan: SandboxPlan = { ...request.plan, binds: [{ host: `${run}/m`, at: overlay.at, writable: true }, ...request.plan.binds] };
    const supervised = { ...request, plan };
    const stacked = isInside(overlay.lower, overlay.upper) || isInside(overlay.lower, overlay.scratch);
    const invocation = bwrapLine(argvOf(plan, wrapperScript(supervised), 2));
    const child = spawn(
      found.unshare,
      [
        ...found.namespaces,
        '--',
        '/bin/sh',
        '-c',
        MOUNT_SCRIPT,
        'gatefs-overlay',
        run,
        stacked ? '1' : '0',
        found.options,
        bwrap,
        ...invocation.line,
      ],
      { stdio: [...SANDBOX_STDIO], env: MOUNT_ENV },
    );
    feedSandbox(child, invocation.fed);
    const mountPoints = [...plan.binds.map((b) => b.at), ...plan.hidden]
      .filter((at) => at.startsWith(`${overlay.at}/`))
      .map((at) => at.slice(overlay.at.length + 1));
    const running = superviseCommand(
      bwrap,
      supervised,
      child,
      (p, s) => argvOf(p, s, 2),
      async (ended) => {
        const reading = {
          dir: `${run}/u`,
          at: overlay.at,
          workspaceUpper: overlay.upper,
          skip: new Set(overlay.reserved),
          mountPoints,
          tar: found.tar,
        };
        try {
          return { ...ended, overlayChanges: await readOverlayUpper(reading) };
        } catch (e) {
          // Nothing is kept then, and the answer says so (by the error's code: its text may name a host path).
          const said = codeOf(e) ?? 'an unexpected error';
          return {
            ...ended,
            overlayChanges: [],
            stderr: `${ended.stderr}gatefs: the command's changes could not be read back (${said}); none was kept\n`,
          };
        } finally {
          removeRun(run);
        }
      },
    );
    return await startedOrUnavailable(child, running);
  } catch (e) {
    removeRun(run);
    throw e;
  }
}

/**
 * Makes this command's run folder (see the file comment) after removing what earlier commands
 * left (theirs ended, or their process is gone). Result: its host path.
 */
function prepareRun(overlay: SandboxOverlay): string {
  const { scratch } = overlay;
  removeLeftovers(scratch);
  const name = `run-${ownPid()}-${++runs}`;
  const run = `${scratch}/${name}`;
  active.add(name);
  try {
    // The run folder keeps others out; the upper's mode is the workspace root's mode in the merged view.
    for (const folder of ['', 'u', 'w', 'm', 'mask', 'a', 't']) mkdirSync(`${run}/${folder}`, { mode: folder === '' ? 0o700 : 0o755 });
    symlinkSync(overlay.upper, `${run}/l0`);
    symlinkSync(overlay.lower, `${run}/l1`);
    const whiteout = `${scratch}/${WHITEOUT}`;
    for (const reserved of overlay.reserved.filter(isPlainPath)) linkSync(whiteout, `${run}/u/${reserved}`);
    for (const path of outermost(overlay.whiteouts.filter(isPlainPath))) {
      const slash = path.lastIndexOf('/');
      if (slash > 0) mkdirSync(`${run}/mask/${path.slice(0, slash)}`, { recursive: true, mode: 0o755 });
      linkSync(whiteout, `${run}/mask/${path}`);
    }
    return run;
  } catch (e) {
    removeRun(run);
    throw e;
  }
}

/** Removes the run folders in `scratch` no command under way uses (this process's ended ones, and any of a process that is gone). */
function removeLeftovers(scratch: string): void {
  for (const name of readdirSync(scratch)) {
    const owner = /^run-(\d+)-\d+$/.exec(name);
    if (!owner) continue;
    const pid = Number(owner[1]);
    if (pid === ownPid() ? !active.has(name) : !pidExists(pid)) removeRun(`${scratch}/${name}`);
  }
}

/** Removes a run folder (the kernel leaves its work folder mode 000); one that cannot be removed is left for the next command. */
function removeRun(run: string): void {
  active.delete(run.slice(run.lastIndexOf('/') + 1));
  try {
    if (lstatSync(`${run}/w/work`, { throwIfNoEntry: false })?.isDirectory()) chmodSync(`${run}/w/work`, 0o700);
    rmSync(run, { recursive: true, force: true });
  } catch {
    /* left for the next command's removeLeftovers */
  }
}

/**
 * Finds the programs, makes the scratch folder's whiteout, and mounts one overlay in a trial
 * namespace; cached for the process. Throws `SandboxUnavailableError` naming what is missing.
 */
function overlayTools(scratch: string): Promise<OverlayTools> {
  tools ??= Promise.resolve().then(() => probeOverlay(scratch));
  return tools.then((t) => {
    mkdirSync(scratch, { recursive: true, mode: 0o700 });
    makeWhiteout(scratch);
    return t;
  });
}

function probeOverlay(scratch: string): OverlayTools {
  const unshare = program('unshare');
  const tar = program('tar');
  if (!unshare || !tar || !program('mknod')) {
    throw new SandboxUnavailableError(
      'commands in a copy workspace need unshare, mknod and tar (util-linux, coreutils, tar), which are not installed',
      'install them, or use the worktree backend',
    );
  }
  const root = ownUid() === 0;
  const found: OverlayTools = {
    unshare,
    tar,
    namespaces: root ? ['--mount', '--propagation', 'private'] : ['--user', '--map-root-user', '--mount'],
    options: `redirect_dir=nofollow,metacopy=off,index=off${root ? '' : ',userxattr'}`,
  };
  mkdirSync(scratch, { recursive: true, mode: 0o700 });
  const trial = `${scratch}/probe-${ownPid()}`;
  rmSync(trial, { recursive: true, force: true });
  try {
    for (const folder of ['', 'l', 'u', 'w', 'm']) mkdirSync(`${trial}/${folder}`, { mode: 0o700 });
    const mounted = spawnSync(
      unshare,
      [
        ...found.namespaces,
        '--',
        '/bin/sh',
        '-c',
        'cd "$1" && mount -t overlay gatefs -o "$2,lowerdir=l,upperdir=u,workdir=w" m',
        'gatefs-probe',
        trial,
        found.options,
      ],
      { encoding: 'utf8', timeout: 10_000, env: MOUNT_ENV },
    );
    if (mounted.status !== 0) {
      const said = `${mounted.stderr ?? ''}`.trim().split('\n')[0] || `exit ${mounted.status}`;
      throw new SandboxUnavailableError(
        `the kernel cannot mount an overlay for a command in a copy workspace here (${said})`,
        'use a Linux kernel with overlayfs in user namespaces (5.11 or later), or the worktree backend',
      );
    }
  } finally {
    removeRun(trial);
  }
  return found;
}

/** Makes `<scratch>/whiteout` (a character device 0/0, which the kernel lets anyone make) unless it is there. */
function makeWhiteout(scratch: string): void {
  const path = `${scratch}/${WHITEOUT}`;
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st?.isCharacterDevice() && st.rdev === 0) return;
  if (st) rmSync(path, { force: true });
  const made = spawnSync(program('mknod')!, [path, 'c', '0', '0'], { encoding: 'utf8', timeout: 10_000, env: MOUNT_ENV });
  if (made.status !== 0) {
    throw new SandboxUnavailableError(
      `a kernel whiteout cannot be made here (${`${made.stderr ?? ''}`.trim().split('\n')[0] || `exit ${made.status}`})`,
      'use a Linux kernel of 5.8 or later, or the worktree backend',
    );
  }
}

/** The first of `PROGRAM_FOLDERS` holding `name`, or null. */
function program(name: string): string | null {
  for (const folder of PROGRAM_FOLDERS) if (existsSync(`${folder}/${name}`)) return `${folder}/${name}`;
  return null;
}

/** True when `path` is one or more plain names joined by '/' (no '', '.', '..'). */
function isPlainPath(path: string): boolean {
  return path !== '' && path.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('\0'));
}

/** The paths none of whose parents is among them, sorted. */
function outermost(paths: readonly string[]): string[] {
  const kept: string[] = [];
  for (const path of [...new Set(paths)].sort()) {
    if (!kept.some((k) => path.startsWith(`${k}/`))) kept.push(path);
  }
  return kept;
}

/** True when host path `path` is `folder` or inside it. */
function isInside(folder: string, path: string): boolean {
  const base = folder.endsWith('/') ? folder : `${folder}/`;
  return path === folder || path.startsWith(base);
}
