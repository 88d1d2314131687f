/**
 * Which folder the CLI takes as the repository: without --repo, the top of the git repository
 * holding the current folder (or the folder itself outside git), never a gatefs workspace. Found in the new-user trial: `gatefs
 * status` in `src/` made `src/.gatefs` and listed nothing, and `gatefs release` run from inside a
 * workspace (where the DIRTY_WORKTREE hint sends you to commit) made a state directory inside
 * the agent's workspace.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatefs, sampleRepo } from './run-gatefs.js';

let repo: ReturnType<typeof sampleRepo>;

beforeAll(async () => {
  repo = sampleRepo();
  const prepared = await gatefs(['prepare', 'w1'], { cwd: repo.dir });
  expect(prepared.code).toBe(0);
});
afterAll(() => repo?.cleanup());

describe('the current folder below the top of a git repository', () => {
  it.each([['status'], ['init'], ['call', 'w1', 'list', '{}']])(
    'gatefs %s there works on the repository at the top, as git does, and creates nothing in the subfolder',
    async (...args) => {
      const sub = join(repo.dir, 'src');
      const before = readdirSync(sub).sort();
      const r = await gatefs(args, { cwd: sub });
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(sub).sort()).toEqual(before);
      expect(existsSync(join(sub, '.gatefs'))).toBe(false);
      expect(existsSync(join(sub, 'gatefs.yaml'))).toBe(false);
    },
  );

  it("status from a subfolder shows the repository's workspaces", async () => {
    const r = await gatefs(['status', '--json'], { cwd: join(repo.dir, 'src') });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { conversation: string }[]).map((w) => w.conversation)).toContain('w1');
  });

  it("--repo pointing at the top works from there, and shows the repository's workspaces", async () => {
    const r = await gatefs(['--repo', repo.dir, 'status', '--json'], { cwd: join(repo.dir, 'src') });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { conversation: string }[]).map((w) => w.conversation)).toContain('w1');
  });

  it('--repo . keeps the folder itself as the repository (explicit choice)', async () => {
    const sub = join(repo.dir, 'docs');
    const r = await gatefs(['--repo', '.', 'init'], { cwd: sub });
    expect(r.code).toBe(0);
    expect(existsSync(join(sub, 'gatefs.yaml'))).toBe(true);
    rmSync(join(sub, 'gatefs.yaml'));
    rmSync(join(sub, '.gatefs'), { recursive: true, force: true });
  });

  it('a folder outside any git repository is the repository, as before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-plain-'));
    try {
      writeFileSync(join(dir, 'a.txt'), 'a\n');
      const r = await gatefs(['init'], { cwd: dir });
      expect(r.code).toBe(0);
      expect(existsSync(join(dir, 'gatefs.yaml'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a folder inside a gatefs workspace', () => {
  const workspace = () => join(repo.dir, '.gatefs', 'worktrees', 'w1');

  it.each([[[] as string[]], [['--repo', '.']]])(
    'is refused as the repository (flags %j) and no state directory appears in the workspace',
    async (flags) => {
      for (const cwd of [workspace(), join(workspace(), 'src')]) {
        const r = await gatefs([...flags, 'release', 'w1'], { cwd });
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(
          `is inside the gatefs workspace of conversation 'w1' in the state directory ${join(repo.dir, '.gatefs')} (its repository is ${repo.dir})`,
        );
        expect(existsSync(join(workspace(), '.gatefs'))).toBe(false);
        expect(existsSync(join(workspace(), 'src', '.gatefs'))).toBe(false);
      }
      const listing = await gatefs(['call', 'w1', 'list', '{}'], { cwd: repo.dir });
      expect(listing.stdout).not.toContain('.gatefs');
    },
  );

  it('the repository itself still serves the workspace', async () => {
    mkdirSync(join(repo.root, 'elsewhere'), { recursive: true });
    const r = await gatefs(['--repo', repo.dir, 'status', '--json'], { cwd: join(repo.root, 'elsewhere') });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { conversation: string; state: string }[]).find((w) => w.conversation === 'w1')?.state).toBe('ready');
  });
});
