/**
 * The git contract's world in memory: the memory host's repository (`seedMemoryRepository` at
 * `/repo` of a memfs volume), `MemoryGit` and `MemoryLandingGit` over it, remotes as the memory
 * host makes them (`/remotes/<name>.git`, a refused push through their test seam).
 */
import git, { type FsClient } from 'isomorphic-git';
import { Volume } from 'memfs';
import { MemoryGit } from '../../../src/git/memory-git.js';
import { MemoryLandingGit } from '../../../src/git/memory-landing-git.js';
import { readRefSync } from '../../../src/git/memory-refs.js';
import { createMemoryRemote, memoryRemoteDir, rejectNextPushes } from '../../../src/git/memory-remote.js';
import { removeEntry } from '../../../src/git/memory-worktree.js';
import { seedMemoryRepository } from '../../../src/host/memory/memory-repository.js';
import { ManualClock } from '../../../src/ports/clock.js';
import { T0, type Files, type GitWorld, type WorldFiles } from './world.js';

type Vol = InstanceType<typeof Volume>;

/** The files of a memfs volume. */
function volumeFiles(volume: Vol): WorldFiles {
  const parent = (path: string) => path.slice(0, path.lastIndexOf('/')) || '/';
  const exists = (path: string) => {
    try {
      volume.lstatSync(path);
      return true;
    } catch {
      return false;
    }
  };
  return {
    write(path, content) {
      volume.mkdirSync(parent(path), { recursive: true });
      removeEntry(volume, path);
      volume.writeFileSync(path, content);
    },
    read: (path) => String(volume.readFileSync(path, 'utf8')),
    exists,
    remove: (path) => removeEntry(volume, path),
    mkdir: (path) => volume.mkdirSync(path, { recursive: true }),
    symlink: (target, path) => volume.symlinkSync(target, path),
    chmod: (path, mode) => volume.chmodSync(path, mode),
    snapshot(dir) {
      const out: Record<string, string> = {};
      const walk = (rel: string) => {
        const abs = rel === '' ? dir : `${dir}/${rel}`;
        const st = volume.lstatSync(abs);
        if (st.isSymbolicLink()) out[rel] = `-> ${String(volume.readlinkSync(abs))}`;
        else if (st.isDirectory()) {
          for (const name of (volume.readdirSync(abs) as unknown[]).map(String).sort())
            if (!(rel === '' && name === '.git')) walk(rel === '' ? name : `${rel}/${name}`);
          if (rel !== '') out[`${rel}/`] = 'dir';
        } else out[rel] = String(volume.readFileSync(abs, 'utf8'));
      };
      walk('');
      return out;
    },
  };
}

/** A world in a memfs volume (see the file comment). */
export async function memoryWorld(files: Files | null): Promise<GitWorld> {
  const volume = new Volume();
  const fs = volume as unknown as FsClient;
  const repo = '/repo';
  if (files) await seedMemoryRepository({ volume, dir: repo, files, clock: new ManualClock(T0) });
  else {
    volume.mkdirSync(repo, { recursive: true });
    await git.init({ fs, dir: repo, defaultBranch: 'main' });
  }
  const remoteDir = (name: string) => memoryRemoteDir(name) ?? `/not-a-remote/${name}`;
  return {
    repo,
    git: new MemoryGit({ volume, dir: repo }),
    landing: new MemoryLandingGit({ volume, dir: repo }),
    files: volumeFiles(volume),
    place: (name) => `/places/${name}`,
    breakRepository: () => volume.unlinkSync(`${repo}/.git/HEAD`),
    async commitGitlink(name, target) {
      const gitdir = `${repo}/.git`;
      const head = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
      const { commit } = await git.readCommit({ fs, gitdir, oid: head });
      const { tree } = await git.readTree({ fs, gitdir, oid: commit.tree });
      const withLink = await git.writeTree({ fs, gitdir, tree: [...tree, { mode: '160000', path: name, oid: target, type: 'commit' }] });
      const author = { name: 'gatefs', email: 'gatefs@memory.invalid', timestamp: T0 / 1000, timezoneOffset: 0 };
      return git.writeCommit({ fs, gitdir, commit: { message: 'gitlink\n', tree: withLink, parent: [head], author, committer: author } });
    },
    async commitText(sha) {
      const { object } = await git.readObject({ fs, gitdir: `${repo}/.git`, oid: sha, format: 'content' });
      return Buffer.from(object as Uint8Array).toString('utf8');
    },
    createRemote: async (name) => void (await createMemoryRemote(volume, name)),
    refuseNextPush: (name) => rejectNextPushes(volume, name, 1),
    remoteBranch: async (name, branch) => readRefSync(volume, remoteDir(name), `refs/heads/${branch}`),
    cleanup: () => undefined,
  };
}
