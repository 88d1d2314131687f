/**
 * `BubblewrapSandbox`: the real sandbox port (sandbox.ts) over Debian's `bubblewrap` (`bwrap`).
 *
 * Each command runs in new user, mount, pid, ipc, uts and cgroup namespaces (and a network
 * namespace of its own unless the plan allows the network), with a root that holds only:
 * the plan's binds at their namespace paths, the system folders read-only (`/usr`, the
 * `/bin`-style links or folders beside it, `/opt`, and an allow-list of `/etc` files a program
 * needs: users, hosts, name service, certificates, the dynamic linker's cache, time zone), its own
 * `/proc`, a minimal `/dev`, and a private `/tmp` holding `HOME` (`/tmp/home`). Nothing else of
 * the host is there: not the state directory, not other workspaces, not the user's home. The
 * environment is exactly the plan's.
 *
 * The whole process tree ends when the command times out, is killed, or passes a limit: the
 * `bwrap` process is killed, and the sandbox's init (`--die-with-parent`) and with it its pid
 * namespace go down. Limits: a watchdog reads the sandbox's processes from `/proc` every
 * `WATCH_MS` and ends the tree when their number passes `processes` or their resident memory
 * `memoryBytes`; `prlimit` inside the sandbox also caps processes per user namespace (which the
 * kernel enforces for any user but root) and core dumps (none). Output past `outputBytes` on a
 * stream ends the command too.
 *
 * What changed: when the plan asks, a wrapper lists the scan roots with `find` before and after
 * the command (from inside the sandbox, so the listing sees only what the command sees) and
 * writes the lists to descriptors the command itself does not have. After a command that was
 * killed, the after-list comes from a second, listing-only sandbox.
 *
 * Limits of this port: the memory limit is checked every `WATCH_MS`, so a burst can pass it
 * briefly; memory is resident memory as `/proc/<pid>/statm` reports it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statfsSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { TailBuffer } from './capped-output.js';
import type { RunningCommand, Sandbox, SandboxPlan, SandboxRequest, SandboxRun, SandboxSupport, ScanEntry } from './sandbox.js';
import { SandboxUnavailableError } from './sandbox.js';
import { runOverlay } from './sandbox-overlay.js';

/** The descriptor the sandbox reads empty files from (a pipe closed at once): `--ro-bind-data`. */
export const EMPTY_FD = 5;

/** The descriptor bwrap reports on (`--json-status-fd`): the sandbox's child pid once it runs. */
const STATUS_FD = 6;
/** The descriptor bwrap reads its arguments from (`--args`), so no process's command line names a host path. */
const ARGS_FD = 7;

/**
 * The stdio of a sandbox: no stdin, stdout, stderr, the scans before (3) and after (4), the
 * empty data (5), bwrap's status (6) and its arguments (7).
 */
export const SANDBOX_STDIO = ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'] as const;

/**
 * bwrap's invocation for `args` (its options, `--`, the command): the command line holds only
 * the status descriptor, `--args 7` and the command; the options (every host path) are fed on
 * descriptor 7 (`feedSandbox`). The sandbox's init is bwrap itself, so its `/proc/1/cmdline`
 * shows no host path.
 */
export function bwrapLine(args: readonly string[]): { line: string[]; fed: string[] } {
  const cut = args.indexOf('--');
  return {
    line: ['--json-status-fd', String(STATUS_FD), '--args', String(ARGS_FD), ...args.slice(cut)],
    fed: args.slice(0, cut),
  };
}

/**
 * Gives a sandbox started with `bwrapLine(…).line` its options (`fed`, NUL-separated on
 * descriptor 7) and closes the empty-data descriptor (bwrap reads it to its end once per empty file).
 */
export function feedSandbox(child: ChildProcess, fed: readonly string[]): void {
  const fds = child.stdio as readonly unknown[];
  const argsPipe = fds[ARGS_FD] as NodeJS.WritableStream | null | undefined;
  argsPipe?.on('error', () => {});
  argsPipe?.end(fed.map((a) => `${a}\0`).join(''));
  const empty = fds[EMPTY_FD] as NodeJS.WritableStream | null | undefined;
  empty?.on('error', () => {});
  empty?.end();
}

/**
 * Resolves true once bwrap reports the sandbox's child running, false when it ends first (it
 * could not make the sandbox: its reason is on stderr).
 */
export async function sandboxStarted(child: ChildProcess): Promise<boolean> {
  return (await sandboxChildPid(child)) !== null;
}

const childPids = new WeakMap<ChildProcess, Promise<number | null>>();

/** The host pid of the sandbox's init, as bwrap reports it on its status descriptor; null when bwrap ends without one. */
export function sandboxChildPid(child: ChildProcess): Promise<number | null> {
  let known = childPids.get(child);
  if (known) return known;
  const status = (child.stdio as readonly unknown[])[STATUS_FD] as Readable | null | undefined;
  known = !status
    ? Promise.resolve(null)
    : new Promise((resolve) => {
        let text = '';
        const found = () => {
          const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
          return m ? Number(m[1]) : null;
        };
        status.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          const pid = found();
          if (pid !== null) resolve(pid);
        });
        status.on('error', () => resolve(null));
        status.on('close', () => resolve(found()));
        child.on('close', () => resolve(found()));
      });
  childPids.set(child, known);
  return known;
}

/**
 * Waits for `running` (started as `child`) to be under way; when bwrap could not make the
 * sandbox, waits for its end and throws `SandboxUnavailableError` with bwrap's reason (nothing ran).
 */
export async function startedOrUnavailable(child: ChildProcess, running: RunningCommand): Promise<RunningCommand> {
  if (await sandboxStarted(child)) return running;
  const run = await running.done;
  const said = run.stderr.split('\n').find((line) => line.trim() !== '') ?? `it ended with ${run.exitCode ?? run.signal}`;
  throw new SandboxUnavailableError(
    `bubblewrap could not make the sandbox (${said.trim().slice(0, 300)})`,
    'run gatefs doctor to see what this machine allows',
  );
}

/** How often the watchdog counts the sandbox's processes and memory, in milliseconds. */
const WATCH_MS = 50;

/** Files and folders of `/etc` a program may need, shown read-only when the host has them. */
const ETC_ALLOWED = [
  'passwd',
  'group',
  'hosts',
  'hostname',
  'resolv.conf',
  'nsswitch.conf',
  'host.conf',
  'gai.conf',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'pki',
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'os-release',
  'debian_version',
  'mime.types',
  'profile',
  'inputrc',
  'gitconfig',
];

/** Writable files of /proc that act on the whole machine, covered read-only when present. */
const PROC_COVERED = ['/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs', '/proc/acpi', '/proc/scsi'];

/**
 * bwrap's own environment: its init stays in the sandbox, where `/proc/1/environ` is readable,
 * so it gets none of the server's (the command's comes from the plan, after `--clearenv`).
 */
const BWRAP_ENV = { PATH: '/usr/bin:/bin' };

/** The size of the sandbox's /tmp and /dev/shm when the plan gives none (the memory limit, as `start` sets it). */
const DEFAULT_TMPFS_BYTES = 1024 ** 3;

/**
 * Processes the kernel allows beyond the limit: the sandbox's init and the wrapper's shell, and
 * room for the watchdog (which ends the tree past limit + 2) to see a fork bomb that the kernel
 * holds near its cap, so the answer names the processes limit rather than a timeout.
 */
const NPROC_SLACK = 6;

/** What shells and runtimes print when the kernel refuses a fork (EAGAIN at the process limit). */
const FORK_REFUSED = /\b(?:Cannot fork|can't fork|fork: (?:retry: )?Resource temporarily unavailable)\b/;

/** A kill asked before bwrap reported its child waits this long for the report before ending bwrap anyway. */
const UNREPORTED_KILL_MS = 5000;

/** Top-level system folders shown read-only (as links when the host has them as links). */
const SYSTEM_TOP = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/** The program names the sandbox is made with. */
interface BubblewrapOptions {
  /** The bwrap program (default: the first `bwrap` on `PATH`, or `/usr/bin/bwrap`). */
  bwrap?: string;
  /** The host's environment `PATH`, for finding `bwrap`. */
  hostPath?: string;
}

/** The real sandbox (see the file comment). */
export class BubblewrapSandbox implements Sandbox {
  private support?: Promise<SandboxSupport>;
  private found?: SandboxSupport;
  private readonly bwrap: string | null;

  constructor(options: BubblewrapOptions = {}) {
    this.bwrap = options.bwrap ?? findProgram('bwrap', options.hostPath ?? process.env.PATH ?? '/usr/bin:/bin');
  }

  probe(): Promise<SandboxSupport> {
    this.support ??= this.probeNow().then((found) => (this.found = found));
    return this.support;
  }

  /** What the probe found, once it has (undefined before it ends or when none ran in this process). */
  known(): SandboxSupport | undefined {
    return this.found;
  }

  async start(request: SandboxRequest): Promise<RunningCommand> {
    const support = await this.probe();
    if (!support.available) throw new SandboxUnavailableError(support.cause, support.fix);
    request = { ...request, plan: { ...request.plan, tmpfsBytes: request.limits.memoryBytes } };
    if (request.plan.overlay) return runOverlay(this.bwrap!, request, (plan, script, extraFds) => this.argv(plan, script, extraFds));
    return startCommand(this.bwrap!, request, (plan, script) => this.argv(plan, script, 2));
  }

  /** Runs `true` in a sandbox made exactly as commands' are (no binds): does it start and exit 0? */
  private async trial(): Promise<{ ok: true } | { ok: false; said: string }> {
    const plan: SandboxPlan = { binds: [], hidden: [], cwd: '/tmp', network: false, env: { PATH: '/usr/bin:/bin' } };
    try {
      const running = await startCommand(
        this.bwrap!,
        {
          command: { argv: ['true'] },
          plan,
          limits: { timeoutMs: 20_000, memoryBytes: 1024 ** 3, processes: 64, outputBytes: 64 * 1024, keepBytes: 4096 },
          tag: 'probe',
          chain: [],
        },
        (p, s) => this.argv(p, s, 2),
      );
      const run = await running.done;
      return run.exitCode === 0 ? { ok: true } : { ok: false, said: run.stderr.trim().split('\n')[0] ?? `exit ${run.exitCode}` };
    } catch (e) {
      return { ok: false, said: e instanceof SandboxUnavailableError ? e.data.reason : String(e) };
    }
  }

  /** The bwrap argv for `plan`, ending in `/bin/sh -c <script>`. `extraFds`: descriptors past 2 the wrapper writes to. */
  argv(plan: SandboxPlan, script: string, _extraFds: number): string[] {
    const args = [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      ...(plan.network ? ['--share-net'] : ['--unshare-net']),
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
      '--hostname',
      'gatefs',
      '--ro-bind',
      '/usr',
      '/usr',
    ];
    for (const top of SYSTEM_TOP) {
      const host = `/${top}`;
      const kind = entryKind(host);
      if (kind === 'link') args.push('--symlink', readlinkSync(host), host);
      else if (kind === 'folder') args.push('--ro-bind', host, host);
    }
    if (entryKind('/opt') === 'folder') args.push('--ro-bind', '/opt', '/opt');
    for (const name of ETC_ALLOWED) {
      const host = `/etc/${name}`;
      if (entryKind(host) !== 'missing') args.push('--ro-bind', host, host);
    }
    // Root in the sandbox is the host's root to the kernel's permission checks: /proc's global
    // writable files (sysctls, the SysRq trigger) are covered read-only; /dev is read-only but
    // for its devices; the tmpfs folders are sized to the memory limit (their bytes count towards it).
    args.push('--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys');
    for (const covered of PROC_COVERED) args.push('--ro-bind-try', covered, covered);
    const tmpfsSize = String(plan.tmpfsBytes ?? DEFAULT_TMPFS_BYTES);
    args.push('--dev', '/dev', '--size', tmpfsSize, '--tmpfs', '/dev/shm', '--remount-ro', '/dev');
    args.push('--size', tmpfsSize, '--tmpfs', '/tmp', '--dir', '/tmp/home');
    for (const bind of plan.binds) {
      if (bind.host === '') args.push('--ro-bind-data', String(EMPTY_FD), bind.at);
      else args.push(bind.writable ? '--bind' : '--ro-bind', bind.host, bind.at);
    }
    for (const hidden of plan.hidden) args.push('--tmpfs', hidden, '--remount-ro', hidden);
    args.push('--clearenv');
    for (const [name, value] of Object.entries(plan.env)) args.push('--setenv', name, name === 'PATH' ? sandboxPath(value, plan) : value);
    args.push('--setenv', 'HOME', '/tmp/home', '--setenv', 'TMPDIR', '/tmp', '--chdir', plan.cwd);
    args.push('--', '/bin/sh', '-c', script);
    return args;
  }

  private async probeNow(): Promise<SandboxSupport> {
    if (!this.bwrap) {
      return {
        available: false,
        cause: 'bubblewrap (bwrap) is not installed',
        fix: 'install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)',
        details: [],
      };
    }
    const version = spawnSync(this.bwrap, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    const tried = await this.trial();
    if (!tried.ok) {
      return {
        available: false,
        cause: `bubblewrap cannot make a sandbox here (${tried.said})`,
        fix:
          'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ ' +
          'kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), or run in a container that permits them',
        details: [`bwrap: ${version.stdout?.trim() || 'unknown version'}`],
      };
    }
    return {
      available: true,
      kind: 'bubblewrap',
      version: version.stdout?.trim() || 'bubblewrap',
      details: [
        'namespaces: user, mount, pid, ipc, uts, cgroup; network unless a role allows it',
        `process limit: ${isRoot() ? 'watchdog (the kernel does not limit root)' : 'kernel (per user namespace) and watchdog'}`,
        'memory limit: watchdog over resident memory',
      ],
    };
  }
}

/** Starts one command (no overlay) and returns it under way. */
async function startCommand(
  bwrap: string,
  request: SandboxRequest,
  argvOf: (plan: SandboxPlan, script: string) => string[],
): Promise<RunningCommand> {
  const { plan } = request;
  const script = wrapperScript(request);
  const { line, fed } = bwrapLine(argvOf(plan, script));
  const child = spawn(bwrap, line, { stdio: [...SANDBOX_STDIO], env: BWRAP_ENV });
  feedSandbox(child, fed);
  return startedOrUnavailable(child, superviseCommand(bwrap, request, child, argvOf));
}

/** The child process as the supervisor uses it: spawned with stdout, stderr and descriptors 3 and 4 as pipes. */
export type SupervisedChild = ChildProcess;

/** The readable pipe at descriptor `fd` of `child`. */
function pipeOf(child: ChildProcess, fd: number): Readable {
  return child.stdio[fd] as Readable;
}

/**
 * Watches a started sandbox: collects output, enforces the limits and the timeout, reads the
 * scans, and resolves `done` once the process and its descriptors are closed.
 */
export function superviseCommand(
  bwrap: string,
  request: SandboxRequest,
  child: SupervisedChild,
  argvOf: (plan: SandboxPlan, script: string) => string[],
  finish?: (run: SandboxRun) => Promise<SandboxRun>,
): RunningCommand {
  const { limits } = request;
  const started = performance.now();
  const out = new StreamTail(limits.keepBytes);
  const err = new StreamTail(limits.keepBytes);
  const before: Buffer[] = [];
  let timedOut = false;
  let limit: SandboxRun['limit'];
  let killed = false;
  // The sandbox's init (host pid), once bwrap reports it. A kill before then waits for it: a
  // SIGKILL reaching bwrap while its child is not yet bound to die with it would leave the
  // sandbox running unsupervised.
  let sandboxPid: number | null = null;
  let reported = false;
  // Once bwrap has exited its pids may belong to other processes: nothing is signalled then.
  let closedAlready = false;
  const killNow = () => {
    if (closedAlready) return;
    for (const pid of [sandboxPid, child.pid]) {
      if (!pid) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  };
  void sandboxChildPid(child).then((pid) => {
    sandboxPid = pid;
    reported = true;
    if (killed) killNow();
  });
  const kill = () => {
    if (killed) return;
    killed = true;
    if (reported) killNow();
    // bwrap that never reports its child is stuck before the sandbox exists: end it anyway.
    else setTimeout(() => !reported && killNow(), UNREPORTED_KILL_MS).unref();
  };
  const over = (stream: StreamTail) => {
    if (stream.total > limits.outputBytes && !limit) {
      limit = 'output';
      kill();
    }
  };
  pipeOf(child, 1).on('data', (chunk: Buffer) => {
    out.push(chunk);
    over(out);
  });
  pipeOf(child, 2).on('data', (chunk: Buffer) => {
    err.push(chunk);
    over(err);
    // The kernel refused a fork at the processes limit (it counts per user namespace, for any
    // user but root): a fork bomb held at the cap burns out between two watchdog looks, then
    // the command would sit until its timeout. A shell saying so ends it with the limit named.
    if (!limit && !killed && FORK_REFUSED.test(chunk.toString('latin1'))) {
      limit = 'processes';
      kill();
    }
  });
  pipeOf(child, 3).on('data', (chunk: Buffer) => before.push(chunk));
  pipeOf(child, 4).on('data', () => {});
  for (const fd of [3, 4]) pipeOf(child, fd).on('error', () => {});
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, limits.timeoutMs);
  const watched: Watched = {
    pid: child.pid ?? -1,
    sandboxPid: () => sandboxPid,
    seen(usage) {
      // Once ended, anything of the tree still seen is ended too, until bwrap has closed.
      if (killed) {
        if (reported && !closedAlready) for (const pid of usage.pids) signalKill(pid);
        return;
      }
      // The sandbox's init and the wrapper's shell are not the command's.
      if (usage.processes > limits.processes + 2) {
        limit ??= 'processes';
        kill();
      } else if (usage.residentBytes + usage.tmpfsBytes > limits.memoryBytes) {
        limit ??= 'memory';
        kill();
      }
    },
  };
  const unwatch = watchdog.watch(watched);
  child.on('exit', () => {
    closedAlready = true;
  });
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('error', () => resolve({ code: null, signal: null }));
    child.on('close', (code, signal) => {
      closedAlready = true;
      resolve({ code, signal });
    });
  });
  const done = closed.then(async ({ code, signal }) => {
    closedAlready = true;
    clearTimeout(timer);
    unwatch();
    const durationMs = Math.round(performance.now() - started);
    let scan: SandboxRun['scan'];
    if (request.plan.scan) {
      const beforeList = parseScan(Buffer.concat(before));
      const afterList = beforeList ? await scanOnly(bwrap, request, argvOf) : null;
      if (beforeList && afterList) scan = { before: beforeList, after: afterList };
    }
    // The wrapper exits with the command's status; a command ended by a signal exits 128+n from the shell.
    const exitCode = killed || signal ? null : code;
    const run: SandboxRun = {
      exitCode,
      ...(killed
        ? { signal: 'SIGKILL' }
        : signal
          ? { signal }
          : code !== null && code > 128 && code < 160
            ? { signal: signalName(code - 128) }
            : {}),
      timedOut,
      ...(limit ? { limit } : {}),
      durationMs,
      stdout: out.text(),
      stderr: err.text(),
      stdoutTruncated: out.truncated,
      stderrTruncated: err.truncated,
      ...(scan ? { scan } : {}),
    };
    return finish ? finish(run) : run;
  });
  return {
    takeOutput: () => {
      const stdout = out.takeNew();
      const stderr = err.takeNew();
      return { stdout: stdout.text, stderr: stderr.text, truncated: stdout.truncated || stderr.truncated };
    },
    done,
    kill,
  };
}

/** Runs a listing-only sandbox over the plan's scan roots (after a killed command), or null. */
async function scanOnly(
  bwrap: string,
  request: SandboxRequest,
  argvOf: (plan: SandboxPlan, script: string) => string[],
): Promise<ReadonlyMap<string, ScanEntry> | null> {
  const scan = request.plan.scan;
  if (!scan) return null;
  const script = `${findLine(scan.roots, scan.prune)} >&4; printf 'E\\0' >&4`;
  // Only the binds whose place is made in the sandbox's own root: the command may have put a
  // link where a nested one would be mounted (what is nested is pruned from the listing anyway).
  const binds = request.plan.binds.filter((b) => !request.plan.binds.some((o) => o !== b && b.at.startsWith(`${o.at}/`)));
  const plan: SandboxPlan = { ...request.plan, binds, hidden: [], overlay: undefined };
  const { line, fed } = bwrapLine(argvOf(plan, script));
  const child = spawn(bwrap, line, { stdio: ['ignore', 'ignore', 'ignore', 'ignore', 'pipe', 'pipe', 'pipe', 'pipe'], env: BWRAP_ENV });
  feedSandbox(child, fed);
  const chunks: Buffer[] = [];
  pipeOf(child, 4).on('data', (c: Buffer) => chunks.push(c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await new Promise<void>((resolve) => {
    child.on('error', () => resolve());
    child.on('close', () => resolve());
  });
  clearTimeout(timer);
  return parseScan(Buffer.concat(chunks));
}

/**
 * The shell script bwrap runs: the scan before (descriptor 3), the command with descriptors 3
 * and 4 closed and the limits applied, the scan after (descriptor 4), the command's status.
 */
export function wrapperScript(request: SandboxRequest): string {
  const { plan, limits } = request;
  // The kernel counts the sandbox's init and this shell too; the watchdog ends the tree a process earlier (`NPROC_SLACK`).
  const limited = `prlimit --core=0 --nproc=${limits.processes + NPROC_SLACK} --`;
  const inner =
    'shell' in request.command ? `/bin/sh -c ${shellQuote(request.command.shell)}` : request.command.argv.map(shellQuote).join(' ');
  const run = `if command -v prlimit >/dev/null 2>&1; then ${limited} ${inner}; else ${inner}; fi </dev/null`;
  // The descriptors past stderr are closed before the command starts, so nothing it runs holds
  // one (not even through pidfd_getfd on this shell); the list after comes from a listing-only
  // sandbox once the command has ended (`scanOnly`).
  if (!plan.scan) return `exec 3>&- 4>&- 5>&-; ${run}`;
  const find = findLine(plan.scan.roots, plan.scan.prune);
  return `${find} >&3; printf 'E\\0' >&3; exec 3>&- 4>&- 5>&-; ${run}`;
}

/**
 * A `find` over `roots` (missing ones skipped) leaving out `prune` and `.git` names, printing
 * `type size mtime/ctime inode path` records ended by NUL (the change time, which no program can
 * set back, tells a change apart whose size and mtime were put back).
 */
function findLine(roots: readonly string[], prune: readonly string[]): string {
  const pruned = [...prune.map((p) => `-path ${shellQuote(p)}`), '-name .git'].join(' -o ');
  return `find ${roots.map(shellQuote).join(' ')} \\( ${pruned} \\) -prune -o -printf '%y %s %T@/%C@ %i %p\\0' 2>/dev/null`;
}

/** A scan list as a map (sandbox path → entry), or null when it did not end with its end mark. */
export function parseScan(bytes: Buffer): ReadonlyMap<string, ScanEntry> | null {
  const records = bytes.toString('utf8').split('\0');
  if (records.length < 2 || records[records.length - 2] !== 'E' || records[records.length - 1] !== '') return null;
  const map = new Map<string, ScanEntry>();
  for (const record of records.slice(0, -2)) {
    const parts = record.split(' ');
    if (parts.length < 5) continue;
    const [type, size, mtime, inode] = parts;
    map.set(parts.slice(4).join(' '), { type: type!, size: Number(size), mtime: mtime!, inode: Number(inode) });
  }
  return map;
}

/** `value` quoted for `/bin/sh`. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** What the watchdog counts of one sandbox. */
interface Usage {
  processes: number;
  residentBytes: number;
  /** Bytes held in the sandbox's own tmpfs (`/tmp`, `/dev/shm`): memory no process owns. */
  tmpfsBytes: number;
  pids: number[];
}

/** One sandbox the watchdog looks at: its bwrap process, its init once known, and what to do with what it counted. */
interface Watched {
  readonly pid: number;
  sandboxPid(): number | null;
  seen(usage: Usage): void;
}

/**
 * One watchdog for every sandbox of this process: every `WATCH_MS` while any is watched, one
 * pass over `/proc` (parent of every process), then each sandbox's descendants counted with their
 * resident memory. One pass however many commands run.
 */
class Watchdog {
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;

  watch(w: Watched): () => void {
    this.watched.add(w);
    this.timer ??= setInterval(() => this.tick(), WATCH_MS);
    return () => {
      this.watched.delete(w);
      if (this.watched.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private tick(): void {
    const children = processChildren();
    for (const w of [...this.watched]) if (w.pid > 0) w.seen(usageOf(children, w.pid, w.sandboxPid()));
  }
}

const watchdog = new Watchdog();

/** Every process's children, by parent pid, from one pass over `/proc`. */
function processChildren(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return children;
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const close = stat.lastIndexOf(')');
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      const list = children.get(ppid);
      if (list) list.push(Number(name));
      else children.set(ppid, [Number(name)]);
    } catch {
      /* gone */
    }
  }
  return children;
}

/** The descendants of `pid` and their resident memory, and what the sandbox of init `sandboxPid` holds in its tmpfs. */
function usageOf(children: ReadonlyMap<number, number[]>, pid: number, sandboxPid: number | null): Usage {
  let processes = 0;
  let residentBytes = 0;
  const pids: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.pop()!;
    processes++;
    pids.push(next);
    try {
      residentBytes += Number(readFileSync(`/proc/${next}/statm`, 'latin1').split(' ')[1]) * 4096;
    } catch {
      /* gone */
    }
    for (const c of children.get(next) ?? []) queue.push(c);
  }
  return { processes, residentBytes, tmpfsBytes: sandboxTmpfsBytes(sandboxPid), pids };
}

/**
 * What the sandbox of init `sandboxPid` holds in its private `/tmp` and `/dev/shm` (0 for either
 * that is not its own). Until the sandbox has moved into its own root, `/proc/<pid>/root/tmp` is
 * the host's `/tmp`, a disk of tens of GiB: counting it ended a command with the memory limit
 * when a watchdog look fell in that window, which a loaded machine widens. So a folder is counted
 * only when it is another file system than the host's folder of that name.
 */
export function sandboxTmpfsBytes(sandboxPid: number | null): number {
  if (sandboxPid === null) return 0;
  return privateBytes(`/proc/${sandboxPid}/root/tmp`, '/tmp') + privateBytes(`/proc/${sandboxPid}/root/dev/shm`, '/dev/shm');
}

/** Bytes in use at `path` when it is another file system than the host's `hostPath` (else 0; 0 when it cannot be looked at). */
function privateBytes(path: string, hostPath: string): number {
  try {
    if (statSync(path).dev === statSync(hostPath).dev) return 0;
  } catch {
    return 0;
  }
  return usedBytes(path);
}

/** Bytes in use on the file system at `path` (0 when it cannot be looked at). */
function usedBytes(path: string): number {
  try {
    const fs = statfsSync(path);
    return (fs.blocks - fs.bfree) * fs.bsize;
  } catch {
    return 0;
  }
}

function signalKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

/** A stream's kept tail, its total size, and what arrived since the last `takeNew`. */
class StreamTail {
  private readonly all: TailBuffer;
  private fresh: TailBuffer;
  total = 0;

  constructor(private readonly keep: number) {
    this.all = new TailBuffer(keep);
    this.fresh = new TailBuffer(keep);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.all.push(chunk);
    this.fresh.push(chunk);
  }

  text(): string {
    return this.all.text();
  }

  get truncated(): boolean {
    return this.all.truncated;
  }

  takeNew(): { text: string; truncated: boolean } {
    const taken = { text: this.fresh.text(), truncated: this.fresh.truncated };
    this.fresh = new TailBuffer(this.keep);
    return taken;
  }
}

function entryKind(path: string): 'link' | 'folder' | 'file' | 'missing' {
  try {
    const s = lstatSync(path);
    return s.isSymbolicLink() ? 'link' : s.isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

function findProgram(name: string, path: string): string | null {
  for (const dir of path.split(':')) {
    if (dir === '' || !dir.startsWith('/')) continue;
    if (existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return existsSync(`/usr/bin/${name}`) ? `/usr/bin/${name}` : null;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  3: 'SIGQUIT',
  6: 'SIGABRT',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  15: 'SIGTERM',
};

function signalName(n: number): string {
  return SIGNALS[n] ?? `SIG${n}`;
}

/**
 * The server's `PATH` as the sandbox holds it: only absolute entries inside the system folders
 * shown (`/usr`, `/bin`, `/sbin`, `/lib*`, `/opt`) or a bound place; the others name folders of
 * the host the command cannot reach (and would show it where the server keeps its tools).
 * Empty: `/usr/local/bin:/usr/bin:/bin`.
 */
export function sandboxPath(value: string, plan: SandboxPlan): string {
  const places = [
    '/usr',
    '/opt',
    ...SYSTEM_TOP.map((t) => `/${t}`),
    ...plan.binds.map((b) => b.at),
    ...(plan.overlay ? [plan.overlay.at] : []),
  ];
  const kept = value.split(':').filter((entry) => entry.startsWith('/') && places.some((p) => entry === p || entry.startsWith(`${p}/`)));
  return kept.length > 0 ? [...new Set(kept)].join(':') : '/usr/local/bin:/usr/bin:/bin';
}
