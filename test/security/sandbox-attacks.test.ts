/**
 * Class S (SECURITY.md, "commands in the sandbox"): a command run through `exec` attacks the
 * confinement from inside, by every route we could think of: absolute host paths (the source
 * repository, the state directory, another conversation's workspace, the user's home, a folder
 * outside everything), `/proc`, planted symlinks (through the file tools and the command), hard
 * links, the source `.git` and the worktree's `.git` file, `gatefs.yaml`, new `.git` folders,
 * device files, mounts, nested namespaces, ptrace and signals, the network (TCP, an abstract unix
 * socket, UDP, DNS), outliving the timeout, a fork bomb, memory (processes and tmpfs), output
 * floods, the scan descriptors, the programs and environment the scans use, TIOCSTI, and a
 * destination link in the workspace that bwrap follows while it sets the sandbox up.
 *
 * Every attack ends with the same checks (`attack`): the typed outcome asserted in the test, the
 * whole temp folder hashed before and after except the attacker's own workspaces (and the state
 * database, which the run log legitimately appends to) unchanged, no host path (the temp folder's
 * prefix) and no canary byte in any answer text, and the server still serving both
 * conversations. The victim conversation `c2` and the canary files live in the user's "home": a
 * temp folder the server's HOME names, which also holds the state directory.
 *
 * Runs as whatever user runs the suite (root on CI here); sandbox-ordinary-user.test.ts runs the
 * key cases as an ordinary user. Skips with the probe's reason where bubblewrap cannot run.
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { hashTree, probeLine, sh, treeChanges, waitNoProcessWith } from './sandbox-attack-kit.js';

const support = await new BubblewrapSandbox().probe();
const reason = support.available ? '' : `${support.cause}; ${support.fix}`;
if (!support.available) console.warn(`skipping the sandbox attack tests: ${reason}`);
const isRoot = process.getuid?.() === 0;

/** Per-test bound: a hang fails here, well under the suite's timeout. */
const T = 30_000;

interface ExecAnswer {
  exitCode: number | null;
  signal?: string;
  timedOut: boolean;
  limit?: 'memory' | 'processes' | 'output';
  durationMs: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
  changed: { path: string; status: string }[];
  changedCount: number;
}
type Answer = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

const tools = ['read', 'write', 'list', 'grep', 'delete', 'diff', 'commit', 'exec', 'exec_output', 'exec_kill'];
const limits = { timeout: 20, processes: 64, memory: '256M', output: '256K' };

let base = '';
let home = '';
let stateDir = '';
let outside = '';
let repo: TempRepo;
let host: Host;
let marker = '';
let c2ws = '';
const serverPid = process.pid;
/** Every answer text the tools gave, for the host-path and canary checks. */
const transcript: string[] = [];
/** Conversations an attack may change (their workspaces are not hashed). */
const attackers = new Set<string>(['c1']);
const saved: Record<string, string | undefined> = {};
let tcp: net.Server;
let tcpPort = 0;
let tcpConnections = 0;
let abstractServer: net.Server;
let abstractName = '';
let abstractConnections = 0;
let udp: dgram.Socket;
let udpPort = 0;
let udpMessages = 0;
let fresh = 0;

function ws(conversation: string): string {
  return join(stateDir, 'worktrees', conversation);
}

/** The state database files (the run log appends to them) and the attackers' workspaces and git worktree records. */
function defaultSkip(abs: string): boolean {
  if (abs.startsWith(join(stateDir, 'gatefs.db')) || abs.startsWith(join(stateDir, 'locks/'))) return true;
  for (const c of attackers) {
    if (abs === ws(c) || abs === join(repo.dir, '.git/worktrees', c)) return true;
  }
  return false;
}

async function call(conversation: string, tool: string, args: unknown): Promise<Answer> {
  const r = (await host.gate.call(conversation, tool, args)) as Answer;
  transcript.push(JSON.stringify(r));
  return r;
}

/** Runs a command in `conversation` and returns its answer (a tool failure fails the test). */
async function exec(command: string, options: { conversation?: string; timeoutMs?: number; cwd?: string } = {}): Promise<ExecAnswer> {
  const { conversation = 'c1', ...rest } = options;
  const r = await call(conversation, 'exec', { command, ...rest });
  if (!r.ok) throw new Error(`exec: ${r.error.code} ${r.error.message}`);
  return r.value as ExecAnswer;
}

/** A new conversation (its workspace not hashed): for attacks that may leave a workspace unusable. */
async function attacker(role = 'agent'): Promise<string> {
  const id = `a${++fresh}`;
  attackers.add(id);
  await host.prepare({ conversation: id, role });
  return id;
}

/**
 * Runs `body` (which asserts the typed outcome) and then checks what every attack must leave:
 * nothing outside the attackers' workspaces changed, no host path and no canary in any answer,
 * and the server still serving both conversations.
 */
async function attack(body: () => Promise<void>, skip: (abs: string) => boolean = defaultSkip): Promise<void> {
  const from = transcript.length;
  const before = hashTree(base, skip);
  await body();
  const after = hashTree(base, skip);
  expect(treeChanges(before, after), 'the trees outside the namespace changed').toEqual([]);
  const said = transcript.slice(from).join('\n');
  expect(said.includes(base), 'an answer names a host path').toBe(false);
  expect(said.includes(marker), 'an answer holds canary bytes from outside').toBe(false);
  await expectServing();
}

async function expectServing(): Promise<void> {
  expect(await call('c1', 'read', { path: 'src/a.txt' })).toMatchObject({ ok: true });
  expect(await call('c2', 'read', { path: 'notes/canary.txt' })).toMatchObject({ ok: true });
}

const lines = (s: string) => s.split('\n').filter(Boolean);
/** The names in the host's /home (users' homes), none of which a command may see at /home. */
const hostHomeEntries = (): string[] => {
  try {
    return readdirSync('/home');
  } catch {
    return [];
  }
};

describe.skipIf(!support.available)(
  support.available ? 'class S: attacks from inside a sandboxed command' : `class S (skipped: ${reason})`,
  () => {
    beforeAll(async () => {
      base = realpathSync(mkdtempSync(join(tmpdir(), 'gatefs-sbx-')));
      marker = `SBXCANARY${randomBytes(8).toString('hex')}`;
      home = join(base, 'home');
      stateDir = join(home, '.local/state/gatefs');
      outside = join(base, 'outside');
      const put = (path: string, content: string) => {
        mkdirSync(join(path, '..'), { recursive: true });
        writeFileSync(path, content);
      };
      put(join(home, 'secret.txt'), `${marker} home\n`);
      put(join(home, '.ssh/id_ed25519'), `${marker} key\n`);
      put(join(outside, 'secret.txt'), `${marker} outside\n`);
      put(join(outside, 'sub/deep.txt'), `${marker} deep\n`);
      repo = makeTempRepo(
        {
          'src/a.txt': 'alpha\n',
          '.gitignore': 'node_modules/\npackages/app/node_modules/\n',
          'gatefs.yaml': 'roles: []\n',
          'docs/spec/s.md': 'spec\n',
          'packages/app/index.js': 'module.exports = 0;\n',
        },
        base,
      );
      put(join(repo.dir, '.git/info/canary'), `${marker} source .git\n`);
      put(join(repo.dir, 'node_modules/dep/index.js'), 'module.exports = 1;\n');
      put(join(repo.dir, 'packages/app/node_modules/x/index.js'), 'module.exports = 2;\n');
      for (const name of ['HOME', 'GATEFS_SBX_SECRET', 'PATH']) saved[name] = process.env[name];
      process.env.HOME = home;
      process.env.GATEFS_SBX_SECRET = marker;
      host = await createHost({
        repo: repo.dir,
        stateDir,
        manifest: {
          roles: [
            { name: 'agent', tools, share: ['node_modules'], exec: limits },
            { name: 'plain', tools, exec: limits },
            { name: 'copy', tools, workspace: { backend: 'copy' }, exec: limits },
            {
              name: 'nested',
              tools,
              share: ['packages/app/node_modules'],
              workspace: { mounts: [{ path: 'docs/spec', writable: false }] },
              exec: limits,
            },
          ],
        },
      });
      await host.prepare({ conversation: 'c1', role: 'agent' });
      await host.prepare({ conversation: 'c2', role: 'agent' });
      c2ws = ws('c2');
      expect(await call('c2', 'write', { path: 'notes/canary.txt', content: `${marker} c2 uncommitted\n` })).toMatchObject({ ok: true });
      tcp = net.createServer((s) => {
        tcpConnections++;
        s.destroy();
      });
      await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
      tcpPort = (tcp.address() as net.AddressInfo).port;
      abstractName = `\0gatefs-sbx-${randomBytes(6).toString('hex')}`;
      abstractServer = net.createServer((s) => {
        abstractConnections++;
        s.destroy();
      });
      await new Promise<void>((r) => abstractServer.listen(abstractName, r));
      udp = dgram.createSocket('udp4');
      udp.on('message', () => udpMessages++);
      await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
      udpPort = udp.address().port;
    }, 120_000);

    afterAll(async () => {
      await host?.close();
      tcp?.close();
      abstractServer?.close();
      udp?.close();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      if (base) rmSync(base, { recursive: true, force: true });
    });

    it(
      'cannot read or list the source repository, the state dir, another workspace, the home folder or any other host path',
      async () => {
        await attack(async () => {
          const probe = probeLine({
            repo: repo.dir,
            'repo file': join(repo.dir, 'src/a.txt'),
            'source .git': join(repo.dir, '.git/info/canary'),
            'state dir': stateDir,
            'state db': join(stateDir, 'gatefs.db'),
            'other workspace': join(c2ws, 'notes/canary.txt'),
            home,
            'home secret': join(home, 'secret.txt'),
            'home key': join(home, '.ssh/id_ed25519'),
            outside: join(outside, 'secret.txt'),
            'temp folder': base,
            '/root': '/root',
            // /home is the agent's home (issue 25): the host's /home entries must not show in it.
            ...Object.fromEntries(hostHomeEntries().map((name) => [`host /home/${name}`, `/home/${name}`])),
            '/etc/shadow': '/etc/shadow',
            '/var': '/var',
            '/run': '/run',
            '/sys': '/sys',
            '/worktrees/c2': '/worktrees/c2',
            '/worktrees/c1/../c2': '/worktrees/c1/../c2',
            '/worktrees/c1x': '/worktrees/c1x',
          });
          const v = await exec(`${probe}; echo end`);
          expect(v).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'end\n', changedCount: 0 });
          // /home shows the agent's own home and nothing else.
          const listed = await exec('ls -A /home');
          expect(lines(listed.stdout).sort()).toEqual(['.gatefs', 'AGENTS.md', 'memory', 'notes', 'skills', 'tmp', 'work-items']);
          // Everything the command can see that is not /proc, /sys, /dev or the system folders holds no canary.
          const sweep = await exec(
            `grep -rl ${sh(marker.slice(0, 9))}${sh(marker.slice(9))} / --exclude-dir=proc --exclude-dir=usr --exclude-dir=dev --exclude-dir=opt 2>/dev/null; echo end`,
          );
          expect(sweep.stdout).toBe('end\n');
        });
      },
      T,
    );

    it(
      "sees only the role's environment: no server secret, HOME private, nothing in any process's environ",
      async () => {
        await attack(async () => {
          // bwrap's own process (the sandbox's pid 1) keeps the environment it was started with.
          const v = await exec(`env; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; echo "home=$HOME"`);
          expect(v.exitCode).toBe(0);
          expect(v.stdout).toContain('home=/tmp/home');
          const names = new Set(
            lines(v.stdout)
              .filter((l) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(l))
              .map((l) => l.slice(0, l.indexOf('='))),
          );
          const allowed = new Set(['PATH', 'LANG', 'TERM', 'HOME', 'TMPDIR', 'PWD', 'SHLVL', 'OLDPWD', '_', 'home']);
          expect([...names].filter((n) => !allowed.has(n)).sort(), 'variables of the server seen in the sandbox').toEqual([]);
        });
      },
      T,
    );

    it(
      'reaches nothing of the host through /proc/1/root, /proc/self/root or the server pid',
      async () => {
        await attack(async () => {
          const v = await exec(
            [
              'ls -A /proc/1/root',
              'echo ---',
              probeLine({
                'proc 1 root': `/proc/1/root${base}`,
                'proc self root': `/proc/self/root${base}`,
                'proc self cwd up': '/proc/self/cwd/../c2',
                'server root': `/proc/${serverPid}/root`,
                'server environ': `/proc/${serverPid}/environ`,
                'server cwd': `/proc/${serverPid}/cwd`,
                'server fd': `/proc/${serverPid}/fd`,
              }),
              `for p in /proc/[0-9]*; do [ -e "$p/root${base}" ] && echo "REACHED $p"; done`,
              `ls /proc | grep -c '^[0-9]'`,
              'echo end',
            ].join('; '),
          );
          expect(v.exitCode).toBe(0);
          const [rootList, rest] = v.stdout.split('---\n');
          const allowed = new Set([
            'bin',
            'sbin',
            'lib',
            'lib32',
            'lib64',
            'libx32',
            'usr',
            'opt',
            'etc',
            'proc',
            'dev',
            'tmp',
            'worktrees',
            'home', // the agent's home (issue 25); what it holds is checked in the host-path probe above
          ]);
          expect(lines(rootList!).filter((n) => !allowed.has(n))).toEqual([]);
          expect(rest).not.toContain('REACHED');
          // The sandbox's own pid namespace: a handful of processes, never the server's.
          expect(Number(lines(rest!)[0])).toBeLessThan(20);
        });
      },
      T,
    );

    it(
      "shows no host path in its own processes' command lines (ps, /proc/1/cmdline)",
      async () => {
        await attack(async () => {
          // Nothing but our reading: an agent running `ps` gets bwrap's argv, which names the workspace,
          // the state dir and the source repository by their host paths. (The answer check in `attack`
          // fails on it too.)
          const v = await exec(`cat /proc/[0-9]*/cmdline | tr '\\0' ' '; echo; ps -eo args 2>/dev/null; echo end`);
          expect(v.exitCode).toBe(0);
          expect(v.stdout.includes(base), 'a host path in /proc/<pid>/cmdline').toBe(false);
        });
      },
      T,
    );

    it(
      '/proc/self/mountinfo names the host folders behind its binds, and none of them is reachable',
      async () => {
        // The kernel shows a bind mount's source folder (the fourth field) by its path on its
        // filesystem; bubblewrap cannot hide it. Decided: an accepted disclosure of host path names
        // (documented in the report), never of their contents: each path it shows must be absent here.
        const v = await exec('cat /proc/self/mountinfo');
        expect(v.exitCode).toBe(0);
        const shown = lines(v.stdout)
          .map((l) => l.split(' ')[3]!)
          .filter((p) => p.startsWith(base));
        const hostOnly = [...new Set(shown)];
        // Nothing of the other workspace or the home folder's canaries is even named.
        expect(hostOnly.filter((p) => p.startsWith(c2ws) || p.startsWith(outside) || p === join(home, 'secret.txt'))).toEqual([]);
        await attack(async () => {
          const probe = probeLine(Object.fromEntries(hostOnly.map((p, i) => [`mount source ${i}`, p])));
          const r = await exec(`${probe}; echo end`);
          expect(r.stdout).toBe('end\n');
        });
      },
      T,
    );

    it(
      'planted symlinks to outside are refused by the file tools (SYMLINK_ESCAPE) and lead nowhere in the command',
      async () => {
        await attack(async () => {
          const climb = '../'.repeat(20);
          const planted = await exec(
            [
              `ln -s ${sh(join(outside, 'secret.txt'))} l-abs`,
              `ln -s ${sh(c2ws)} l-dir`,
              `ln -s ${sh(climb + join(home, 'secret.txt').slice(1))} l-rel`,
              'ln -s ../c2 l-sibling',
              'ln -s /proc/1/root l-proc',
              `ln -s ${sh(join(repo.dir, '.git'))} l-git`,
              'echo end',
            ].join('; '),
          );
          expect(planted).toMatchObject({ exitCode: 0, stdout: 'end\n' });
          expect(planted.changed.map((c) => c.path).sort()).toEqual(['l-abs', 'l-dir', 'l-git', 'l-proc', 'l-rel', 'l-sibling']);
          for (const path of [
            'l-abs',
            'l-dir/notes/canary.txt',
            'l-rel',
            'l-sibling/notes/canary.txt',
            'l-git/info/canary',
            'l-proc/etc/passwd',
          ]) {
            expect(await call('c1', 'read', { path }), path).toMatchObject({ ok: false, error: { code: 'SYMLINK_ESCAPE' } });
          }
          expect(await call('c1', 'write', { path: 'l-abs', content: 'through the link\n' })).toMatchObject({ ok: false });
          expect(await call('c1', 'write', { path: 'l-dir/notes/canary.txt', content: 'x' })).toMatchObject({
            ok: false,
            error: { code: 'SYMLINK_ESCAPE' },
          });
          expect(await call('c1', 'list', { path: '.' })).toMatchObject({ ok: true });
          expect(await call('c1', 'grep', { pattern: marker.slice(0, 12) })).toMatchObject({ ok: true });
          const followed = await exec(
            `for l in l-abs l-dir/notes/canary.txt l-rel l-sibling/notes/canary.txt l-git/info/canary; do cat "$l" 2>/dev/null && echo "REACHED $l"; done; echo end`,
          );
          expect(followed.stdout).toBe('end\n');
          await exec('rm -f l-abs l-dir l-rel l-sibling l-proc l-git');
        });
      },
      T,
    );

    it(
      'cannot hard-link a file of another mount, the system or the covers into the workspace',
      async () => {
        await attack(async () => {
          const v = await exec(
            `{ ${[
              'ln gatefs.yaml h1',
              'ln node_modules/dep/index.js h2',
              'ln /usr/bin/env h3',
              'ln /etc/passwd h4',
              'ln .git h5',
              'ln /dev/null h6',
              `ln ${sh(join(c2ws, 'notes/canary.txt'))} h7 2>/dev/null`,
              'echo inside > in.txt && ln in.txt in-link.txt && echo inside-ok',
              'ls h1 h2 h3 h4 h5 h6 h7 2>/dev/null',
              'rm -f in.txt in-link.txt',
              'echo end',
            ].join('; ')}; } 2>&1`,
          );
          expect(v.exitCode).toBe(0);
          expect(v.stdout.match(/Invalid cross-device link/g)?.length).toBe(6);
          expect(v.stdout).toMatch(/inside-ok\nend\n$/);
        });
      },
      T,
    );

    it(
      "keeps the worktree's .git file empty and read-only, and the source .git out of sight",
      async () => {
        const gitFile = join(ws('c1'), '.git');
        const before = readFileSync(gitFile, 'utf8');
        await attack(async () => {
          const v = await exec(
            [
              'wc -c < .git',
              "echo 'gitdir: /tmp/evil' > .git && echo W1",
              'rm -f .git && echo W2',
              'mv .git g && echo W3',
              'chmod 777 .git && echo W4',
              'git status >/dev/null 2>&1 && echo W5',
              `GIT_DIR=${sh(join(repo.dir, '.git'))} git log >/dev/null 2>&1 && echo W6`,
              'git rev-parse --git-common-dir >/dev/null 2>&1 && echo W7',
              'echo end',
            ].join('; '),
          );
          expect(v.stdout).toBe('0\nend\n');
        });
        expect(readFileSync(gitFile, 'utf8')).toBe(before);
        expect(before).toMatch(/^gitdir: /);
      },
      T,
    );

    it(
      'cannot change gatefs.yaml by any route',
      async () => {
        const yaml = join(ws('c1'), 'gatefs.yaml');
        const before = readFileSync(yaml, 'utf8');
        await attack(async () => {
          const v = await exec(
            `${[
              'echo evil > gatefs.yaml && echo W1',
              'echo evil >> gatefs.yaml && echo W2',
              'rm -f gatefs.yaml && echo W3',
              'mv gatefs.yaml g.yaml && echo W4',
              'truncate -s 0 gatefs.yaml && echo W5',
              'chmod 777 gatefs.yaml && echo W6',
              'touch -d 2000-01-01 gatefs.yaml && echo W7',
              'ln -sf /tmp/x gatefs.yaml && echo W8',
              'cp /dev/null gatefs.yaml && echo W9',
              'echo end',
            ].join('; ')} 2>/dev/null`,
          );
          expect(v.stdout).toBe('end\n');
          expect(await call('c1', 'write', { path: 'gatefs.yaml', content: 'evil\n' })).toMatchObject({ ok: false });
        });
        expect(readFileSync(yaml, 'utf8')).toBe(before);
      },
      T,
    );

    it(
      'a .git folder a command creates is never honoured by gatefs git, nor readable through the file tools',
      async () => {
        const id = await attacker();
        const pwned = join(outside, 'pwned-by-nested-git');
        // commit writes objects and refs into the source .git: compare the rest.
        const skip = (abs: string) => defaultSkip(abs) || abs.startsWith(join(repo.dir, '.git/')) || abs === join(repo.dir, '.git');
        await attack(async () => {
          const config = `[core]\n\tfsmonitor = "touch ${pwned}; false"\n\thooksPath = /tmp\n[diff]\n\texternal = "touch ${pwned}"\n`;
          const v = await exec(
            `mkdir -p sub/.git sub2 && printf %s ${sh(config)} > sub/.git/config && echo ref > sub/.git/HEAD && echo x > sub/f.txt && printf %s ${sh(config)} > sub2/.git && echo y > sub2/g.txt && echo end`,
            { conversation: id },
          );
          expect(v).toMatchObject({ exitCode: 0, stdout: 'end\n' });
          expect(await call(id, 'read', { path: 'sub/.git/config' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
          expect(await call(id, 'write', { path: 'sub/.git/config', content: 'x' })).toMatchObject({
            ok: false,
            error: { code: 'PROTECTED_PATH' },
          });
          await call(id, 'diff', {});
          await call(id, 'commit', { message: 'with nested .git' });
          await call(id, 'diff', {});
          expect(existsSync(pwned)).toBe(false);
        }, skip);
      },
      T,
    );

    it(
      'cannot make device files; FIFOs and sockets it makes are answered NOT_REGULAR_FILE without a hang',
      async () => {
        const id = await attacker();
        await attack(async () => {
          const v = await exec(
            [
              'mknod d-null c 1 3 2>/dev/null && echo W1',
              'mknod d-disk b 254 0 2>/dev/null && echo W2',
              'mkfifo fifo && echo fifo-ok',
              `node -e "require('net').createServer().listen('sock', () => process.exit(0))" && echo sock-ok`,
              'echo end',
            ].join('; '),
            { conversation: id },
          );
          expect(v.stdout).toBe('fifo-ok\nsock-ok\nend\n');
          for (const path of ['fifo', 'sock']) {
            expect(await call(id, 'read', { path })).toMatchObject({ ok: false, error: { code: 'NOT_REGULAR_FILE' } });
          }
          expect(await call(id, 'list', { path: '.' })).toMatchObject({ ok: true });
        });
      },
      T,
    );

    it(
      'cannot mount, unmount or remount anything (covers stay, read-only binds stay read-only)',
      async () => {
        const id = await attacker();
        const dep = join(repo.dir, 'node_modules/dep/index.js');
        const depBefore = readFileSync(dep, 'utf8');
        try {
          await attack(async () => {
            // Each line only reports what the kernel allowed; nothing here writes to a system folder.
            const v = await exec(
              [
                'umount .git 2>/dev/null && echo UMOUNT-GIT-COVER',
                'umount gatefs.yaml 2>/dev/null && echo UMOUNT-GATEFS-YAML',
                'umount -l node_modules 2>/dev/null && echo UMOUNT-SHARE',
                'mount -o remount,rw,bind node_modules 2>/dev/null && echo REMOUNT-SHARE-RW && echo pwned > node_modules/dep/index.js && echo WROTE-SOURCE-SHARE',
                'mount -o remount,rw,bind /usr 2>/dev/null && echo REMOUNT-USR-RW',
                'mount -t tmpfs none /tmp 2>/dev/null && echo MOUNT-TMPFS',
                'mount --bind /tmp src 2>/dev/null && echo MOUNT-BIND',
                'mount -t proc proc /tmp/home 2>/dev/null && echo MOUNT-PROC',
                'echo end',
              ].join('; '),
              { conversation: id },
            );
            expect(v.stdout).toBe('end\n');
          });
        } finally {
          writeFileSync(dep, depBefore);
        }
      },
      T,
    );

    it(
      'cannot write global sysctls through /proc/sys (a host helper like core_pattern or modprobe runs as the host root)',
      async () => {
        await attack(async () => {
          // Asks the kernel (access(2) through coreutils' test) without writing anything.
          const v = await exec(
            [
              '/usr/bin/test -w /proc/sys/kernel/core_pattern && echo WRITABLE-core_pattern',
              '/usr/bin/test -w /proc/sys/kernel/modprobe && echo WRITABLE-modprobe',
              '/usr/bin/test -w /proc/sys/vm/drop_caches && echo WRITABLE-drop_caches',
              '/usr/bin/test -w /proc/sysrq-trigger && echo WRITABLE-sysrq',
              'echo end',
            ].join('; '),
          );
          expect(v.stdout).toBe('end\n');
        });
      },
      T,
    );

    it(
      'gains nothing from nested namespaces (unshare, nsenter)',
      async () => {
        const id = await attacker();
        const dep = join(repo.dir, 'node_modules/dep/index.js');
        const depBefore = readFileSync(dep, 'utf8');
        try {
          await attack(async () => {
            const inner = [
              'umount /worktrees/$ID/.git 2>/dev/null && echo N-UMOUNT-GIT',
              'mount -o remount,rw,bind /worktrees/$ID/node_modules 2>/dev/null && echo N-REMOUNT-SHARE && echo pwned > /worktrees/$ID/node_modules/dep/index.js && echo N-WROTE-SHARE',
              'mount -o remount,rw,bind /usr 2>/dev/null && echo N-REMOUNT-USR',
              'head -c 7 /worktrees/$ID/.git',
            ].join('; ');
            const v = await exec(
              [
                `export ID=${id}`,
                `unshare -Urm sh -c ${sh(inner)} 2>/dev/null`,
                `unshare -m sh -c ${sh(inner)} 2>/dev/null`,
                `nsenter -t ${serverPid} -m -p true 2>/dev/null && echo NSENTER-SERVER`,
                'nsenter -t 1 -m -u true 2>/dev/null; echo end',
              ].join('; '),
              { conversation: id },
            );
            expect(v.stdout).not.toMatch(/N-|NSENTER-SERVER|gitdir/);
            expect(v.stdout).toMatch(/end\n$/);
          });
        } finally {
          writeFileSync(dep, depBefore);
        }
      },
      T,
    );

    it(
      'cannot ptrace or signal the server, and killing everything it can see ends only itself',
      async () => {
        await attack(async () => {
          const v = await exec(
            [
              `kill -0 ${serverPid} 2>/dev/null && echo SEES-SERVER`,
              `strace -p ${serverPid} -e trace=none 2>/dev/null & sleep 0.3; kill $! 2>/dev/null`,
              `perl -e 'exit(syscall(101, 16, ${serverPid}, 0, 0) == -1 ? 0 : 1)' || echo PTRACE-ATTACHED`,
              'echo end',
            ].join('; '),
          );
          expect(v.stdout).toBe('end\n');
          const all = await exec('kill -9 -1; sleep 1; echo survived');
          expect(all.timedOut).toBe(false);
          expect(all.stdout).not.toContain('survived');
        });
      },
      T,
    );

    it(
      'has no network: no TCP or abstract socket to the host, no UDP out, no DNS',
      async () => {
        await attack(async () => {
          const node = (code: string) => `node -e ${sh(code)}`;
          const v = await exec(
            [
              node(
                `require('net').connect(${tcpPort}, '127.0.0.1').on('connect', () => { console.log('TCP-CONNECTED'); process.exit(0) }).on('error', () => process.exit(0))`,
              ),
              node(
                `require('net').connect({ path: ${JSON.stringify(abstractName)} }).on('connect', () => { console.log('ABSTRACT-CONNECTED'); process.exit(0) }).on('error', () => process.exit(0))`,
              ),
              node(
                `const s = require('dgram').createSocket('udp4'); s.send('x', ${udpPort}, '127.0.0.1', () => s.send('x', 53, '8.8.8.8', (e) => { if (!e) console.log('UDP-OUT-SENT'); s.close() }))`,
              ),
              node(`require('dns').lookup('example.com', (e) => { if (!e) console.log('DNS-RESOLVED') })`),
              `bash -c 'echo > /dev/tcp/127.0.0.1/${tcpPort}' 2>/dev/null && echo BASH-TCP`,
              `grep -qi ':${tcpPort.toString(16).toUpperCase().padStart(4, '0')} ' /proc/net/tcp && echo SEES-HOST-PORT`,
              "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '",
              'echo end',
            ].join('; '),
          );
          expect(v.stdout).toBe('lo\nend\n');
          await new Promise((r) => setTimeout(r, 200));
          expect({ tcpConnections, abstractConnections, udpMessages }).toEqual({
            tcpConnections: 0,
            abstractConnections: 0,
            udpMessages: 0,
          });
        });
      },
      T,
    );

    it(
      'does not outlive its timeout: setsid, nohup, a double fork and disown all end with it',
      async () => {
        const id = await attacker();
        const token = `outlive${randomBytes(4).toString('hex')}`;
        await attack(async () => {
          const beat = (name: string) =>
            `sh -c ${sh(`: ${token}; while :; do date +%s%N > /worktrees/${id}/beat-${name}; sleep 0.1; done`)}`;
          const v = await exec(
            [
              `setsid ${beat('setsid')} &`,
              `nohup ${beat('nohup')} >/dev/null 2>&1 &`,
              `(${beat('double')} &) &`,
              `bash -c ${sh(`${beat('disown')} & disown`)}`,
              `trap '' TERM HUP INT`,
              `sleep 60`,
            ].join('\n'),
            { conversation: id, timeoutMs: 1_500 },
          );
          expect(v).toMatchObject({ exitCode: null, timedOut: true, signal: 'SIGKILL' });
          expect(v.durationMs).toBeLessThan(15_000);
          expect(await waitNoProcessWith(token)).toEqual([]);
          const read = () =>
            ['setsid', 'nohup', 'double', 'disown'].map((n) =>
              existsSync(join(ws(id), `beat-${n}`)) ? readFileSync(join(ws(id), `beat-${n}`), 'utf8') : '',
            );
          const first = read();
          await new Promise((r) => setTimeout(r, 600));
          expect(read()).toEqual(first);
        });
      },
      T,
    );

    it(
      "a finished command's background children end with it",
      async () => {
        const id = await attacker();
        const token = `bg${randomBytes(4).toString('hex')}`;
        await attack(async () => {
          const quick = await exec(`sh -c ${sh(`: ${token}; sleep 60`)} >/dev/null 2>&1 & echo started`, { conversation: id });
          expect(quick).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
          expect(quick.durationMs).toBeLessThan(15_000);
          expect(await waitNoProcessWith(token)).toEqual([]);
        });
      },
      T,
    );

    /** `run`'s answer, or 'no answer' after `ms`. */
    async function answerWithin(ms: number, run: () => Promise<Answer>): Promise<Answer | 'no answer'> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'no answer'>((r) => (timer = setTimeout(() => r('no answer'), ms)));
      const answer = await Promise.race([run(), late]);
      clearTimeout(timer);
      return answer;
    }

    /** The processes holding `token` still there after `ms`; ends them (this test's own) by pid, so nothing outlives the test. */
    async function leftAndEnded(token: string, ms = 2_000): Promise<string[]> {
      const left = await waitNoProcessWith(token, ms);
      for (const line of left) {
        try {
          process.kill(Number(line.split(':')[0]), 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      return left;
    }

    const outcome = (a: Answer | 'no answer') =>
      a === 'no answer' ? 'no answer' : JSON.stringify(a).includes('ran-on') ? 'ran on' : 'ended';

    it(
      'a timeout that fires while the sandbox is being set up (timeoutMs: 1) still ends the whole tree at once',
      async () => {
        // Eight at once, so that some timers fire while bwrap is still setting up (here: nearly all).
        const id = await attacker();
        const token = `early${randomBytes(4).toString('hex')}`;
        await attack(async () => {
          const answers = await Promise.all(
            Array.from({ length: 8 }, () =>
              answerWithin(5_000, () => call(id, 'exec', { command: `: ${token}; sleep 2; echo ran-on`, timeoutMs: 1 })),
            ),
          );
          const left = await leftAndEnded(token);
          expect({ outcomes: answers.map(outcome), left }).toEqual({ outcomes: answers.map(() => 'ended'), left: [] });
          for (const a of answers) expect(a).toMatchObject({ ok: true, value: { exitCode: null, timedOut: true } });
        });
      },
      T,
    );

    it(
      'exec_kill right after a background start ends the whole tree at once',
      async () => {
        const id = await attacker();
        const token = `kill${randomBytes(4).toString('hex')}`;
        await attack(async () => {
          const answers = await Promise.all(
            Array.from({ length: 4 }, () =>
              answerWithin(5_000, async () => {
                const started = await call(id, 'exec', {
                  command: `setsid sh -c ${sh(`: ${token}; sleep 2`)} & : ${token}; sleep 2; echo ran-on`,
                  background: true,
                });
                if (!started.ok) return started;
                return call(id, 'exec_kill', { runId: (started.value as { runId: string }).runId });
              }),
            ),
          );
          const left = await leftAndEnded(token);
          expect({ outcomes: answers.map(outcome), left }).toEqual({ outcomes: answers.map(() => 'ended'), left: [] });
          for (const a of answers)
            expect(a).toMatchObject({ ok: true, value: { state: 'ended', result: { exitCode: null, signal: 'SIGKILL' } } });
        });
      },
      T,
    );

    it(
      'a fork bomb ends with the processes limit while the server keeps serving',
      async () => {
        const id = await attacker();
        const token = `bomb${randomBytes(4).toString('hex')}`;
        await attack(async () => {
          // Bounded (about 2,000 processes at most): an unbounded bomb run as root here exhausted the
          // machine's pids before the watchdog ended it (see the report of this test's commit).
          const bomb = `: ${token}; b() { if [ $1 -gt 0 ]; then b $(($1 - 1)) & b $(($1 - 1)) & fi; sleep 20; }; b 9`;
          const running = exec(`sh -c ${sh(bomb)}`, { conversation: id, timeoutMs: 10_000 });
          // Served while the bomb goes off.
          expect(await call('c1', 'read', { path: 'src/a.txt' })).toMatchObject({ ok: true });
          const v = await running;
          expect(v).toMatchObject({ exitCode: null, timedOut: false, limit: 'processes' });
          expect(await waitNoProcessWith(token, 10_000)).toEqual([]);
        });
      },
      T,
    );

    it(
      'the kernel bounds its processes: 100 quick forks under a limit of 64 do not all succeed',
      async () => {
        // As root the kernel does not apply RLIMIT_NPROC (prlimit in the sandbox is then no bound)
        // and the 50 ms watchdog is the only one: an unbounded fork bomb run as root on this machine
        // reached the host's pid limit before it ended (git spawns in the server failed with EAGAIN).
        // Perl forks 100 sleepers in a few milliseconds, well inside one watchdog period; on a loaded
        // machine the watchdog may end it first (no line printed), which says nothing either way.
        const id = await attacker();
        await attack(async () => {
          const v = await exec(
            `perl -e 'my $n = 0; for (1..100) { my $p = fork(); last unless defined $p; if (!$p) { sleep 5; exit 0 } $n++ } print "forked=$n\\n"'`,
            {
              conversation: id,
              timeoutMs: 10_000,
            },
          );
          const forked = /forked=(\d+)/.exec(v.stdout)?.[1];
          // For root the kernel bounds nothing (a documented limit, SECURITY.md): only the watchdog
          // does, every 50 ms, so a burst that ends sooner (perl forks its 100 sleepers, prints and
          // exits, and the sandbox's end takes them) is not seen; one that lasts is ended.
          if (process.getuid?.() === 0) expect(forked === '100' || v.limit === 'processes').toBe(true);
          else if (forked !== undefined)
            expect(Number(forked), 'processes the kernel let one command make under processes: 64').toBeLessThanOrEqual(64 + 3);
          else expect(v.limit).toBe('processes');
        });
      },
      T,
    );

    it(
      'memory held by a process (node, a shell string) ends with the memory limit',
      async () => {
        const id = await attacker();
        await attack(async () => {
          const node = await exec(`node -e 'const a=[];for(;;){a.push(Buffer.alloc(16*1024*1024,1))}'`, {
            conversation: id,
            timeoutMs: 20_000,
          });
          expect(node).toMatchObject({ exitCode: null, timedOut: false, limit: 'memory' });
          const shell = await exec(`x=aaaaaaaaaaaaaaaa; while :; do x="$x$x"; done`, { conversation: id, timeoutMs: 20_000 });
          expect(shell).toMatchObject({ exitCode: null, timedOut: false, limit: 'memory' });
        });
      },
      T,
    );

    it(
      'memory held in the private /tmp (a tmpfs: host memory no process owns) ends with the memory limit',
      async () => {
        const id = await attacker();
        await attack(async () => {
          // 512 MiB into the sandbox's /tmp under a 256M limit; the sleep gives the watchdog time to look.
          const v = await exec('head -c 512M /dev/zero > /tmp/fill; echo filled; sleep 5; echo slept', {
            conversation: id,
            timeoutMs: 15_000,
          });
          expect(v).toMatchObject({ exitCode: null, limit: 'memory' });
        });
      },
      T,
    );

    it(
      'memory held in /dev/shm (the /dev tmpfs) ends with the memory limit',
      async () => {
        const id = await attacker();
        await attack(async () => {
          const v = await exec('head -c 512M /dev/zero > /dev/shm/fill; echo filled; sleep 5; echo slept', {
            conversation: id,
            timeoutMs: 15_000,
          });
          expect(v).toMatchObject({ exitCode: null, limit: 'memory' });
        });
      },
      T,
    );

    it(
      'output floods on stdout, stderr and both end with the output limit and keep a capped tail',
      async () => {
        await attack(async () => {
          for (const command of ['yes gatefs', 'yes gatefs >&2', 'head -c 50M /dev/zero', '(yes out &) ; yes err >&2']) {
            const v = await exec(command, { timeoutMs: 15_000 });
            expect(v, command).toMatchObject({ exitCode: null, timedOut: false, limit: 'output', truncated: true });
            expect(v.stdout.length + v.stderr.length).toBeLessThanOrEqual(60_000);
          }
        });
      },
      T,
    );

    it(
      'cannot write into the scan descriptors (3, 4), directly or through /proc or pidfd_getfd, to fake `changed`',
      async () => {
        const id = await attacker();
        await attack(async () => {
          const ghost = `f 1 1 1 /worktrees/${id}/ghost\\0`;
          const grab = `for my $p (grep { $_ != $$ } map { m{(\\d+)$} ? $1 : () } glob("/proc/[0-9]*")) { my $pfd = syscall(434, $p + 0, 0); next if $pfd < 0; for my $f (glob("/proc/$p/fd/*")) { my ($n) = $f =~ m{(\\d+)$}; next if $n < 3; my $fd = syscall(438, $pfd, $n + 0, 0); next if $fd < 0; open(my $h, ">&=", $fd) or next; syswrite($h, "f 1 1 1 /worktrees/${id}/ghost-$p-$n\\0") and print "GRABBED $p $n\\n"; } }`;
          const v = await exec(
            [
              `printf ${sh(ghost)} >&3 2>/dev/null && echo W3`,
              `printf ${sh(ghost)} >&4 2>/dev/null && echo W4`,
              `printf ${sh(ghost)} >&5 2>/dev/null && echo W5`,
              `for f in /proc/[0-9]*/fd/*; do printf ${sh(ghost)} 2>/dev/null > "$f" && echo "OPENED $f"; done | grep -v '/fd/[012]$'`,
              `perl -e ${sh(grab)}`,
              'echo end',
            ].join('; '),
            { conversation: id },
          );
          expect(v.changed.filter((c) => c.path.startsWith('ghost'))).toEqual([]);
          expect(v.stdout).not.toMatch(/^W[345]$/m);
        });
      },
      T,
    );

    it(
      'cannot change the programs the scans run, and odd file names are reported as they are',
      async () => {
        const id = await attacker();
        await attack(async () => {
          const fake = "#!/bin/sh\\nprintf 'E\\\\0'\\n";
          const planted = await exec(
            [
              `printf ${sh(fake)} > /usr/bin/find 2>/dev/null && echo W-FIND`,
              `mkdir -p /tmp/home/bin node_modules/.bin bin`,
              `for d in /tmp/home/bin node_modules/.bin bin .; do printf ${sh(fake)} > $d/find; printf ${sh(fake)} > $d/prlimit; chmod +x $d/find $d/prlimit; done`,
              'echo end',
            ].join('; '),
            { conversation: id },
          );
          expect(planted.stdout).toBe('end\n');
          const v = await exec(`echo x > real.txt; echo y > 'a b'; echo z > "$(printf 'n\\nl')"; echo e > E`, { conversation: id });
          expect(v.changed).toEqual([
            { path: 'E', status: 'added' },
            { path: 'a b', status: 'added' },
            { path: 'n\nl', status: 'added' },
            { path: 'real.txt', status: 'added' },
          ]);
        });
      },
      T,
    );

    it(
      'a relative entry in the server PATH (./node_modules/.bin) does not let a command replace the scan',
      async () => {
        saved.PATH ??= process.env.PATH;
        const original = process.env.PATH;
        let id = '';
        try {
          process.env.PATH = `node_modules/.bin:${original}`;
          id = await attacker('plain');
          await exec('true', { conversation: id });
        } finally {
          process.env.PATH = original;
        }
        await attack(async () => {
          const fake = "#!/bin/sh\\nprintf 'E\\\\0'\\n";
          await exec(`mkdir -p node_modules/.bin && printf ${sh(fake)} > node_modules/.bin/find && chmod +x node_modules/.bin/find`, {
            conversation: id,
          });
          const v = await exec('echo x > hidden-change.txt', { conversation: id });
          expect(v.changed).toContainEqual({ path: 'hidden-change.txt', status: 'added' });
        });
      },
      T,
    );

    it(
      'a content change with its size and mtime put back is still reported as modified',
      async () => {
        const id = await attacker();
        await attack(async () => {
          await exec('echo aaaa > same.txt', { conversation: id });
          const v = await exec('t=$(stat -c %y same.txt); echo bbbb > same.txt; touch -d "$t" same.txt', { conversation: id });
          expect(v.changed).toEqual([{ path: 'same.txt', status: 'modified' }]);
        });
      },
      T,
    );

    it(
      'has no terminal to push input into (TIOCSTI), even in a new session',
      async () => {
        await attack(async () => {
          const sti = `for my $f ("/dev/tty", "/dev/stdin", "/dev/stdout", "/dev/stderr") { open(my $t, "+<", $f) or next; ioctl($t, 0x5412, "x") and print "INJECTED $f\\n"; }`;
          const v = await exec(
            [
              'test -t 0 && echo TTY0',
              'test -t 1 && echo TTY1',
              'test -t 2 && echo TTY2',
              'cat /dev/tty </dev/null >/dev/null 2>&1 && echo OPENED-TTY',
              `perl -e ${sh(sti)}`,
              `setsid perl -e ${sh(sti)}`,
              'echo end',
            ].join('; '),
          );
          expect(v.stdout).toBe('end\n');
        });
      },
      T,
    );

    it(
      'a link planted where a nested share is mounted does not make bwrap create anything outside',
      async () => {
        const id = await attacker('nested');
        await attack(async () => {
          // From /worktrees/<id> inside bwrap's setup root, three levels up is the setup root, where
          // the host's root is /oldroot: the destination of the packages/app/node_modules bind then
          // leads to the outside folder (an attacker learns host paths from /proc/self/mountinfo).
          const moved = await exec(`mv packages packages.real && ln -s ${sh(`../../../oldroot${outside}`)} packages && echo moved`, {
            conversation: id,
          });
          expect(moved.stdout).toBe('moved\n');
          // The next command runs without the share whose place a link took (nothing is mounted through
          // the link), and can take the link away.
          const next = await exec('ls packages/; rm packages && echo removed', { conversation: id });
          expect(next.stdout).toBe('removed\n');
          expect((await exec('echo next', { conversation: id })).stdout).toBe('next\n');
        });
      },
      T,
    );

    it(
      'a mount folder whose parent a command swapped for a link binds nothing from outside and keeps serving',
      async () => {
        const id = await attacker('nested');
        await attack(async () => {
          const moved = await exec(`mv docs docs.real && ln -s ../c2/docs docs && echo moved`, { conversation: id });
          expect(moved.stdout).toBe('moved\n');
          const next = await exec('ls /worktrees; cat docs/spec/s.md 2>/dev/null; echo end', { conversation: id });
          expect(next.stdout).not.toContain('c2');
          expect(await call(id, 'read', { path: 'docs/spec/s.md' })).toMatchObject({
            ok: true,
            value: { content: expect.stringContaining('spec') },
          });
        });
      },
      T,
    );

    it(
      'a copy workspace: nothing outside reachable or changed, protected names refused, a huge sparse file not kept',
      async () => {
        const id = await attacker('copy');
        const skip = (abs: string) => defaultSkip(abs) || abs === join(stateDir, 'copies', id) || abs.startsWith(join(stateDir, 'exec'));
        // The first command builds the copy's lower folder (the pinned commit's tree): before the hashes.
        expect(await exec('true', { conversation: id })).toMatchObject({ exitCode: 0 });
        await attack(async () => {
          const v = await exec(
            `${[
              probeLine({
                repo: repo.dir,
                'state dir': stateDir,
                'other workspace': join(c2ws, 'notes/canary.txt'),
                home,
                outside: join(outside, 'secret.txt'),
              }),
              'echo evil > gatefs.yaml',
              'mkdir -p .git sub/.git && echo x > .git/config && echo x > sub/.git/config',
              `ln -s ${sh(join(outside, 'secret.txt'))} l-abs`,
              'truncate -s 4G sparse.bin',
              'umount /worktrees/$PWD 2>/dev/null; umount . 2>/dev/null && echo UMOUNTED',
              'echo made > made.txt',
              'echo end',
            ].join('; ')} 2>/dev/null`,
            { conversation: id, timeoutMs: 20_000 },
          );
          expect(v.stdout).toBe('end\n');
          expect(v.changed).toContainEqual({ path: 'made.txt', status: 'added' });
          expect(await call(id, 'read', { path: 'made.txt' })).toMatchObject({ ok: true });
          expect(await call(id, 'read', { path: 'gatefs.yaml' })).toMatchObject({ ok: true, value: { content: 'roles: []\n' } });
          expect(await call(id, 'read', { path: 'l-abs' })).toMatchObject({ ok: false, error: { code: 'SYMLINK_ESCAPE' } });
          expect(await call(id, 'read', { path: 'sparse.bin' })).toMatchObject({ ok: false });
        }, skip);
      },
      T,
    );

    it.skipIf(!isRoot)(
      '(as root) runs the command without capabilities',
      async () => {
        await attack(async () => {
          const v = await exec('grep CapEff /proc/self/status');
          expect(v.stdout).toMatch(/^CapEff:\s+0+\n$/);
        });
      },
      T,
    );
  },
);

/** The shared backend: the checkout is the source itself, so its `.git` folder and the state dir inside it must be covered. */
describe.skipIf(!support.available)(support.available ? 'class S: a shared checkout' : `class S, shared (skipped: ${reason})`, () => {
  let sharedRepo: TempRepo;
  let sharedHost: Host;
  const said: string[] = [];

  beforeAll(async () => {
    sharedRepo = makeTempRepo({ 'src/a.txt': 'alpha\n', 'gatefs.yaml': 'roles: []\n' });
    sharedHost = await createHost({
      repo: sharedRepo.dir,
      manifest: { roles: [{ name: 'agent', tools, workspace: { backend: 'shared' }, exec: limits }] },
    });
    await sharedHost.prepare({ conversation: 's1' });
  }, 120_000);
  afterAll(async () => {
    await sharedHost?.close();
    sharedRepo?.cleanup();
  });

  it(
    'shows the state dir and .git as empty read-only folders and cannot uncover them',
    async () => {
      const root = join(sharedRepo.dir, '..');
      const skip = (abs: string) =>
        abs.startsWith(join(sharedRepo.dir, '.gatefs/gatefs.db')) ||
        abs.startsWith(join(sharedRepo.dir, '.gatefs/locks')) ||
        abs === join(sharedRepo.dir, 'made-by-command');
      const before = hashTree(root, skip);
      const r = await sharedHost.gate.call('s1', 'exec', {
        command: [
          'ls -A .gatefs .git',
          'touch .gatefs/x 2>/dev/null && echo W1',
          'touch .git/x 2>/dev/null && echo W2',
          'echo evil > gatefs.yaml 2>/dev/null && echo W3',
          'umount .gatefs 2>/dev/null && echo UMOUNT-STATE',
          'umount .git 2>/dev/null && echo UMOUNT-GIT',
          'unshare -Urm sh -c "umount .gatefs .git" 2>/dev/null && echo NESTED-UMOUNT',
          'echo > made-by-command',
          'echo end',
        ].join('; '),
      });
      said.push(JSON.stringify(r));
      expect(r).toMatchObject({ ok: true, value: { stdout: '.gatefs:\n\n.git:\nend\n' } });
      expect(treeChanges(before, hashTree(root, skip))).toEqual([]);
      expect(said.join('').includes(sharedRepo.dir)).toBe(false);
      expect(await sharedHost.gate.call('s1', 'read', { path: 'src/a.txt' })).toMatchObject({ ok: true });
    },
    T,
  );
});
