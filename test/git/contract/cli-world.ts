/**
 * The git contract's world on the git program: a repository in a temp folder, `CliGit` and
 * `CliLandingGit` over it through the real host-exec port, remotes as bare repositories beside
 * it (a refused push is a pre-receive hook that refuses once).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliGit } from '../../../src/git/cli-git.js';
import { CliLandingGit } from '../../../src/git/cli-landing-git.js';
import { NodeHostExec } from '../../../src/ports/node-host-exec.js';
import { T0, type Files, type GitWorld, type WorldFiles } from './world.js';

/** The seed commit's identity and time, as the memory host makes it (src/host/memory-repository.ts). */
const SEED_ENV = {
  GIT_AUTHOR_NAME: 'gatefs',
  GIT_AUTHOR_EMAIL: 'gatefs@memory.invalid',
  GIT_AUTHOR_DATE: `@${T0 / 1000} +0000`,
  GIT_COMMITTER_NAME: 'gatefs',
  GIT_COMMITTER_EMAIL: 'gatefs@memory.invalid',
  GIT_COMMITTER_DATE: `@${T0 / 1000} +0000`,
};

/** `git <args>` in `cwd`, its trimmed output. */
function run(cwd: string, ...args: string[]): string {
  return runWith(cwd, {}, ...args);
}

/** `git <args>` in `cwd` with `env` added, its trimmed output. */
function runWith(cwd: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync('git', ['-c', 'commit.gpgsign=false', '-c', 'gc.auto=0', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...SEED_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** The files of a folder on disk through node:fs. */
export const diskFiles: WorldFiles = {
  write(path, content) {
    fs.mkdirSync(dirname(path), { recursive: true });
    fs.rmSync(path, { force: true });
    fs.writeFileSync(path, content);
  },
  read: (path) => fs.readFileSync(path, 'utf8'),
  exists: (path) => fs.lstatSync(path, { throwIfNoEntry: false }) !== undefined,
  remove: (path) => fs.rmSync(path, { recursive: true, force: true }),
  mkdir: (path) => fs.mkdirSync(path, { recursive: true }),
  symlink: (target, path) => fs.symlinkSync(target, path),
  chmod: (path, mode) => fs.chmodSync(path, mode),
  snapshot(dir) {
    const out: Record<string, string> = {};
    const walk = (rel: string) => {
      const abs = rel === '' ? dir : join(dir, rel);
      const st = fs.lstatSync(abs);
      if (st.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        for (const name of fs.readdirSync(abs).sort()) if (!(rel === '' && name === '.git')) walk(rel === '' ? name : `${rel}/${name}`);
        if (rel !== '') out[`${rel}/`] = 'dir';
      } else out[rel] = fs.readFileSync(abs, 'utf8');
    };
    walk('');
    return out;
  },
};

/** A world on the git program (see the file comment). */
export async function cliWorld(files: Files | null): Promise<GitWorld> {
  const root = fs.mkdtempSync(join(tmpdir(), 'gatefs-contract-'));
  const repo = join(root, 'repo');
  fs.mkdirSync(repo);
  run(repo, 'init', '--quiet', '--initial-branch=main');
  if (files) {
    for (const [path, content] of Object.entries(files)) diskFiles.write(join(repo, path), content);
    run(repo, 'add', '-A');
    run(repo, 'commit', '--quiet', '--allow-empty', '--no-verify', '-m', 'initial');
  }
  const exec = new NodeHostExec();
  const git = new CliGit({ repo, exec, fs });
  await git.isRepository({ tag: 'setup', chain: [] });
  const remoteDir = (name: string) => join(root, 'remotes', `${name}.git`);
  return {
    repo,
    git,
    landing: new CliLandingGit({ repo, exec }),
    files: diskFiles,
    place: (name) => join(root, 'places', name),
    breakRepository: () => fs.rmSync(join(repo, '.git/HEAD')),
    async commitGitlink(name, target) {
      const index = { GIT_INDEX_FILE: join(root, 'gitlink-index') };
      runWith(repo, index, 'read-tree', 'HEAD');
      runWith(repo, index, 'update-index', '--add', '--cacheinfo', `160000,${target},${name}`);
      return run(repo, 'commit-tree', runWith(repo, index, 'write-tree'), '-p', 'HEAD', '-m', 'gitlink');
    },
    commitText: async (sha) => `${run(repo, 'cat-file', 'commit', sha)}\n`,
    async createRemote(name) {
      fs.mkdirSync(remoteDir(name), { recursive: true });
      run(remoteDir(name), 'init', '--bare', '--quiet', '--initial-branch=main');
      run(repo, 'remote', 'add', name, remoteDir(name));
    },
    refuseNextPush(name) {
      const hook = join(remoteDir(name), 'hooks/pre-receive');
      fs.mkdirSync(dirname(hook), { recursive: true });
      fs.writeFileSync(hook, '#!/bin/sh\nrm -f "$0"\necho "the remote refuses this push" >&2\nexit 1\n', { mode: 0o755 });
    },
    async remoteBranch(name, branch) {
      const r = spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: remoteDir(name), encoding: 'utf8' });
      if (r.status === 1) return null;
      if (r.status !== 0) throw new Error(`git rev-parse in remote ${name}: ${r.stderr}`);
      return r.stdout.trim();
    },
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
