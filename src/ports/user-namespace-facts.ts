/**
 * What this machine lets an unprivileged kernel sandbox do, for `gatefs doctor`
 * (docs/ARCHITECTURE.md § Commands): the kernel switches that allow or forbid user namespaces
 * (read from `/proc/sys`), where bubblewrap is, and whether kernel overlayfs mounts in a user
 * namespace (what a `copy` workspace's commands need to see its overlay).
 *
 * Only reports: nothing here decides whether a command runs (`BubblewrapSandbox.probe` does, by
 * making a sandbox). The overlay trial mounts in a mount namespace of its own, in a temporary
 * folder it removes afterwards.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ownUid } from './own-process.js';

/** The user namespace switches of the kernel; null where this kernel has no such file (or it cannot be read). */
export interface UserNamespaceSwitches {
  /** `kernel.unprivileged_userns_clone` (Debian's and Ubuntu's patch): 0 forbids unprivileged user namespaces. */
  readonly unprivilegedUsernsClone: number | null;
  /** `user.max_user_namespaces`: 0 forbids new user namespaces. */
  readonly maxUserNamespaces: number | null;
  /** `kernel.apparmor_restrict_unprivileged_userns` (Ubuntu 23.10+): 1 lets only programs with an AppArmor profile allowing it make one. */
  readonly apparmorRestrictUnprivilegedUserns: number | null;
}

/** Reads the switches (see `UserNamespaceSwitches`). */
export function userNamespaceSwitches(): UserNamespaceSwitches {
  return {
    unprivilegedUsernsClone: sysctl('kernel/unprivileged_userns_clone'),
    maxUserNamespaces: sysctl('user/max_user_namespaces'),
    apparmorRestrictUnprivilegedUserns: sysctl('kernel/apparmor_restrict_unprivileged_userns'),
  };
}

/** Whether overlayfs mounted in a user namespace, and what was seen (mount's first line of error, or how long it took). */
export interface OverlayTrial {
  readonly works: boolean;
  readonly detail: string;
}

/**
 * Mounts an overlay (a lower folder with one file, an upper, a work folder, in a fresh temporary
 * folder) in a mount namespace of its own, as a `copy` workspace's commands are given theirs
 * (src/ports/sandbox-overlay.ts): `unshare --mount` for root, `unshare --user --map-root-user
 * --mount` with `userxattr` for anyone else; then writes through it. Removes the folder after.
 * Never throws.
 */
export function overlayInUserNamespace(): OverlayTrial {
  const unshare = ['/usr/bin/unshare', '/bin/unshare'].find((p) => existsSync(p));
  if (!unshare) return { works: false, detail: 'not tried: unshare (util-linux) is not installed' };
  const root = ownUid() === 0;
  const namespaces = root ? ['--mount', '--propagation', 'private'] : ['--user', '--map-root-user', '--mount'];
  const options = `redirect_dir=nofollow,metacopy=off,index=off${root ? '' : ',userxattr'}`;
  const script =
    'cd "$1" && mount -t overlay gatefs -o "$2,lowerdir=l,upperdir=u,workdir=w" m && ' +
    'test "$(cat m/f)" = lower && echo upper > m/g && test -f u/g';
  let folder: string | undefined;
  try {
    folder = mkdtempSync(join(tmpdir(), 'gatefs-doctor-'));
    for (const name of ['l', 'u', 'w', 'm']) mkdirSync(join(folder, name));
    writeFileSync(join(folder, 'l/f'), 'lower\n');
    const started = performance.now();
    const tried = spawnSync(unshare, [...namespaces, '--', '/bin/sh', '-c', script, 'gatefs-doctor', folder, options], {
      encoding: 'utf8',
      timeout: 10_000,
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LC_ALL: 'C' },
    });
    const ms = Math.round(performance.now() - started);
    if (tried.error) return { works: false, detail: `unshare could not be run (${tried.error.message})` };
    if (tried.status === 0) return { works: true, detail: `mounted and written through in ${ms} ms` };
    const said = `${tried.stderr ?? ''}`.trim().split('\n')[0] ?? '';
    return { works: false, detail: said || `the trial ended with ${tried.signal ?? `exit code ${tried.status}`}` };
  } catch (e) {
    return { works: false, detail: `the trial could not be set up (${(e as Error).message})` };
  } finally {
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The bwrap program `BubblewrapSandbox` would run (the first `bwrap` in the absolute folders of
 * `hostPath`, a `PATH` value, else `/usr/bin/bwrap`) and what its `--version` says; nulls when
 * there is none (or it does not answer).
 */
export function bubblewrapProgram(hostPath: string): { path: string | null; version: string | null } {
  const path = hostPath.split(':').find((dir) => dir.startsWith('/') && existsSync(`${dir}/bwrap`));
  const program = path ? `${path}/bwrap` : existsSync('/usr/bin/bwrap') ? '/usr/bin/bwrap' : null;
  if (!program) return { path: null, version: null };
  const said = spawnSync(program, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return { path: program, version: said.status === 0 ? said.stdout.trim() || null : null };
}

/** The number in `/proc/sys/<name>`, or null. */
function sysctl(name: string): number | null {
  try {
    const text = readFileSync(`/proc/sys/${name}`, 'utf8').trim();
    return /^-?\d+$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}
