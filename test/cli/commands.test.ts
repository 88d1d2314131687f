/**
 * The operator's commands through the built binary on real git repositories: init, prepare,
 * status, call, release, with tables by default, `--json` for scripts, and exit code 1 plus a
 * one-line error code for tool and workspace errors.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatefs, git, sampleRepo } from './run-gatefs.js';

let repo: ReturnType<typeof sampleRepo>;
const run = (...args: string[]) => gatefs(args, { cwd: repo.dir });
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .*\(/);

beforeAll(() => {
  repo = sampleRepo();
});
afterAll(() => repo?.cleanup());

describe('init', () => {
  it('writes a starter gatefs.yaml and the state dir once, and changes nothing the second time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-init-'));
    try {
      writeFileSync(join(dir, 'README.md'), '# x\n');
      git(dir, 'init', '--quiet');
      git(dir, 'config', 'user.name', 't');
      git(dir, 'config', 'user.email', 't@t.invalid');
      git(dir, 'add', '--all');
      git(dir, 'commit', '--quiet', '-m', 'x');
      const first = await gatefs(['init'], { cwd: dir });
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('wrote gatefs.yaml');
      const text = readFileSync(join(dir, 'gatefs.yaml'), 'utf8');
      expect(text).toContain('roles:');
      expect(existsSync(join(dir, '.gatefs'))).toBe(true);
      expect(git(dir, 'status', '--porcelain')).toBe('?? gatefs.yaml\n');
      const second = await gatefs(['init'], { cwd: dir });
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('kept existing gatefs.yaml');
      expect(readFileSync(join(dir, 'gatefs.yaml'), 'utf8')).toBe(text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('init in a folder that is not a git repository', () => {
  it('gives the starter role a copy workspace, which prepares there and goes home with apply', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-init-plain-'));
    try {
      writeFileSync(join(dir, 'notes.txt'), 'one\n');
      expect((await gatefs(['init'], { cwd: dir })).code).toBe(0);
      expect(readFileSync(join(dir, 'gatefs.yaml'), 'utf8')).toMatch(/^ {6}backend: copy +# not a git repository/m);
      const prepared = await gatefs(['prepare', 'p', '--json'], { cwd: dir });
      expect(prepared.code).toBe(0);
      expect(JSON.parse(prepared.stdout).backend).toBe('copy');
      expect((await gatefs(['call', 'p', 'write', '{"path":"notes.txt","content":"two\\n"}'], { cwd: dir })).code).toBe(0);
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('one\n');
      expect((await gatefs(['apply', 'p'], { cwd: dir })).code).toBe(0);
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('two\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('status before anything was prepared', () => {
  it('says there are no workspaces and creates no state directory; a broken manifest is still reported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-status-'));
    try {
      const r = await gatefs(['status'], { cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('No workspaces yet. Prepare one with: gatefs prepare <conversation>\n');
      expect((await gatefs(['status', '--json'], { cwd: dir })).stdout).toBe('[]\n');
      expect(existsSync(join(dir, '.gatefs'))).toBe(false);
      writeFileSync(
        join(dir, 'gatefs.yaml'),
        'roles:\n  - name: r\n    tools: [read]\n    workspace:\n      backend: worktree\n      mountz: []\n',
      );
      const bad = await gatefs(['status'], { cwd: dir });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^gatefs: error: UNKNOWN_KEY: .*roles\[0\]\.workspace\.mountz/);
      expect(existsSync(join(dir, '.gatefs'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('prepare, status, call, release', () => {
  it('prepare pins HEAD and prints the workspace; --json gives the same as data', async () => {
    const table = await run('prepare', 'c1');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^CONVERSATION\s+ROLE\s+RUN\s+BACKEND\s+GUARANTEE\s+STATE\s+BRANCH\s+PINNED\s+HOLDER\s+PARENT\s+LANDED\s+SNAPSHOTS$/m,
    );
    expect(table.stdout).toMatch(/^c1\s+implementer\s+default\/v1\s+worktree\s+confined\s+ready\s/m);
    expect(table.stderr).toContain('preparing "c1"');
    const json = await run('prepare', 'c2', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      conversation: 'c2',
      state: 'ready',
      backend: 'worktree',
      pinnedSha: git(repo.dir, 'rev-parse', 'HEAD').trim(),
    });
  });

  it('prepare of a ready workspace says it is reused as it is; another --base is refused, naming the pin', async () => {
    const again = await run('prepare', 'c1');
    expect(again.code).toBe(0);
    const pinned = git(repo.dir, 'rev-parse', 'HEAD').trim();
    expect(again.stderr).toBe(
      `gatefs: "c1" was already prepared (role implementer, visit 1 of run default, pinned ${pinned.slice(0, 12)}): reused as it is\n`,
    );
    git(repo.dir, 'commit', '--quiet', '--allow-empty', '-m', 'move HEAD');
    try {
      const other = await run('prepare', 'c1', '--base', 'HEAD');
      expect(other.code).toBe(1);
      expect(other.stderr).toMatch(
        new RegExp(
          `^gatefs: error: PREPARATION_FAILED: conversation 'c1' is already prepared from ${pinned.slice(0, 12)}, not from HEAD \\([0-9a-f]{12}\\) \\(a workspace keeps the base it was prepared from: prepare it without --base to use it`,
        ),
      );
    } finally {
      git(repo.dir, 'reset', '--quiet', '--hard', pinned);
    }
  });

  it('status lists both workspaces', async () => {
    const rows = JSON.parse((await run('status', '--json')).stdout) as { conversation: string; state: string }[];
    expect(
      rows
        .filter((r) => r.state === 'ready')
        .map((r) => r.conversation)
        .sort(),
    ).toEqual(['c1', 'c2']);
    const table = await run('status');
    expect(table.stdout).toMatch(/^c2\s+implementer/m);
  });

  it('call runs a tool: a write in c1 shows in c1 only', async () => {
    const w = await run('call', 'c1', 'write', JSON.stringify({ path: 'NOTES.md', content: 'from c1\n' }));
    expect(w.code).toBe(0);
    expect(w.stdout).toMatch(/created NOTES\.md: 8 bytes/);
    expect((await run('call', 'c1', 'read', '{"path":"NOTES.md"}')).stdout).toContain('from c1');
    const other = await run('call', 'c2', 'read', '{"path":"NOTES.md"}');
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^gatefs: NOT_FOUND: /);
    expect(existsSync(join(repo.dir, 'NOTES.md'))).toBe(false);
  });

  it('a refused call exits 1 with its code on one line; --json prints the whole result', async () => {
    const r = await run('call', 'c1', 'read', '{"path":"../../etc/passwd"}');
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^gatefs: PATH_ESCAPE: /);
    const j = await run('call', 'c1', 'write', '{"path":".campaign/brief.md","content":"x"}', '--json');
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: false, error: { code: 'READ_ONLY' } });
  });

  it('a regex grep answers and the process exits: the shared regex workers never keep it alive', async () => {
    const r = await run('call', 'c2', 'grep', JSON.stringify({ pattern: 'Hel+o, \\$\\{name\\}', output: 'count' }), '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, value: { counts: [{ path: 'src/greeting.js', count: 1 }] } });
  });

  it('calling an unprepared conversation names the problem', async () => {
    const r = await run('call', 'nobody', 'read', '{"path":"README.md"}');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^gatefs: UNKNOWN_CONVERSATION: .*\(prepare it first: gatefs prepare <conversation>\)/);
  });

  it('release refuses a dirty worktree and removes a clean one', async () => {
    const dirty = await run('release', 'c1');
    expect(dirty.code).toBe(1);
    // The hint names the folder to commit in (the operator's own host path) and the flag.
    expect(dirty.stderr).toContain(
      `(commit the work on its branch in ${join(repo.dir, '.gatefs/worktrees/c1')} (ignored files cannot be committed`,
    );
    expect(dirty.stderr).toMatch(/^gatefs: error: DIRTY_WORKTREE: .*NOTES\.md.*or release with discard \(gatefs release c1 --discard\)/);
    noStack(dirty.stderr);
    const clean = await run('release', 'c2');
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('released "c2"');
    const rows = JSON.parse((await run('status', '--json')).stdout) as { conversation: string; state: string }[];
    expect(rows.find((r) => r.conversation === 'c2')?.state ?? 'released').toBe('released');
    expect(rows.find((r) => r.conversation === 'c1')?.state).toBe('ready');
  });
});

describe('domain errors are one line with their code', () => {
  it('a manifest asking for the container backend', async () => {
    const bad = join(repo.root, 'container.yaml');
    writeFileSync(bad, 'roles:\n  - name: boxed\n    tools: [read]\n    workspace:\n      backend: container\n');
    const r = await run('--manifest', bad, 'prepare', 'c9');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^gatefs: error: BACKEND_UNAVAILABLE: /);
    noStack(r.stderr);
  });

  it('a manifest with a typo names the key path', async () => {
    const bad = join(repo.root, 'typo.yaml');
    writeFileSync(bad, 'roles:\n  - name: r\n    tools: [read]\n    workspace:\n      backend: worktree\n      mountz: []\n');
    const r = await run('--manifest', bad, 'status');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^gatefs: error: UNKNOWN_KEY: .*roles\[0\]\.workspace\.mountz/);
  });

  it('an unknown role', async () => {
    const r = await run('prepare', 'c8', '--role', 'astronaut');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/UNKNOWN_ROLE/);
  });
});
