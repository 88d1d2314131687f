/**
 * `gatefs exec`, `gatefs check` and `gatefs doctor` through the built binary on a real repository
 * with the real bubblewrap sandbox: the command's stdout and stderr on the operator's, the files
 * it changed and how it ended on stderr, its exit code as the CLI's (124 for a timeout, 128 + n
 * for a signal or a limit), the words after `--` as one shell line, `--background` following a
 * run to its end, `--json`; a check's diagnostics as `path:line:col: severity: message`; refusals
 * and usage mistakes with their codes; and the same as an ordinary user (uid 65534, where this
 * test runs as root). Skipped, with the probe's reason, where no sandbox can run (doctor then
 * says so and exits 1).
 */
import { spawnSync } from 'node:child_process';
import { chownSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { loadManifest } from '../../src/manifest/load.js';
import { readmeSnippet } from './readme-snippets.js';
import { BIN, gatefs, git, sampleRepo, type RunResult } from './run-gatefs.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping gatefs exec and check: ${support.cause}; ${support.fix}`);

const TSC_OUTPUT = "src/math.js(2,10): error TS2322: Type 'string' is not assignable to type 'number'.";
const MANIFEST = [
  'roles:',
  '  - name: agent',
  '    tools: [read, write, exec, exec_output, exec_kill, check]',
  '    exec: { timeout: 30, output: 64K }',
  '  - name: reader',
  '    tools: [read]',
  'checks:',
  `  - { name: types, argv: [sh, -c, "echo \\"${TSC_OUTPUT}\\"; exit 2"] }`,
  '  - { name: count, command: "wc -l", paths: true }',
  '  - { name: quiet, argv: [sh, -c, "echo the check broke; exit 5"] }',
  '',
].join('\n');

let repo: ReturnType<typeof sampleRepo>;
const run = (args: string[]) => gatefs(args, { cwd: repo.dir });
const worktree = () => join(repo.dir, '.gatefs/worktrees/c1');

beforeAll(async () => {
  repo = sampleRepo();
  writeFileSync(join(repo.dir, 'gatefs.yaml'), MANIFEST);
  git(repo.dir, 'add', 'gatefs.yaml');
  git(repo.dir, 'commit', '--quiet', '-m', 'manifest');
  if (!support.available) return;
  const prepared = await run(['prepare', 'c1']);
  if (prepared.code !== 0) throw new Error(`gatefs prepare c1 failed: ${prepared.stderr}`);
});
afterAll(() => repo?.cleanup());

/** `r` with its exit code checked, for a readable failure. */
function expectCode(r: RunResult, code: number, what: string): RunResult {
  expect(r.code, `${what}: ${r.stdout}\n${r.stderr}`).toBe(code);
  return r;
}

describe.skipIf(!support.available)('gatefs exec', () => {
  it("prints the command's stdout and stderr on its own, the changed files on stderr, and exits with its code", async () => {
    const r = expectCode(await run(['exec', 'c1', '--', 'pwd; echo made > src/new.js; echo warn >&2; exit 3']), 3, 'exec');
    expect(r.stdout).toBe('/worktrees/c1\n');
    expect(r.stderr).toBe('warn\ngatefs: 1 file changed:\ngatefs:   A src/new.js\n');
    expect(readFileSync(join(worktree(), 'src/new.js'), 'utf8')).toBe('made\n');
  });

  it('joins the words after -- into one shell line (flags there belong to the command) and runs in --cwd', async () => {
    const r = expectCode(await run(['exec', 'c1', '--cwd', 'src', '--', 'echo', '--json', '$PWD', '&&', 'ls', 'greeting.js']), 0, 'exec');
    expect(r.stdout).toBe('--json /worktrees/c1/src\ngreeting.js\n');
  });

  it('ends a command at --timeout with everything it started: exit 124 and a line saying so', async () => {
    const started = Date.now();
    const r = expectCode(await run(['exec', 'c1', '--timeout', '0.5', '--', '(sleep 30 &); sleep 30']), 124, 'timeout');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.stderr).toMatch(/^gatefs: timed out after \d+ ms: the command and every process it started were ended$/m);
  });

  it('exits 128 + n for a signal and 137 for a limit, saying which', async () => {
    const killed = expectCode(await run(['exec', 'c1', '--', 'kill -TERM $$']), 143, 'signal');
    expect(killed.stderr).toContain('gatefs: ended by SIGTERM (exit code 143)');
    const flood = expectCode(await run(['exec', 'c1', '--', 'yes flood']), 137, 'output limit');
    expect(flood.stderr).toContain("gatefs: passed the output limit (the role's exec.output, per stream)");
    expect(flood.stdout.length).toBeLessThan(64 * 1024);
  });

  it("--json prints the tool value and still exits with the command's code", async () => {
    const r = expectCode(await run(['exec', 'c1', '--json', '--', 'echo hi; exit 4']), 4, 'json');
    expect(JSON.parse(r.stdout)).toMatchObject({ exitCode: 4, timedOut: false, stdout: 'hi\n', stderr: '', changed: [], changedCount: 0 });
  });

  it('--background prints the output as it arrives until the run ends', async () => {
    const r = expectCode(
      await run(['exec', 'c1', '--background', '--', 'echo one; sleep 1.5; echo two; echo oops >&2; printf tail; exit 6']),
      6,
      'background',
    );
    expect(r.stdout).toBe('one\ntwo\ntail\n');
    expect(r.stderr).toMatch(/^gatefs: running in the background as run-[0-9a-f]+; its output follows as it comes/);
    expect(r.stderr).toContain('oops\n');
    const json = expectCode(await run(['exec', 'c1', '--background', '--json', '--', 'echo a; sleep 1.2; echo b']), 0, 'background json');
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines[0]).toEqual({ runId: expect.stringMatching(/^run-/) });
    expect(lines.map((l) => l.stdout ?? '').join('')).toBe('a\nb\n');
    expect(lines.at(-1)).toMatchObject({ state: 'ended', result: { exitCode: 0 } });
  });

  it('refusals exit 1 with the code and what to do; nothing runs', async () => {
    const other = expectCode(await run(['prepare', 'r1', '--role', 'reader']), 0, 'prepare reader');
    expect(other.stderr).toContain('ready');
    const denied = expectCode(await run(['exec', 'r1', '--', 'touch pwned']), 1, 'not declared');
    expect(denied.stderr).toContain(
      "gatefs: TOOL_NOT_ALLOWED: the role 'reader' does not declare the tool 'exec' (declare it in the role's tools",
    );
    expect(readdirSync(join(repo.dir, '.gatefs/worktrees/r1'))).not.toContain('pwned');
    expect(expectCode(await run(['exec', 'nobody-here', '--', 'true']), 1, 'unknown').stderr).toContain('UNKNOWN_CONVERSATION');
    expect(expectCode(await run(['exec', 'c1', '--cwd', '/etc', '--', 'true']), 1, 'cwd').stderr).toContain('OUTSIDE_MOUNTS');
  });
});

describe("the README's command keys", () => {
  it('load as the README says: the defaults shown, node_modules shared, the checks split without a shell', () => {
    const file = join(repo.root, 'readme-commands.yaml');
    writeFileSync(file, readmeSnippet('commands-manifest'));
    const manifest = loadManifest(file);
    expect(manifest.roles[0]).toMatchObject({
      tools: expect.arrayContaining(['exec', 'exec_output', 'exec_kill', 'check']),
      share: ['node_modules'],
      exec: {
        network: false,
        timeoutMs: 120_000,
        memoryBytes: 2 * 1024 ** 3,
        processes: 256,
        outputBytes: 1024 ** 2,
        env: ['PATH', 'LANG', 'TERM'],
      },
    });
    expect(manifest.checks.map((c) => [c.name, c.argv, c.timeoutMs, c.paths])).toEqual([
      ['unit', ['npx', 'vitest', 'run', '--reporter=json'], 120_000, true],
      ['types', ['npx', 'tsc', '--noEmit'], 60_000, false],
    ]);
  });
});

describe('usage mistakes exit 2 before anything runs', () => {
  const cases: [string[], RegExp][] = [
    [['exec', 'c1'], /exec needs the command after "--": gatefs exec <conversation> -- npm test/],
    [['exec', 'c1', 'ls', '-la'], /unknown flag '-l'|exec takes the COMMAND after "--"/],
    [['exec', 'c1', 'ls', '--', 'pwd'], /exec takes the COMMAND after "--": unexpected "ls" before it/],
    [['exec', 'c1', '--timeout', '0', '--', 'ls'], /--timeout takes seconds, more than 0 and at most 600: "0"/],
    [['exec', 'c1', '--timeout', '601', '--', 'ls'], /--timeout takes seconds/],
    [['exec', 'Bad/Id', '--', 'ls'], /is not a valid conversation id/],
    [['check', 'c1'], /check needs <conversation> <name>; missing <name>/],
    [['doctor', 'extra'], /doctor takes at most 0 argument\(s\)/],
  ];
  it.each(cases)('gatefs %j', async (args, message) => {
    const r = await gatefs(args, { cwd: repo.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});

describe.skipIf(!support.available)('gatefs check', () => {
  it("prints the diagnostics as path:line:col: severity: message, then the outcome, and exits with the check's code", async () => {
    const r = expectCode(await run(['check', 'c1', 'types']), 2, 'types');
    expect(r.stdout).toMatch(
      /^src\/math\.js:2:10: error: TS2322: Type 'string' is not assignable to type 'number'\.\ncheck types failed: exit code 2 in \d+ ms; 1 error\n$/,
    );
    const json = expectCode(await run(['check', 'c1', 'types', '--json']), 2, 'types json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      name: 'types',
      exitCode: 2,
      diagnostics: [{ path: 'src/math.js', line: 2, column: 10, severity: 'error' }],
    });
  });

  it('passes workspace paths to a check that takes them; a failed check without diagnostics shows the end of its output', async () => {
    const passed = expectCode(await run(['check', 'c1', 'count', 'src/math.js', 'src/greeting.js']), 0, 'count');
    expect(passed.stdout).toMatch(/^check count passed in \d+ m?s\n$/);
    const broke = expectCode(await run(['check', 'c1', 'quiet']), 5, 'quiet');
    expect(broke.stderr).toContain('gatefs: the last 1 lines of its output:\nthe check broke\n');
    expect(broke.stdout).toMatch(/^check quiet failed: exit code 5 in /);
  });

  it('an undeclared check exits 1 naming the declared ones', async () => {
    const r = expectCode(await run(['check', 'c1', 'lint']), 1, 'unknown check');
    expect(r.stderr).toContain("gatefs: NOT_FOUND: no check named 'lint'; the checks are types, count, quiet");
  });
});

describe('gatefs doctor', () => {
  it('says whether commands run confined here and exits 0 when they do, 1 when none can', async () => {
    const r = await gatefs(['doctor']);
    if (support.available) {
      expectCode(r, 0, 'doctor');
      expect(r.stdout).toContain(`sandbox: available (${support.version})`);
      expect(r.stdout).toContain('commands (exec, check): run in the sandbox');
    } else {
      expectCode(r, 1, 'doctor');
      expect(r.stdout).toContain(`sandbox: unavailable: ${support.cause}`);
      expect(r.stdout).toContain('refused with BACKEND_UNAVAILABLE; nothing runs, never unconfined');
    }
    expect(r.stdout).toMatch(/^user: (root \(uid 0\)|uid \d+, not root)$/m);
    expect(r.stdout).toMatch(/^ {2}user\.max_user_namespaces: (\d+|not on this kernel)$/m);
    expect(r.stdout).toMatch(/^overlayfs in a user namespace \(commands in copy workspaces\): (works|does not work) \(.+\)$/m);
    expect(r.stdout).toMatch(/^bubblewrap: (not installed|\/\S+ \(.+\))$/m);
  });

  it('--json gives the same facts as data', async () => {
    const r = await gatefs(['doctor', '--json']);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    expect(report.sandbox).toEqual(support);
    expect(report.commands).toBe(support.available ? 'confined' : 'refused');
    expect(Object.keys(report.userNamespaces)).toEqual([
      'unprivilegedUsernsClone',
      'maxUserNamespaces',
      'apparmorRestrictUnprivilegedUserns',
      'unprivileged',
    ]);
    expect(typeof report.user.root).toBe('boolean');
    expect(typeof report.overlay.works).toBe('boolean');
    if (support.available) expect(report.bubblewrap).toEqual({ path: expect.stringMatching(/\/bwrap$/), version: support.version });
  });
});

/** True when this test runs as root and `setpriv` can drop to another user. */
const canDropToNobody = (() => {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return false;
  return spawnSync('setpriv', ['--version']).status === 0;
})();
if (!canDropToNobody) console.warn('skipping gatefs exec as an ordinary user: the test does not run as root with setpriv');

describe.skipIf(!support.available || !canDropToNobody)('as an ordinary user (uid 65534)', () => {
  it('doctor, prepare and exec work, and the command runs as that user in its own user namespace', async () => {
    const own = sampleRepo();
    try {
      writeFileSync(join(own.dir, 'gatefs.yaml'), MANIFEST);
      git(own.dir, 'add', 'gatefs.yaml');
      git(own.dir, 'commit', '--quiet', '-m', 'manifest');
      chownTree(own.root, 65534);
      const asNobody = (args: string[]) =>
        spawnSync('setpriv', ['--reuid', '65534', '--regid', '65534', '--clear-groups', process.execPath, BIN, ...args], {
          cwd: own.dir,
          encoding: 'utf8',
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: own.root, LANG: 'C.UTF-8' },
          timeout: 60_000,
        });
      const doctor = asNobody(['doctor']);
      expect(doctor.status, doctor.stderr).toBe(0);
      expect(doctor.stdout).toContain('user: uid 65534, not root');
      expect(asNobody(['prepare', 'u1']).status).toBe(0);
      const r = asNobody(['exec', 'u1', '--', 'id -u; cat /proc/self/uid_map | wc -l; echo x > made.txt']);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.split('\n')[1]).toBe('1');
      expect(statSync(join(own.dir, '.gatefs/worktrees/u1/made.txt')).uid).toBe(65534);
    } finally {
      chownTree(own.root, 0);
      own.cleanup();
    }
  });
});

/** Gives `dir` and everything below it to `uid` (and the same group). */
function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) chownTree(path, uid);
    else chownSync(path, uid, uid);
  }
}
