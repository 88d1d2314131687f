/**
 * Test support: runs a TypeScript test script of this folder (`apply-child.ts`,
 * `snapshot-child.ts`) in a real child process with one JSON argument, from the repository root
 * (test/run-typescript.ts), and collects how it ended and what it printed.
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUN_TYPESCRIPT } from '../run-typescript.js';

const here = dirname(fileURLToPath(import.meta.url));

/** How a child script ended: its exit code or the signal that ended it, and its output. */
export interface ChildScriptRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` (a file name in test/host/) with `input` as its JSON argument. */
export function runChildScript(script: string, input: object): Promise<ChildScriptRun> {
  const child = spawn(process.execPath, [...RUN_TYPESCRIPT, join(here, script), JSON.stringify(input)], {
    cwd: resolve(here, '../..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((res) => child.on('close', (code, signal) => res({ code, signal, stdout, stderr })));
}
