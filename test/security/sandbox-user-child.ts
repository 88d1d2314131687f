/**
 * Test support: the key class S attacks (sandbox-attacks.test.ts) run in a child process, so that
 * sandbox-ordinary-user.test.ts can run them as an ordinary user (a user the test creates, or the
 * current one when the suite does not run as root). Run from its TypeScript source
 * (test/run-typescript.ts) with one JSON argument `{ base, cases }`: `base` a folder this user
 * owns (everything is made inside it), `cases` the names of the attacks to run. Prints one JSON
 * line per case:
 * `{ case, data, changes, hostPath, canary, serving }` — what the attack saw (`data`), the
 * entries outside the attacker's workspace that changed, whether any answer named a host path
 * or held canary bytes, and whether both conversations were still served afterwards. A case
 * that threw prints `{ case, error }`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { createHost } from '../../src/host/composition/create-host.js';
import { makeTempRepo } from '../host/temp-repo.js';
import { hashTree, probeLine, sh, treeChanges, waitNoProcessWith, processesWith } from './sandbox-attack-kit.js';

const input = JSON.parse(process.argv[2] ?? '{}') as { base: string; cases: string[] };
const base = input.base;
const marker = `SBXCANARY${randomBytes(8).toString('hex')}`;
const home = join(base, 'home');
const stateDir = join(home, '.local/state/gatefs');
const outside = join(base, 'outside');
const put = (path: string, content: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
};
put(join(home, 'secret.txt'), `${marker} home\n`);
put(join(outside, 'secret.txt'), `${marker} outside\n`);
const repo = makeTempRepo({ 'src/a.txt': 'alpha\n', '.gitignore': 'node_modules/\n', 'gatefs.yaml': 'roles: []\n' }, base);
put(join(repo.dir, '.git/info/canary'), `${marker} source .git\n`);
put(join(repo.dir, 'node_modules/dep/index.js'), 'module.exports = 1;\n');
process.env.GATEFS_SBX_SECRET = marker;
const tools = ['read', 'write', 'list', 'exec', 'exec_output', 'exec_kill'];
const host = await createHost({
  repo: repo.dir,
  stateDir,
  manifest: {
    roles: [{ name: 'agent', tools, share: ['node_modules'], exec: { timeout: 20, processes: 64, memory: '256M', output: '256K' } }],
  },
});
await host.prepare({ conversation: 'c1' });
await host.prepare({ conversation: 'c2' });
const c2ws = join(stateDir, 'worktrees', 'c2');
await host.gate.call('c2', 'write', { path: 'notes/canary.txt', content: `${marker} c2\n` });

type Answer = { ok: boolean; value?: Record<string, unknown>; error?: { code: string } };
let said: string[] = [];
const call = async (conversation: string, tool: string, args: unknown): Promise<Answer> => {
  const r = (await host.gate.call(conversation, tool, args)) as Answer;
  said.push(JSON.stringify(r));
  return r;
};
const exec = async (command: string, extra: object = {}) => (await call('c1', 'exec', { command, ...extra })).value ?? {};
const skip = (abs: string) =>
  abs.startsWith(join(stateDir, 'gatefs.db')) ||
  abs.startsWith(join(stateDir, 'locks/')) ||
  abs === join(stateDir, 'worktrees/c1') ||
  abs === join(repo.dir, '.git/worktrees/c1');

/** Ends (by pid) this run's own processes holding `token` that outlived their command, and answers them. */
async function leftOver(token: string, ms = 3_000): Promise<string[]> {
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

const cases: Record<string, () => Promise<unknown>> = {
  async 'read-outside'() {
    const v = await exec(
      `${probeLine({
        repo: repo.dir,
        'source .git': join(repo.dir, '.git/info/canary'),
        'state dir': stateDir,
        'other workspace': join(c2ws, 'notes/canary.txt'),
        'home secret': join(home, 'secret.txt'),
        outside: join(outside, 'secret.txt'),
        '/root': '/root',
        '/etc/shadow': '/etc/shadow',
      })}; echo end`,
    );
    return { exitCode: v.exitCode, stdout: v.stdout };
  },
  async 'environ-cmdline'() {
    const v = await exec(`cat /proc/[0-9]*/environ | tr '\\0' '\\n'; cat /proc/[0-9]*/cmdline | tr '\\0' ' '; echo end`);
    const out = String(v.stdout);
    return { secret: out.includes(marker), hostPath: out.includes(base) };
  },
  async mounts() {
    const v = await exec(
      [
        'umount .git 2>/dev/null && echo UMOUNT-GIT-COVER',
        'umount gatefs.yaml 2>/dev/null && echo UMOUNT-GATEFS-YAML',
        'mount -o remount,rw,bind node_modules 2>/dev/null && echo REMOUNT-SHARE-RW',
        'mount -o remount,rw,bind /usr 2>/dev/null && echo REMOUNT-USR-RW',
        'mount -t tmpfs none /tmp 2>/dev/null && echo MOUNT-TMPFS',
        `unshare -Urm sh -c ${sh('umount /worktrees/c1/.git && echo N-UMOUNT-GIT; mount -o remount,rw,bind /worktrees/c1/node_modules && echo N-REMOUNT-SHARE')} 2>/dev/null`,
        'echo end',
      ].join('; '),
    );
    return { stdout: v.stdout };
  },
  async sysctl() {
    const v = await exec(
      '/usr/bin/test -w /proc/sys/kernel/core_pattern && echo WRITABLE-core_pattern; /usr/bin/test -w /proc/sys/vm/drop_caches && echo WRITABLE-drop_caches; echo end',
    );
    return { stdout: v.stdout };
  },
  async caps() {
    const v = await exec('grep CapEff /proc/self/status');
    return { stdout: v.stdout };
  },
  async network() {
    let connections = 0;
    const server = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const v = await exec(
      `node -e ${sh(`require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('TCP-CONNECTED'); process.exit(0) }).on('error', () => process.exit(0))`)}; echo end`,
    );
    server.close();
    return { stdout: v.stdout, connections };
  },
  async 'fork-bomb'() {
    const token = `bomb${randomBytes(4).toString('hex')}`;
    // 15 s for the bomb to reach the cap with both cores busy (it took over 8 s once in a loaded full run); the sleep outlasts it.
    const v = await exec(`sh -c ${sh(`: ${token}; b() { b | b & }; b; sleep 30`)}`, { timeoutMs: 15_000 });
    return { exitCode: v.exitCode, timedOut: v.timedOut, limit: v.limit ?? null, left: await leftOver(token, 10_000) };
  },
  async timeout() {
    const token = `outlive${randomBytes(4).toString('hex')}`;
    const loop = `sh -c ${sh(`: ${token}; while :; do sleep 0.1; done`)}`;
    const v = await exec(`setsid ${loop} & nohup ${loop} >/dev/null 2>&1 & (${loop} &) & sleep 60`, { timeoutMs: 1_500 });
    return { exitCode: v.exitCode, timedOut: v.timedOut, durationMs: v.durationMs, left: await leftOver(token) };
  },
  async 'early-timeout'() {
    // Eight at once, so that some timers fire while bwrap is still setting up.
    const token = `early${randomBytes(4).toString('hex')}`;
    const runs = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const answer = await Promise.race([
          exec(`: ${token}; sleep 2; echo ran-on`, { timeoutMs: 1 }),
          new Promise<'no answer'>((r) => setTimeout(() => r('no answer'), 20_000)),
        ]);
        return answer === 'no answer' ? 'no answer' : JSON.stringify(answer).includes('ran-on') ? 'ran on' : 'ended';
      }),
    );
    return { runs, left: await leftOver(token, 2_000) };
  },
  async 'memory-process'() {
    const v = await exec(`node -e 'const a=[];for(;;){a.push(Buffer.alloc(16*1024*1024,1))}'`, { timeoutMs: 20_000 });
    return { exitCode: v.exitCode, limit: v.limit ?? null };
  },
  async 'memory-tmpfs'() {
    const v = await exec('head -c 512M /dev/zero > /tmp/fill; echo filled; sleep 4; echo slept', { timeoutMs: 15_000 });
    return { exitCode: v.exitCode, limit: v.limit ?? null };
  },
};

for (const name of input.cases) {
  said = [];
  try {
    const before = hashTree(base, skip);
    const data = await cases[name]!();
    const changes = treeChanges(before, hashTree(base, skip));
    const text = said.join('\n');
    const a = await host.gate.call('c1', 'read', { path: 'src/a.txt' });
    const b = await host.gate.call('c2', 'read', { path: 'notes/canary.txt' });
    process.stdout.write(
      `${JSON.stringify({ case: name, data, changes, hostPath: text.includes(base), canary: text.includes(marker), serving: a.ok && b.ok })}\n`,
    );
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ case: name, error: String((e as Error)?.stack ?? e) })}\n`);
  }
}
await host.close();
// Nothing of this run may be left (a sandbox a kill missed holds the marker in its argv).
for (const line of processesWith(base).filter((l) => !l.includes('sandbox-user-child.ts'))) process.stderr.write(`left: ${line}\n`);
