/**
 * The git contract (test/git/contract/suite.ts) run over both implementations of the git ports:
 * the git program, the reference, and isomorphic-git over memfs, the memory host's twin. Then
 * one scenario run on both, compared object for object: the same files, identities and times
 * give the same commits, the same patch and the same merge.
 */
import { describe, expect, it } from 'vitest';
import { cliWorld } from './contract/cli-world.js';
import { memoryWorld } from './contract/memory-world.js';
import { gitContract } from './contract/suite.js';
import { CTX, STANDARD, by, commitOnBranch, landing, mainHead, type GitWorld, type GitWorldSetup } from './contract/world.js';

gitContract('git program (CliGit, CliLandingGit)', cliWorld);
gitContract('isomorphic-git over memfs (MemoryGit, MemoryLandingGit)', memoryWorld);

/** Seeds, commits edits of every kind in a worktree, diffs them, and merges two branches; what each step made. */
async function scenario(w: GitWorld) {
  const seed = await mainHead(w);
  const path = w.place('wt');
  await w.git.addWorktree({ path, branch: 'gatefs/x', base: seed }, CTX);
  w.files.write(`${path}/a.txt`, 'A\nmore\n');
  w.files.remove(`${path}/b.txt`);
  w.files.write(`${path}/deep/er/new.txt`, 'no final newline');
  w.files.write(`${path}/deep/bin2.dat`, new Uint8Array([0, 255, 0]));
  w.files.chmod(`${path}/run.sh`, 0o755);
  w.files.symlink('a.txt', `${path}/link`);
  const diff = await w.landing.diff(path, { base: seed, maxPatchBytes: 100_000 }, CTX);
  const work = (await w.landing.commit(path, by('work\n\nof x'), CTX)).sha!;
  const other = await commitOnBranch(w, 'other', seed, { write: { 'src/c.ts': 'C2\n', 'src/z/z.ts': 'z\n' } }, 5);
  const lander = w.place('lander');
  await w.landing.checkoutDetached(lander, work, CTX);
  const merged = await w.landing.merge(lander, other, landing('Land other'), CTX);
  if (!merged.ok) throw new Error('conflict');
  return { seed, diff, work, other, merged: merged.sha, text: await w.commitText(merged.sha) };
}

describe('both implementations agree', () => {
  it('make the same commits, print the same patch and make the same merge from the same scenario', async () => {
    const runs = [];
    for (const setup of [cliWorld, memoryWorld] as GitWorldSetup[]) {
      const w = await setup(STANDARD);
      try {
        runs.push(await scenario(w));
      } finally {
        w.cleanup();
      }
    }
    const [cli, memory] = runs;
    expect(memory!.diff.patch).toBe(cli!.diff.patch);
    expect(memory).toEqual(cli);
  });
});
