/**
 * Where the served-stack setups (./served-stacks.ts) build their workspaces: a `ServedWorld`
 * is a fresh host platform — the real disk (`DiskPlatform`, host folders under a temp folder)
 * or memory (`MemoryPlatform`, one memfs volume) — with a repository folder holding the
 * fixture, the state directory inside it (the default layout) holding a sentinel, and an
 * outside sentinel tree for planted links. `PinnedCommits` are the commits the snapshots are
 * pinned to, read through the same object readers the hosts use (isomorphic-git over node:fs
 * or memfs).
 */
import * as fs from 'node:fs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Volume } from 'memfs';
import git, { type FsClient } from 'isomorphic-git';
import { CliLandingGit } from '../../src/git/cli-landing-git.js';
import { CliGit } from '../../src/git/cli-git.js';
import type { GitObjectReader } from '../../vfs/git-object-reader.js';
import { IsoObjectReader } from '../../src/git/iso-object-reader.js';
import { MemoryLandingGit } from '../../src/git/memory-landing-git.js';
import { MemoryGit } from '../../src/git/memory-git.js';
import { DiskPlatform } from '../../src/host/platform/disk-platform.js';
import { MemoryPlatform } from '../../src/host/memory/memory-platform.js';
import { writeFiles } from '../../src/host/memory/memory-repository.js';
import type { HostPlatform } from '../../src/host/platform/platform.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';
import { hasProcFd } from '../../vfs/host-walk.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { pinnedFiles } from './disclosure-stack.js';
import { FIXTURE_EMPTY_DIRS, FIXTURE_FILES, SENTINEL, fixtureRecord, hashLayer } from './fixture.js';
import { hashHostTree, hostFixture } from './host-fixture.js';
import type { SymlinkPlanter } from './layer-suite.js';
import { memorySymlinks } from './memory-symlinks.js';
import { makeTempRepo } from '../host/temp-repo.js';

/** One fresh platform to open workspace views on (see the file comment). */
export interface ServedWorld {
  platform: HostPlatform;
  /** The repository folder (fixture seeded, state directory `<repo>/.gatefs` inside it). */
  repo: string;
  stateDir: string;
  /** Creates the folder `path` (a platform path), seeded with the fixture when `seed`. */
  folder(path: string, seed: boolean): string;
  /** Plants links in `folder` to the outside sentinel tree (creating the link's parent folders). */
  symlinks(folder: string): SymlinkPlanter;
  /** Hash of everything in a folder (what a refused write must leave alone). */
  hash(folder: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** The pinned commits: the fixture; the fixture plus the hidden files; and that plus the fixture again under `mount/`. */
export interface PinnedCommits {
  objects: GitObjectReader;
  /** The repository holding them (disk only: where git checks a commit out from). */
  dir?: string;
  fixture: string;
  withHidden: string;
  withMount: string;
  cleanup(): void;
}

/** A disk world under a fresh temp folder. */
export function diskWorld(): ServedWorld {
  const fx = hostFixture();
  const repo = fx.folder('repo', true);
  const stateDir = plantState(join(repo, '.gatefs'));
  const git = new CliGit({ repo, exec: new NodeHostExec(), fs });
  const platform = new DiskPlatform(
    repo,
    stateDir,
    git,
    new CliLandingGit({ repo, exec: new NodeHostExec() }),
    hasProcFd() ? 'procfs' : 'lstat-fallback',
  );
  const links = (folder: string): SymlinkPlanter => {
    const plain = fx.symlinks(folder);
    const parents = (rel: string) => mkdirSync(dirname(join(folder, rel)), { recursive: true });
    return {
      ...plain,
      fileLink: async (rel) => (parents(rel), plain.fileLink(rel)),
      dirLink: async (rel) => (parents(rel), plain.dirLink(rel)),
      innerLink: async (rel, target) => (parents(rel), plain.innerLink(rel, target)),
    };
  };
  return {
    platform,
    repo,
    stateDir,
    folder: (path, seed) => fx.folder(path.slice(fx.base.length + 1), seed),
    symlinks: links,
    hash: async (folder) => hashHostTree(folder),
    cleanup: async () => fx.cleanup(),
  };
}

/** A memory world in a fresh memfs volume. */
export function memoryWorld(): ServedWorld {
  const volume = new Volume();
  const repo = '/repo';
  writeFiles(volume, repo, fixtureRecord());
  for (const d of FIXTURE_EMPTY_DIRS) volume.mkdirSync(`${repo}/${d}`, { recursive: true });
  const stateDir = `${repo}/.gatefs`;
  writeFiles(volume, `${stateDir}/worktrees/other`, { 'secret.txt': SENTINEL });
  volume.mkdirSync(`${stateDir}/copies`, { recursive: true });
  const platform = new MemoryPlatform(
    volume,
    repo,
    stateDir,
    new MemoryGit({ volume, dir: repo }),
    new MemoryLandingGit({ volume, dir: repo }),
  );
  const folder = (path: string, seed: boolean) => {
    volume.mkdirSync(path, { recursive: true });
    if (seed) {
      writeFiles(volume, path, fixtureRecord());
      for (const d of FIXTURE_EMPTY_DIRS) volume.mkdirSync(`${path}/${d}`, { recursive: true });
    }
    return path;
  };
  const links = (root: string): SymlinkPlanter => {
    const plain = memorySymlinks(volume, root);
    const parents = (rel: string) => volume.mkdirSync(`${root}/${rel}`.replace(/\/[^/]*$/, ''), { recursive: true });
    return {
      ...plain,
      fileLink: async (rel) => (parents(rel), plain.fileLink(rel)),
      dirLink: async (rel) => (parents(rel), plain.dirLink(rel)),
      innerLink: async (rel, target) => (parents(rel), plain.innerLink(rel, target)),
    };
  };
  return {
    platform,
    repo,
    stateDir,
    folder,
    symlinks: links,
    hash: (path) => hashLayer(new MemoryLayer({ volume, root: path })),
    cleanup: async () => {},
  };
}

/** The pinned commits in a real repository made by the git program. */
export function diskCommits(): PinnedCommits {
  const repo = makeTempRepo();
  const write = (files: Record<string, Uint8Array>, under = '') => {
    for (const [path, bytes] of Object.entries(files)) {
      const abs = join(repo.dir, under, path);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, bytes);
    }
  };
  write(fixtureRecord());
  const fixture = repo.commit('the fixture');
  write(pinnedFiles());
  const withHidden = repo.commit('the hidden files');
  write(fixtureRecord(), 'mount');
  const withMount = repo.commit('the fixture under mount/');
  const objects = new IsoObjectReader({ fs: fs as unknown as FsClient, gitdir: join(repo.dir, '.git') });
  return { objects, dir: repo.dir, fixture, withHidden, withMount, cleanup: () => repo.cleanup() };
}

/** The pinned commits in memory: one isomorphic-git repository in a memfs volume. */
export async function memoryCommits(): Promise<PinnedCommits> {
  const volume = new Volume();
  const client = volume as unknown as FsClient;
  const dir = '/pinned';
  const author = { name: 'gatefs', email: 'gatefs@memory.invalid', timestamp: 0, timezoneOffset: 0 };
  await git.init({ fs: client, dir, defaultBranch: 'main' });
  const commit = async (files: Record<string, Uint8Array>, message: string) => {
    writeFiles(volume, dir, files);
    for (const path of Object.keys(files).sort()) await git.add({ fs: client, dir, filepath: path });
    return git.commit({ fs: client, dir, message, author, committer: author });
  };
  const fixture = await commit(fixtureRecord(), 'the fixture');
  const withHidden = await commit(pinnedFiles(), 'the hidden files');
  const withMount = await commit(Object.fromEntries([...FIXTURE_FILES].map(([p, b]) => [`mount/${p}`, b])), 'the fixture under mount/');
  return { objects: new MemoryGit({ volume, dir }).objects, fixture, withHidden, withMount, cleanup: () => undefined };
}

/** Creates the state directory with another conversation's worktree holding a sentinel. */
function plantState(stateDir: string): string {
  mkdirSync(join(stateDir, 'worktrees/other'), { recursive: true });
  mkdirSync(join(stateDir, 'copies'), { recursive: true });
  writeFileSync(join(stateDir, 'worktrees/other/secret.txt'), SENTINEL);
  return stateDir;
}
