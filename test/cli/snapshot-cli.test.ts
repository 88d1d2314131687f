/**
 * Snapshots from the command line, through the built binary on a real repository and real disk:
 * `gatefs snapshot` (id, files, bytes, stored bytes), `gatefs snapshots` (a table and `--json`),
 * `gatefs restore` (exactly the snapshot's files, modes, empty folders and links, and the snapshot
 * of the state before that undoes it), an unknown id (exit 1, SNAPSHOT_NOT_FOUND and the ids
 * there are), `status`'s SNAPSHOTS column, `release --keep-snapshots`, `subagent start --from
 * working`, the agent's checkpoint through `gatefs call` and `gatefs tools`, and `gatefs exec`
 * with `exec: { checkpoint: true }` (bubblewrap; skipped with the probe's reason where none runs).
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { gatefs, git, sampleRepo, type RunResult } from './run-gatefs.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping gatefs exec with exec.checkpoint: ${support.cause}; ${support.fix}`);

const MANIFEST = [
  'roles:',
  '  - name: agent',
  '    tools: [read, write, list, checkpoint, rollback, exec, commit]',
  '    workspace: { backend: worktree }',
  '    exec: { checkpoint: true, timeout: 30 }',
  '  - name: copier',
  '    tools: [read, write, checkpoint, rollback]',
  '    workspace: { backend: copy }',
  '',
].join('\n');

let repo: ReturnType<typeof sampleRepo>;
const run = (args: string[]) => gatefs(args, { cwd: repo.dir });
const worktree = (id = 'c1') => join(repo.dir, '.gatefs/worktrees', id);

beforeEach(() => {
  repo = sampleRepo();
  writeFileSync(join(repo.dir, 'gatefs.yaml'), MANIFEST);
  writeFileSync(join(repo.dir, '.gitignore'), 'build/\n');
  git(repo.dir, 'add', 'gatefs.yaml', '.gitignore');
  git(repo.dir, 'commit', '--quiet', '-m', 'manifest');
});
afterEach(() => repo?.cleanup());

async function ok(args: string[]): Promise<RunResult> {
  const r = await run(args);
  expect(r.code, `gatefs ${args.join(' ')}: ${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
}

/** Every entry below `dir` except `.git`: a file as its mode and bytes, a link as its target, a folder as its mode. */
function tree(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    if (prefix === '' && name === '.git') continue;
    const path = join(dir, name);
    const rel = `${prefix}${name}`;
    const st = lstatSync(path);
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isSymbolicLink()) out[rel] = `link -> ${readlinkSync(path)}`;
    else if (st.isDirectory()) {
      out[rel] = `dir ${mode}`;
      Object.assign(out, tree(path, `${rel}/`));
    } else out[rel] = `file ${mode} ${readFileSync(path, 'utf8')}`;
  }
  return out;
}

describe('gatefs snapshot, snapshots, restore', () => {
  it('restores exactly the snapshot (untracked and ignored files, modes, empty folders, links), and the snapshot before undoes it', async () => {
    await ok(['prepare', 'c1']);
    const ws = worktree();
    mkdirSync(join(ws, 'build'));
    writeFileSync(join(ws, 'build/out.js'), 'ignored\n');
    writeFileSync(join(ws, 'notes.md'), 'untracked\n');
    writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(ws, 'run.sh'), 0o755);
    mkdirSync(join(ws, 'empty'));
    symlinkSync('notes.md', join(ws, 'link-to-notes'));
    const saved = tree(ws);

    const taken = await ok(['snapshot', 'c1', '--label', 'before the refactor']);
    expect(taken.stdout).toMatch(
      /^snapshot 1 of "c1" \("before the refactor"\): \d+ file\(s\), [\d.]+ (B|KiB|MiB); [\d.]+ (B|KiB|MiB) new in the store$/m,
    );
    expect(taken.stdout).toContain('return to it with: gatefs restore c1 1');

    writeFileSync(join(ws, 'notes.md'), 'rewritten\n');
    rmSync(join(ws, 'build'), { recursive: true });
    chmodSync(join(ws, 'run.sh'), 0o644);
    rmSync(join(ws, 'empty'), { recursive: true });
    rmSync(join(ws, 'link-to-notes'));
    symlinkSync('run.sh', join(ws, 'link-to-notes'));
    writeFileSync(join(ws, 'added.txt'), 'new\n');
    mkdirSync(join(ws, 'new-folder/deeper'), { recursive: true });
    const changed = tree(ws);
    const head = git(ws, 'rev-parse', 'HEAD');

    const restored = await ok(['restore', 'c1', '1']);
    expect(restored.stdout).toMatch(/^restored "c1" to snapshot 1: \d+ entries written, \d+ removed$/m);
    expect(restored.stdout).toContain('the state before is snapshot 2: gatefs restore c1 2 undoes this');
    expect(tree(ws)).toEqual(saved);
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(head);

    await ok(['restore', 'c1', '2']);
    expect(tree(ws)).toEqual(changed);
  });

  it('lists snapshots as a table and as JSON, oldest first', async () => {
    await ok(['prepare', 'c1']);
    expect((await ok(['snapshots', 'c1'])).stdout).toContain('"c1" has no snapshots. Take one with: gatefs snapshot c1');
    await ok(['snapshot', 'c1', '--label', 'first']);
    writeFileSync(join(worktree(), 'x.txt'), 'x\n');
    await ok(['snapshot', 'c1']);
    await ok(['restore', 'c1', '1']);

    const table = (await ok(['snapshots', 'c1'])).stdout.trimEnd().split('\n');
    expect(table[0]).toMatch(/^ID\s+WHEN\s+REASON\s+LABEL\s+FILES\s+SIZE$/);
    const cells = table.slice(1).map((l) => l.split(/\s{2,}/));
    expect(cells.map((c) => [c[0], c[2], c[3]])).toEqual([
      ['1', 'manual', 'first'],
      ['2', 'manual', '-'],
      ['3', 'restore', expect.any(String)],
    ]);
    expect(table[1]).toMatch(/^1\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+manual/);

    const json = JSON.parse((await ok(['snapshots', 'c1', '--json'])).stdout) as { snapshotId: string; reason: string; files: number }[];
    expect(json.map((s) => [s.snapshotId, s.reason])).toEqual([
      ['1', 'manual'],
      ['2', 'manual'],
      ['3', 'restore'],
    ]);
    expect(json[1]!.files).toBe(json[0]!.files + 1);
  });

  it('an unknown snapshot is exit 1 with SNAPSHOT_NOT_FOUND and the ids there are; nothing changes', async () => {
    await ok(['prepare', 'c1']);
    await ok(['snapshot', 'c1']);
    writeFileSync(join(worktree(), 'kept.txt'), 'kept\n');
    const before = tree(worktree());
    const r = await run(['restore', 'c1', '9']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('SNAPSHOT_NOT_FOUND');
    expect(r.stderr).toMatch(/^gatefs: error: SNAPSHOT_NOT_FOUND: .*\b1\b/m);
    expect(r.stderr.split('\n').filter((l) => l.includes('SNAPSHOT_NOT_FOUND'))).toHaveLength(1);
    expect(tree(worktree())).toEqual(before);
    expect((await run(['restore', 'c1', 'latest'])).code).toBe(2);
  });

  it('refuses a label that is not one line, before anything is taken', async () => {
    await ok(['prepare', 'c1']);
    const r = await run(['snapshot', 'c1', '--label', 'two\nlines']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--label');
    expect((await ok(['snapshots', 'c1', '--json'])).stdout.trim()).toBe('[]');
  });

  it("snapshots a copy workspace's files as the agent sees them", async () => {
    await ok(['prepare', 'k1', '--role', 'copier']);
    await ok(['call', 'k1', 'write', JSON.stringify({ path: 'a.txt', content: 'one\n' })]);
    await ok(['snapshot', 'k1']);
    await ok(['call', 'k1', 'write', JSON.stringify({ path: 'a.txt', content: 'two\n' })]);
    await ok(['restore', 'k1', '1']);
    expect((await ok(['call', 'k1', 'read', JSON.stringify({ path: 'a.txt' })])).stdout).toContain('one');
  });
});

describe('status, release and subagents with snapshots', () => {
  it('status shows how many snapshots a workspace has and their size', async () => {
    await ok(['prepare', 'c1']);
    await ok(['prepare', 'c2']);
    await ok(['snapshot', 'c1']);
    writeFileSync(join(worktree(), 'x.txt'), 'x\n');
    await ok(['snapshot', 'c1']);
    const lines = (await ok(['status'])).stdout.split('\n');
    expect(lines[0]).toMatch(/\sSNAPSHOTS$/);
    expect(lines.find((l) => l.startsWith('c1 '))).toMatch(/\s2 \([\d.]+ (B|KiB|MiB)\)$/);
    expect(lines.find((l) => l.startsWith('c2 '))).toMatch(/\s-$/);
    const json = JSON.parse((await ok(['status', '--json'])).stdout) as { conversation: string; snapshots?: { count: number } }[];
    expect(json.find((w) => w.conversation === 'c1')?.snapshots?.count).toBe(2);
  });

  it('release drops the snapshots unless --keep-snapshots; kept ones restore into the workspace prepared again', async () => {
    await ok(['prepare', 'c1']);
    await ok(['prepare', 'c2']);
    writeFileSync(join(worktree('c1'), 'work.txt'), 'uncommitted work\n');
    await ok(['snapshot', 'c1']);
    await ok(['snapshot', 'c2']);
    const kept = await ok(['release', 'c1', '--discard', '--keep-snapshots']);
    expect(kept.stdout).toContain('its snapshots are kept: gatefs snapshots c1 lists them');
    await ok(['release', 'c2']);
    expect(JSON.parse((await ok(['snapshots', 'c1', '--json'])).stdout)).toHaveLength(1);
    const dropped = await run(['snapshots', 'c2', '--json']);
    if (dropped.code === 0) expect(JSON.parse(dropped.stdout)).toEqual([]);
    else expect(dropped.stderr).toContain('UNKNOWN_CONVERSATION');

    expect((await run(['restore', 'c1', '1'])).stderr).toContain('UNKNOWN_CONVERSATION');
    await ok(['prepare', 'c1']);
    expect(existsSync(join(worktree('c1'), 'work.txt'))).toBe(false);
    await ok(['restore', 'c1', '1']);
    expect(readFileSync(join(worktree('c1'), 'work.txt'), 'utf8')).toBe('uncommitted work\n');
  });

  it("subagent start --from working gives the child the parent's uncommitted and untracked files; --from head does not", async () => {
    await ok(['prepare', 'p1']);
    writeFileSync(join(worktree('p1'), 'draft.md'), 'not committed\n');
    writeFileSync(join(worktree('p1'), 'README.md'), 'changed, not committed\n');
    await ok(['subagent', 'start', 'p1', 'w1', '--from', 'working']);
    expect(readFileSync(join(worktree('w1'), 'draft.md'), 'utf8')).toBe('not committed\n');
    expect(readFileSync(join(worktree('w1'), 'README.md'), 'utf8')).toBe('changed, not committed\n');
    await ok(['subagent', 'start', 'p1', 'h1', '--from', 'head']);
    expect(existsSync(join(worktree('h1'), 'draft.md'))).toBe(false);
    const bad = await run(['subagent', 'start', 'p1', 'x1', '--from', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from must be head or working');
  });
});

describe("the agent's checkpoint from the command line", () => {
  it('gatefs tools lists checkpoint and rollback with their arguments; gatefs call prints the checkpoint', async () => {
    await ok(['prepare', 'c1']);
    const tools = (await ok(['tools', 'c1'])).stdout;
    expect(tools).toMatch(/checkpoint/);
    expect(tools).toMatch(/rollback/);
    expect(tools).toMatch(/snapshotId/);
    const called = await ok(['call', 'c1', 'checkpoint', '{"label":"green"}']);
    expect(called.stdout).toMatch(/^checkpoint 1 \("green"\): \d+ file\(s\)/);
    writeFileSync(join(worktree(), 'oops.txt'), 'oops\n');
    const rolled = await ok(['call', 'c1', 'rollback', '{"snapshotId":"1"}']);
    expect(rolled.stdout).toContain('rolled back to checkpoint 1');
    expect(existsSync(join(worktree(), 'oops.txt'))).toBe(false);
    const missing = await run(['call', 'c1', 'rollback', '{"snapshotId":"5"}']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('SNAPSHOT_NOT_FOUND');
  });
});

describe.skipIf(!support.available)('gatefs exec with exec: { checkpoint: true }', () => {
  it('takes a snapshot before the command; restoring it undoes what the command did', async () => {
    await ok(['prepare', 'c1']);
    writeFileSync(join(worktree(), 'precious.txt'), 'keep me\n');
    mkdirSync(join(worktree(), 'build'));
    writeFileSync(join(worktree(), 'build/cache'), 'ignored\n');
    const before = tree(worktree());
    const r = await ok(['exec', 'c1', '--', 'rm -rf precious.txt build src && echo gone']);
    expect(r.stdout).toBe('gone\n');
    expect(r.stderr).toContain('gatefs: snapshot 1 was taken before the command: gatefs restore c1 1 undoes it');
    expect(existsSync(join(worktree(), 'precious.txt'))).toBe(false);

    const snapshots = JSON.parse((await ok(['snapshots', 'c1', '--json'])).stdout) as { reason: string; label: string }[];
    expect(snapshots).toMatchObject([{ reason: 'exec', label: 'before exec: rm -rf precious.txt build src && echo gone' }]);
    await ok(['restore', 'c1', '1']);
    expect(tree(worktree())).toEqual(before);
  });
});
