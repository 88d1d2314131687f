/**
 * Running a test's gatefs as an ordinary user (people run gatefs as one, not as root): give a
 * temp tree to a uid, and run a child process as that uid through `setpriv`.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Gives `dir` and everything in it to `uid` (its group too). */
export function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (lstatSync(p).isDirectory()) chownTree(p, uid);
    else chownSync(p, uid, uid);
  }
}

/** Runs `argv` as `uid` (setpriv), with HOME in `home`. */
export function runAs(uid: number, home: string, argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
