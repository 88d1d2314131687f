/**
 * Class S as an ordinary user: the key attacks of sandbox-attacks.test.ts (reading outside, the
 * server's environment and argv through /proc, mounts, sysctls, capabilities, the network, a fork
 * bomb, outliving the timeout, a timeout during set-up, memory in a process and in tmpfs), run by
 * sandbox-user-child.ts in a child process as a user that is not root.
 *
 * As root (and with `useradd`): a user `gatefs-sbx-<random>` is created for this file and removed
 * after it; the child runs as that user (`runuser`) in a temp folder it owns. Otherwise: the child
 * runs as the current user. Skipped, with the reason, where that user cannot make a bubblewrap
 * sandbox (unprivileged user namespaces not allowed) or no ordinary user can be made.
 *
 * The child runs under `prlimit --nproc=1500`: the kernel's process limit for that user bounds the
 * fork bomb on this shared machine even if the sandbox's own limits fail.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { RUN_TYPESCRIPT } from '../run-typescript.js';

const here = dirname(fileURLToPath(import.meta.url));
const childScript = join(here, 'sandbox-user-child.ts');
const isRoot = process.getuid?.() === 0;
const PATH = '/usr/local/bin:/usr/bin:/bin';

/** Who the child runs as, or why it cannot run. */
interface Runner {
  user: string | null;
  uid: number;
  gid: number;
  skip: string;
}

/** The absolute path of `program` on this process's PATH (plus the sbin folders), or ''. */
function which(program: string): string {
  const r = spawnSync('sh', ['-c', `command -v ${program}`], {
    encoding: 'utf8',
    env: { PATH: `${process.env.PATH ?? PATH}:/usr/sbin:/sbin` },
  });
  return r.status === 0 ? r.stdout.trim() : '';
}
const RUNUSER = which('runuser');

function bwrapProbeAs(user: string | null): string {
  const probe = [
    'bwrap',
    '--unshare-all',
    '--die-with-parent',
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--',
    '/bin/sh',
    '-c',
    'exit 0',
  ];
  const r = user
    ? spawnSync(RUNUSER, ['-u', user, '--', ...probe], { encoding: 'utf8', timeout: 20_000 })
    : spawnSync(probe[0]!, probe.slice(1), { encoding: 'utf8', timeout: 20_000 });
  return r.status === 0
    ? ''
    : `bubblewrap cannot make a sandbox as ${user ?? 'this user'}: ${`${r.stderr ?? ''}`.trim().split('\n')[0] || `exit ${r.status}`}`;
}

async function chooseRunner(): Promise<Runner> {
  const support = await new BubblewrapSandbox().probe();
  if (!support.available) return { user: null, uid: -1, gid: -1, skip: `${support.cause}; ${support.fix}` };
  if (!isRoot) {
    const why = bwrapProbeAs(null);
    return { user: null, uid: process.getuid!(), gid: process.getgid!(), skip: why };
  }
  if (!which('useradd') || !RUNUSER)
    return { user: null, uid: -1, gid: -1, skip: 'running as root without useradd/runuser: no ordinary user can be made' };
  const user = `gatefs-sbx-${randomBytes(3).toString('hex')}`;
  const made = spawnSync(which('useradd'), ['--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', user], {
    encoding: 'utf8',
  });
  if (made.status !== 0) return { user: null, uid: -1, gid: -1, skip: `useradd failed: ${made.stderr.trim()}` };
  const id = (flag: string) => Number(spawnSync('id', [flag, user], { encoding: 'utf8' }).stdout.trim());
  const runner = { user, uid: id('-u'), gid: id('-g'), skip: '' };
  runner.skip = bwrapProbeAs(user);
  return runner;
}

const runner = await chooseRunner();
if (runner.skip) console.warn(`skipping the ordinary-user sandbox tests: ${runner.skip}`);
const folders: string[] = [];

afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
  if (runner.user) spawnSync(which('userdel') || 'userdel', ['--force', runner.user], { encoding: 'utf8' });
});

interface CaseResult {
  case: string;
  error?: string;
  data?: any;
  changes?: string[];
  hostPath?: boolean;
  canary?: boolean;
  serving?: boolean;
}

/** Runs the child over `cases` as the runner's user and answers its results by case. */
async function runCases(cases: string[], limitMs = 60_000): Promise<Record<string, CaseResult>> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'gatefs-sbx-user-')));
  folders.push(base);
  if (runner.user) chownSync(base, runner.uid, runner.gid);
  const node = ['prlimit', '--nproc=1500:1500', '--', process.execPath, ...RUN_TYPESCRIPT, childScript, JSON.stringify({ base, cases })];
  const [cmd, ...args] = runner.user ? [RUNUSER, '-u', runner.user, '--', ...node] : node;
  const child = spawn(cmd!, args, {
    cwd: join(here, '../..'),
    env: { PATH, HOME: join(base, 'home'), LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, limitMs);
  const code = await new Promise<number | string | null>((r) => {
    child.on('error', (e) => r(String(e)));
    child.on('close', (c) => r(c));
  });
  clearTimeout(timer);
  const results: Record<string, CaseResult> = {};
  for (const line of out.split('\n').filter((l) => l.startsWith('{'))) {
    const r = JSON.parse(line) as CaseResult;
    results[r.case] = r;
  }
  for (const name of cases) {
    if (!results[name]) throw new Error(`the child gave no result for ${name} (exit ${code}): ${err.slice(-2000)}`);
    if (results[name]!.error) throw new Error(`${name}: ${results[name]!.error}`);
  }
  expect(err, 'the child left sandbox processes behind').not.toMatch(/^left: /m);
  return results;
}

/** What every case must leave: nothing outside changed, no host path or canary in an answer, both conversations served. */
function expectContained(r: CaseResult): void {
  expect({ case: r.case, changes: r.changes, hostPath: r.hostPath, canary: r.canary, serving: r.serving }).toEqual({
    case: r.case,
    changes: [],
    hostPath: false,
    canary: false,
    serving: true,
  });
}

const who = runner.user ? `a user made for the test (${runner.user})` : 'the current user';
const title = runner.skip ? `class S as an ordinary user (skipped: ${runner.skip})` : `class S as an ordinary user: ${who}`;

describe.skipIf(Boolean(runner.skip))(title, () => {
  it('confinement: no outside path, no server environment or argv, no mounts, no sysctls, no capabilities, no network', async () => {
    const r = await runCases(['read-outside', 'environ-cmdline', 'mounts', 'sysctl', 'caps', 'network']);
    expect({
      'read-outside': r['read-outside']!.data,
      'environ-cmdline': r['environ-cmdline']!.data,
      mounts: r.mounts!.data.stdout,
      sysctl: r.sysctl!.data.stdout,
      caps: /^CapEff:\s+0+\n$/.test(r.caps!.data.stdout) ? 'none' : r.caps!.data.stdout,
      network: r.network!.data,
    }).toEqual({
      'read-outside': { exitCode: 0, stdout: 'end\n' },
      'environ-cmdline': { secret: false, hostPath: false },
      mounts: 'end\n',
      sysctl: 'end\n',
      caps: 'none',
      network: { stdout: 'end\n', connections: 0 },
    });
    for (const c of Object.values(r)) expectContained(c);
  }, 90_000);

  it('a fork bomb ends with the processes limit, and outliving the timeout ends the whole tree', async () => {
    const r = await runCases(['fork-bomb', 'timeout']);
    const bomb = r['fork-bomb']!.data;
    const timeout = r.timeout!.data;
    expect({ bomb, timeout: { ...timeout, durationMs: timeout.durationMs < 15_000 ? 'bounded' : timeout.durationMs } }).toEqual({
      // The kernel caps the user's processes (prlimit); the answer must still say which limit ended it.
      bomb: { exitCode: null, timedOut: false, limit: 'processes', left: [] },
      timeout: { exitCode: null, timedOut: true, durationMs: 'bounded', left: [] },
    });
    for (const c of Object.values(r)) expectContained(c);
  }, 90_000);

  it('a timeout that fires during set-up (timeoutMs: 1) ends the command at once', async () => {
    const r = await runCases(['early-timeout']);
    expect(r['early-timeout']!.data).toEqual({ runs: Array.from({ length: 8 }, () => 'ended'), left: [] });
    expectContained(r['early-timeout']!);
  }, 90_000);

  it('memory held by a process and in the private /tmp ends with the memory limit', async () => {
    const r = await runCases(['memory-process', 'memory-tmpfs']);
    expect({ process: r['memory-process']!.data, tmpfs: r['memory-tmpfs']!.data }).toEqual({
      process: { exitCode: null, limit: 'memory' },
      tmpfs: { exitCode: null, limit: 'memory' },
    });
    for (const c of Object.values(r)) expectContained(c);
  }, 90_000);
});
