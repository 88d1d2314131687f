/**
 * README.md's quick start, run as printed: its five commands, read from the README itself, each
 * through a `gatefs` found on PATH (the built binary, as `npm install -g` puts it there) in a
 * fresh repository with the default role (no gatefs.yaml), and the change they make is on the
 * repository's branch afterwards.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readmeSnippet } from './readme-snippets.js';
import { BIN, git, run, type RunResult } from './run-gatefs.js';

let repo: { dir: string; root: string; cleanup: () => void };
let bin: string;

beforeEach(() => {
  // A repository of the user's: one commit, no gatefs.yaml (the default role).
  const root = mkdtempSync(join(tmpdir(), 'gatefs-quick-start-'));
  const dir = join(root, 'repo');
  mkdirSync(dir);
  git(dir, 'init', '--quiet', '--initial-branch=main');
  git(dir, 'config', 'user.name', 'gatefs test');
  git(dir, 'config', 'user.email', 'test@gatefs.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(join(dir, 'README.md'), '# My project\n');
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', 'first');
  repo = { dir, root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
  bin = join(root, 'bin');
  mkdirSync(bin);
  const gatefs = join(bin, 'gatefs');
  writeFileSync(gatefs, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(gatefs, 0o755);
});
afterEach(() => repo.cleanup());

/** Runs one line of the snippet with sh in the repository, `gatefs` on PATH (60 s hang detector). */
function sh(line: string): Promise<RunResult> {
  return run('sh', ['-c', line], { cwd: repo.dir, env: { PATH: `${bin}:${process.env.PATH}` } });
}

it("the README's quick start lands its change on the repository's branch in five commands", async () => {
  const lines = readmeSnippet('quick-start')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  expect(lines).toHaveLength(5);
  const before = git(repo.dir, 'rev-parse', 'main').trim();
  for (const line of lines) {
    const r = await sh(line);
    expect({ line, code: r.code, stderr: r.stderr }).toEqual({ line, code: 0, stderr: expect.not.stringMatching(/error/i) });
  }
  // What the snippet wrote and the message it committed with, read from the snippet itself.
  const write = JSON.parse(/ write '(\{.*?\})'/.exec(lines.join('\n'))![1]!) as { path: string; content: string };
  const commit = JSON.parse(/ commit '(\{.*?\})'/.exec(lines.join('\n'))![1]!) as { message: string };
  expect(git(repo.dir, 'log', '-1', '--format=%s', 'main').trim()).toBe(commit.message);
  expect(git(repo.dir, 'rev-parse', 'main~1').trim()).toBe(before);
  expect(git(repo.dir, 'show', `main:${write.path}`)).toBe(write.content);
  expect(git(repo.dir, 'diff', '--name-only', before, 'main').trim()).toBe(write.path);
});
