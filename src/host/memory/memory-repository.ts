/**
 * `seedMemoryRepository`: writes `files` into a memfs folder and, unless told otherwise,
 * makes it a git repository on branch `main` with one commit of every file. The commit's
 * author time comes from the clock, so the same files and clock give the same SHA every time.
 */
import git, { type FsClient } from 'isomorphic-git';
import type { Volume } from 'memfs';
import type { Clock } from '../../ports/index.js';

type Vol = InstanceType<typeof Volume>;

interface SeedOptions {
  volume: Vol;
  dir: string;
  files: Readonly<Record<string, string | Uint8Array>>;
  clock: Clock;
  /** Make it a git repository with one commit (default true). */
  git?: boolean;
}

/** Writes the files; returns the commit SHA, or null for a plain folder. */
export async function seedMemoryRepository(options: SeedOptions): Promise<string | null> {
  const { volume, dir } = options;
  writeFiles(volume, dir, options.files);
  if (options.git === false) return null;
  const fs = volume as unknown as FsClient;
  await git.init({ fs, dir, defaultBranch: 'main' });
  for (const path of Object.keys(options.files).sort()) await git.add({ fs, dir, filepath: path });
  const seconds = Math.floor(options.clock.now() / 1000);
  const author = { name: 'gatefs', email: 'gatefs@memory.invalid', timestamp: seconds, timezoneOffset: 0 };
  return git.commit({ fs, dir, message: 'initial', author, committer: author });
}

/** Writes `files` (folder-relative paths) under `dir`, creating folders as needed. */
export function writeFiles(volume: Vol, dir: string, files: Readonly<Record<string, string | Uint8Array>>): void {
  volume.mkdirSync(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    const abs = `${dir}/${path}`;
    volume.mkdirSync(abs.slice(0, abs.lastIndexOf('/')), { recursive: true });
    volume.writeFileSync(abs, content);
  }
}
