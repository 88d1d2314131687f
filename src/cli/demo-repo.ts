/**
 * Builds the demo's sample repository: copies `fixtures/sample-repo` into a new folder, runs
 * `git init` and commits everything (through the neutral git runner, argv only), with a local
 * committer identity so it works on a machine without a global git config.
 */
import { cpSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NeutralGitRunner, type GitSession } from '../git/neutral-git-runner.js';
import { NodeHostExec } from '../ports/node-host-exec.js';

/** Where the sample repository's files live (source tree and `dist/` alike). */
function sampleRepoFixture(): string {
  for (const rel of ['../../fixtures/sample-repo', '../../../fixtures/sample-repo']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  throw new Error('the sample repository fixture (fixtures/sample-repo) is missing from this install');
}

/** Copies the fixture into `dir` (which must not exist yet), makes it a git repo, commits. */
export async function buildSampleRepo(dir: string): Promise<void> {
  cpSync(sampleRepoFixture(), dir, { recursive: true, errorOnExist: true });
  // Through the neutral runner like every git command gatefs runs: the user's global hooks,
  // filters and signing settings stay out of the demo too.
  const git = new NeutralGitRunner(new NodeHostExec({ defaultTimeoutMs: 30_000 }), 30_000);
  const context = { tag: 'demo', chain: [] };
  const refs = git.refSession(dir, context, false);
  const steps: [GitSession | null, string[]][] = [
    [refs, ['init', '--quiet', '--initial-branch=main']],
    [refs, ['config', 'user.name', 'gatefs demo']],
    [refs, ['config', 'user.email', 'demo@gatefs.invalid']],
    [refs, ['config', 'commit.gpgsign', 'false']],
    [null, ['add', '--all']],
    [null, ['commit', '--quiet', '-m', 'Sample project']],
  ];
  for (const [session, args] of steps) {
    const r = await git.run(session ?? (await git.session(dir, context, false)), args);
    if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr.trim().split('\n')[0] || `exit ${r.exitCode}`}`);
  }
}
