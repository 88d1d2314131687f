/**
 * What this machine lets an unprivileged kernel sandbox do, for `gatefs doctor`
 * (docs/ARCHITECTURE.md § Commands): the kernel switches that allow or forbid user namespaces
 * (read from `/proc/sys`), and whether kernel overlayfs mounts inside a user namespace made by
 * bubblewrap (what a `copy` workspace's commands need to see its overlay).
 *
 * Only reports: nothing here decides whether a command runs (`BubblewrapSandbox.probe` does, by
 * making a sandbox). The overlay trial mounts on a tmpfs inside a sandbox of its own, so it
 * leaves nothing on the host's disk; it runs bwrap with every capability kept inside its user
 * namespace (`--cap-add ALL`), which grants nothing outside it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

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

/** Whether overlayfs mounted inside a bubblewrap sandbox, and what was seen (mount's first line of error, or how long it took). */
export interface OverlayTrial {
  readonly works: boolean;
  readonly detail: string;
}

/**
 * Mounts an overlay (a lower with one file, an upper, a work folder, all on a tmpfs) inside a
 * sandbox made by `bwrap` and writes through it. Never throws.
 */
export function overlayInUserNamespace(bwrap: string): OverlayTrial {
  const script =
    'cd /o && mkdir l u w m && echo lower > l/f && ' +
    'mount -t overlay overlay -o lowerdir=/o/l,upperdir=/o/u,workdir=/o/w /o/m && ' +
    'test "$(cat /o/m/f)" = lower && echo upper > /o/m/g && test -f /o/u/g';
  const system = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'].flatMap(systemTop);
  const started = performance.now();
  const tried = spawnSync(
    bwrap,
    [
      '--unshare-user',
      '--uid',
      '0',
      '--gid',
      '0',
      '--cap-add',
      'ALL',
      '--unshare-pid',
      '--unshare-net',
      '--die-with-parent',
      '--ro-bind',
      '/usr',
      '/usr',
      ...system,
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/o',
      '--',
      '/bin/sh',
      '-c',
      script,
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
  const ms = Math.round(performance.now() - started);
  if (tried.error) return { works: false, detail: `bwrap could not be run (${tried.error.message})` };
  if (tried.status === 0) return { works: true, detail: `mounted and written through in ${ms} ms` };
  const said = `${tried.stderr ?? ''}`.trim().split('\n')[0] ?? '';
  return { works: false, detail: said || `the trial ended with ${tried.signal ?? `exit code ${tried.status}`}` };
}

/**
 * The bwrap program `BubblewrapSandbox` would run: the first `bwrap` in the absolute folders of
 * `hostPath` (a `PATH` value), else `/usr/bin/bwrap`; null when neither exists.
 */
export function bubblewrapProgram(hostPath: string): string | null {
  for (const dir of hostPath.split(':')) {
    if (dir.startsWith('/') && existsSync(`${dir}/bwrap`)) return `${dir}/bwrap`;
  }
  return existsSync('/usr/bin/bwrap') ? '/usr/bin/bwrap' : null;
}

/** bwrap's arguments showing the host's `/<top>` as the sandbox does: a link as that link, a folder read-only, nothing when missing. */
function systemTop(top: string): string[] {
  const host = `/${top}`;
  try {
    const stat = lstatSync(host);
    if (stat.isSymbolicLink()) return ['--symlink', readlinkSync(host), host];
    return stat.isDirectory() ? ['--ro-bind', host, host] : [];
  } catch {
    return [];
  }
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
