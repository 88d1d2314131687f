/**
 * Builds the demo's sample repository: copies `fixtures/sample-repo` into a new folder, runs
 * `git init` and commits everything (through the host-exec port, argv only), with a local
 * committer identity so it works on a machine without a global git config.
 */
import { cpSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NodeHostExec } from '../ports/node-host-exec.js';

/** Where the sample repository's files live (source tree and `dist/` alike). */
export function sampleRepoFixture(): string {
  for (const rel of ['../../fixtures/sample-repo', '../../../fixtures/sample-repo']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  throw new Error('the sample repository fixture (fixtures/sample-repo) is missing from this install');
}

/** Copies the fixture into `dir` (which must not exist yet), makes it a git repo, commits. */
export async function buildSampleRepo(dir: string): Promise<void> {
  cpSync(sampleRepoFixture(), dir, { recursive: true, errorOnExist: true });
  const exec = new NodeHostExec({ defaultTimeoutMs: 30_000 });
  const steps = [
    ['git', 'init', '--quiet', '--initial-branch=main'],
    ['git', 'config', 'user.name', 'gatefs demo'],
    ['git', 'config', 'user.email', 'demo@gatefs.invalid'],
    ['git', 'config', 'commit.gpgsign', 'false'],
    ['git', 'add', '--all'],
    ['git', 'commit', '--quiet', '-m', 'Sample project'],
  ];
  for (const argv of steps) {
    const r = await exec.run({ argv, cwd: dir, tag: 'demo', chain: [] });
    if (r.exitCode !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr.trim().split('\n')[0] || `exit ${r.exitCode}`}`);
  }
}
