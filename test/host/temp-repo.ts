/**
 * Test support: real git repositories in temp folders, made with the git program (with a
 * repo-local identity, since CI may have none), and removed after the test.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempRepo {
  dir: string;
  git(...args: string[]): string;
  write(files: Record<string, string>): void;
  commit(message: string): string;
  cleanup(): void;
}

/** A fresh repository on branch `main` with `files` committed (when any). */
export function makeTempRepo(files: Record<string, string> = {}, parent = tmpdir()): TempRepo {
  const root = mkdtempSync(join(parent, 'gatefs-test-'));
  const dir = join(root, 'repo');
  mkdirSync(dir);
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  git('init', '--quiet', '--initial-branch=main');
  // One write instead of three `git config` processes: identity for CI without a global one.
  appendFileSync(
    join(dir, '.git/config'),
    '[user]\n\tname = gatefs test\n\temail = test@gatefs.invalid\n[commit]\n\tgpgsign = false\n[gc]\n\tauto = 0\n',
  );
  const write = (more: Record<string, string>) => {
    for (const [path, content] of Object.entries(more)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
  };
  const commit = (message: string) => {
    git('add', '-A');
    git('commit', '--quiet', '--allow-empty', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  if (Object.keys(files).length > 0) {
    write(files);
    commit('initial');
  }
  return { dir, git, write, commit, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
