/**
 * Test support: runs the built `gatefs` binary as a user would (a child process, real argv)
 * and creates throwaway git repositories for it to work on.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Output } from '../../src/cli/output.js';

export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'dist/src/cli/main.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `gatefs <args>` in `cwd` and collects its output (times out after 60 s). */
export function gatefs(args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<RunResult> {
  return run(process.execPath, [BIN, ...args], options);
}

/** Runs `command <args>` in `cwd` (default: the checkout), `input` on its stdin, and collects its output (killed after 60 s: a hang detector). */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, GATEFS_DEBUG: '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs git in `cwd` and returns its stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

/** A temp git repository holding a copy of fixtures/sample-repo, committed. Returns its path and a cleanup. */
export function sampleRepo(): { dir: string; root: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'gatefs-test-'));
  const dir = join(root, 'repo');
  cpSync(join(ROOT, 'fixtures/sample-repo'), dir, { recursive: true });
  git(dir, 'init', '--quiet', '--initial-branch=main');
  git(dir, 'config', 'user.name', 'gatefs test');
  git(dir, 'config', 'user.email', 'test@gatefs.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', 'sample');
  return { dir, root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Runs `gatefs <args> --repo <repo>` in this process (`runCli` with the command table), as the
 * binary would but without a build: answers the exit code and what it printed (progress lines
 * prefixed `gatefs: ` on stderr, as the binary prints them).
 */
export async function gatefsInProcess(repo: string, args: readonly string[]): Promise<RunResult> {
  const [{ runCli }, { COMMANDS }] = await Promise.all([import('../../src/cli/run-cli.js'), import('../../src/cli/commands.js')]);
  let stdout = '';
  let stderr = '';
  const out: Output = {
    print: (text) => void (stdout += `${text}\n`),
    json: (value) => void (stdout += `${JSON.stringify(value)}\n`),
    jsonLine: (value) => void (stdout += `${JSON.stringify(value)}\n`),
    progress: (line) => void (stderr += `gatefs: ${line}\n`),
    problem: (text) => void (stderr += `${text}\n`),
  };
  const code = await runCli([...args, '--repo', repo], COMMANDS, out);
  return { code, stdout, stderr };
}
