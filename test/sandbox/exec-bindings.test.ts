import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { RUN_TYPESCRIPT } from '../run-typescript.js';
import { chownTree, runAs } from './ordinary-user.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping exec under bindings: ${support.cause}; ${support.fix}`);

const tools = ['read', 'write', 'list', 'exec', 'exec_output', 'exec_kill'];
let repo: TempRepo;
let host: Host;
let stateDir: string;

beforeAll(async () => {
  if (!support.available) return;
  repo = makeTempRepo({ 'src/a.txt': 'alpha\n', 'gatefs.yaml': 'roles: []\n' });
  stateDir = join(repo.dir, '.gatefs');
  host = await createHost({
    repo: repo.dir,
    manifest: {
      roles: [
        { name: 'coder', tools, workspace: { backend: 'worktree' }, exec: { timeout: 60 } },
        { name: 'scratch', tools, workspace: { backend: 'empty' }, exec: { timeout: 60 } },
        { name: 'tester', tools, workspace: { backend: 'copy' }, exec: { timeout: 60 } },
      ],
    },
  });
  for (const [conversation, role] of [
    ['c1', 'coder'],
    ['c2', 'coder'],
    ['c3', 'coder'],
    ['c4', 'coder'],
    ['e1', 'scratch'],
    ['t1', 'tester'],
  ] as const) {
    await host.prepare({ conversation, role });
  }
}, 120_000);

afterAll(async () => {
  await host?.close();
  repo?.cleanup();
});

/** The value of a tool call that must succeed. */
async function value<T = { exitCode: number | null; stdout: string; stderr: string; changed: { path: string }[] }>(
  conversation: string,
  tool: string,
  args: unknown,
): Promise<T> {
  const r = await host.gate.call(conversation, tool, args);
  if (!r.ok) throw new Error(`${tool}: ${JSON.stringify(r)}`);
  return r.value as T;
}

const sh = (conversation: string, command: string, extra: Record<string, unknown> = {}) =>
  value(conversation, 'exec', { command, ...extra });

describe.skipIf(!support.available)('exec under bindings (bubblewrap)', () => {
  it('a shared-read attached worktree is readable, not writable, its .git pointer empty; nothing else of /worktrees is there', async () => {
    await value('c2', 'write', { path: 'b.txt', content: 'from c2\n' });
    host.attach('c1', 'c2', 'shared-read');
    const v = await sh(
      'c1',
      'cat /worktrees/c2/b.txt; touch /worktrees/c2/x 2>/dev/null || echo refused; wc -c < /worktrees/c2/.git; ls /worktrees',
    );
    expect(v).toMatchObject({ exitCode: 0, stdout: 'from c2\nrefused\n0\nc1\nc2\n', changed: [] });
    expect(existsSync(join(stateDir, 'worktrees/c2/x'))).toBe(false);
    host.detach('c1', 'c2');
  });

  it('exclusive-write: the holder writes the attached worktree; its owner, having given write up, cannot', async () => {
    host.attach('c2', 'c2', 'shared-read');
    host.attach('c1', 'c2', 'exclusive-write');
    const v = await sh('c1', 'echo new > /worktrees/c2/y.txt && echo wrote; echo x > /worktrees/c2/.git 2>/dev/null || echo covered');
    expect(v).toMatchObject({ exitCode: 0, stdout: 'wrote\ncovered\n', changed: [{ path: '/worktrees/c2/y.txt' }] });
    expect(readFileSync(join(stateDir, 'worktrees/c2/y.txt'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(stateDir, 'worktrees/c2/.git'), 'utf8')).toMatch(/^gitdir: /);
    const owner = await host.gate.call('c2', 'exec', { command: 'touch z 2>/dev/null || echo refused' });
    if (owner.ok) expect(owner.value).toMatchObject({ stdout: 'refused\n' });
    else expect(owner.error.code).toBe('READ_ONLY');
    expect(existsSync(join(stateDir, 'worktrees/c2/z'))).toBe(false);
    host.detach('c1', 'c2');
    host.attach('c2', 'c2', 'exclusive-write');
  });

  it('/canonical: the checkout without its .git or the state dir, gatefs.yaml read-only, writable only for exclusive-write', async () => {
    host.attach('c1', 'canonical', 'shared-read');
    let v = await sh('c1', 'cat /canonical/src/a.txt; touch /canonical/q 2>/dev/null || echo refused');
    expect(v).toMatchObject({ exitCode: 0, stdout: 'alpha\nrefused\n' });
    host.attach('c1', 'canonical', 'exclusive-write');
    v = await sh(
      'c1',
      [
        'ls -A /canonical/.git | wc -l',
        'ls -A /canonical/.gatefs | wc -l',
        'echo x >> /canonical/gatefs.yaml 2>/dev/null || echo yaml-refused',
        'touch /canonical/.git/HEAD 2>/dev/null || echo git-refused',
        'echo new > /canonical/new.txt && echo wrote',
      ].join('; '),
    );
    expect(v).toMatchObject({ exitCode: 0, stdout: '0\n0\nyaml-refused\ngit-refused\nwrote\n' });
    expect(readFileSync(join(repo.dir, 'new.txt'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(repo.dir, 'gatefs.yaml'), 'utf8')).toBe('roles: []\n');
    rmSync(join(repo.dir, 'new.txt'));
    host.detach('c1', 'canonical');
  });

  it('/home is the agent home, writable, its .gatefs read-only; HOME stays the private /tmp/home', async () => {
    const home = join(stateDir, 'homes/coder');
    expect(existsSync(home)).toBe(true);
    const v = await sh(
      'c1',
      'echo hi > /home/notes/n.md && echo wrote; touch /home/.gatefs/x 2>/dev/null || echo refused; echo "$HOME"; test -f /home/AGENTS.md && echo guide',
    );
    expect(v).toMatchObject({ exitCode: 0, stdout: 'wrote\nrefused\n/tmp/home\nguide\n' });
    expect(readFileSync(join(home, 'notes/n.md'), 'utf8')).toBe('hi\n');
    expect(existsSync(join(home, '.gatefs/x'))).toBe(false);
  });

  it('the default folder follows the active workspace from the next command on; a running one keeps its folder', async () => {
    host.attach('c1', 'c2', 'shared-read');
    const bg = await value<{ runId: string }>('c1', 'exec', {
      command: 'pwd; while [ ! -e /worktrees/c1/go ]; do sleep 0.1; done; pwd; ls /worktrees',
      background: true,
    });
    host.switch('c1', 'c2');
    expect((await sh('c1', 'pwd')).stdout).toBe('/worktrees/c2\n');
    host.switch('c1', 'home');
    expect((await sh('c1', 'pwd')).stdout).toBe('/home\n');
    host.detach('c1', 'c2');
    await value('c1', 'write', { path: '/worktrees/c1/go', content: '' });
    let out = await value<{ state: string; stdout: string; result?: { stdout: string; exitCode: number } }>('c1', 'exec_output', {
      runId: bg.runId,
      waitMs: 30_000,
    });
    let text = out.stdout;
    while (out.state === 'running') {
      out = await value('c1', 'exec_output', { runId: bg.runId, waitMs: 30_000 });
      text += out.stdout;
    }
    expect(text).toBe('/worktrees/c1\n/worktrees/c1\nc1\nc2\n');
    host.switch('c1', 'c1');
    expect((await sh('c1', 'pwd')).stdout).toBe('/worktrees/c1\n');
  });

  it('an attached copy workspace is left out of the sandbox: OUTSIDE_MOUNTS while it is active, nothing run', async () => {
    host.attach('c1', 't1', 'shared-read');
    expect((await sh('c1', 'ls /worktrees')).stdout).toBe('c1\n');
    host.switch('c1', 't1');
    expect(await host.gate.call('c1', 'exec', { command: 'touch /home/tmp/ran' })).toMatchObject({
      ok: false,
      error: { code: 'OUTSIDE_MOUNTS' },
    });
    expect(existsSync(join(stateDir, 'homes/coder/tmp/ran'))).toBe(false);
    host.detach('c1', 't1');
  });

  it("a link the owner plants where the holder's sandbox covers .git refuses the holder's command (SYMLINK_ESCAPE), nothing run", async () => {
    host.attach('c1', 'c3', 'shared-read');
    const git = join(stateDir, 'worktrees/c3/.git');
    renameSync(git, `${git}.kept`);
    symlinkSync('/etc', git);
    try {
      const r = await host.gate.call('c1', 'exec', { command: 'touch /home/tmp/ran2' });
      expect(r).toMatchObject({ ok: false, error: { code: 'SYMLINK_ESCAPE' } });
      expect(existsSync(join(stateDir, 'homes/coder/tmp/ran2'))).toBe(false);
    } finally {
      rmSync(git);
      renameSync(`${git}.kept`, git);
    }
    host.detach('c1', 'c3');
  });

  it("a release of the attached workspace ends the holder's command that shows it", async () => {
    host.attach('c1', 'c4', 'shared-read');
    const bg = await value<{ runId: string }>('c1', 'exec', { command: 'sleep 60', background: true });
    await host.release('c4', { discard: true });
    const out = await value('c1', 'exec_output', { runId: bg.runId, waitMs: 30_000 });
    expect(out).toMatchObject({ state: 'ended', result: { exitCode: null, signal: 'SIGKILL' } });
    expect((await sh('c1', 'ls /worktrees')).stdout).toBe('c1\n');
  });
});

/** `nobody`, when this suite runs as root (and so can switch to it); else null. */
const ordinaryUser = process.getuid?.() === 0 ? 65534 : null;
const childScript = join(dirname(fileURLToPath(import.meta.url)), 'exec-bindings-child.ts');

describe.skipIf(!support.available || ordinaryUser === null)('exec under bindings as an ordinary user', () => {
  it('shows an attached worktree, /canonical without .git, /home, and starts in the active workspace', async () => {
    const base = mkdtempSync(join(tmpdir(), 'gatefs-bindings-user-'));
    try {
      const repo = makeTempRepo({ 'src/a.txt': 'alpha\n' }, base);
      chownTree(base, ordinaryUser!);
      const steps = [
        ['c2', 'write', { path: 'b.txt', content: 'from c2\n' }],
        ['@attach', 'c1', 'c2', 'shared-read'],
        ['@attach', 'c1', 'canonical', 'exclusive-write'],
        [
          'c1',
          'exec',
          { command: 'cat /worktrees/c2/b.txt; touch /worktrees/c2/x 2>/dev/null || echo refused; wc -c < /worktrees/c2/.git' },
        ],
        [
          'c1',
          'exec',
          { command: 'ls -A /canonical/.git | wc -l; ls -A /canonical/.gatefs | wc -l; echo n > /canonical/n.txt && echo wrote' },
        ],
        ['c1', 'exec', { command: 'echo hi > /home/notes/u.md && echo home; touch /home/.gatefs/x 2>/dev/null || echo refused' }],
        ['@switch', 'c1', 'c2'],
        ['c1', 'exec', { command: 'pwd' }],
        ['@switch', 'c1', 'canonical'],
        ['c1', 'exec', { command: 'pwd' }],
      ];
      const child = await runAs(ordinaryUser!, base, [process.execPath, ...RUN_TYPESCRIPT, childScript, repo.dir, JSON.stringify(steps)]);
      expect(child.code, child.stderr).toBe(0);
      const answers = child.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { ok: boolean; value?: { stdout: string } });
      expect(answers.every((a) => a.ok)).toBe(true);
      expect(answers.map((a) => a.value?.stdout).filter((s) => s !== undefined && s !== '')).toEqual([
        'from c2\nrefused\n0\n',
        '0\n0\nwrote\n',
        'home\nrefused\n',
        '/worktrees/c2\n',
        '/canonical\n',
      ]);
      expect(readFileSync(join(repo.dir, 'n.txt'), 'utf8')).toBe('n\n');
      expect(readFileSync(join(repo.dir, '.gatefs/homes/coder/notes/u.md'), 'utf8')).toBe('hi\n');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
