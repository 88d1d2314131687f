/**
 * Test support: runs `host-child.ts` in a real child process, from its TypeScript source
 * (test/run-typescript.ts: the child and its worker threads run the sources under test).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUN_TYPESCRIPT } from '../run-typescript.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const script = join(here, 'host-child.ts');

export interface ChildRun {
  child: ChildProcess;
  /** Resolves with the parsed output lines and the exit code when the child ends. */
  done: Promise<{ lines: { op: string; out?: unknown; error?: string }[]; code: number | null; signal: string | null; stderr: string }>;
  /** Resolves once the child printed a line for step `op` (rejects when it exits first). */
  reached(op: string): Promise<void>;
}

/** Starts the child host in its own process group (so a test can kill the group). */
export async function runChild(input: object, env: NodeJS.ProcessEnv = process.env): Promise<ChildRun> {
  const child = spawn(process.execPath, [...RUN_TYPESCRIPT, script, JSON.stringify(input)], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { op: string; resolve: () => void }[] = [];
  const seen = (op: string) => stdout.split('\n').some((l) => l.startsWith(`{"op":"${op}"`));
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
    for (const w of waiters.splice(0))
      if (seen(w.op)) w.resolve();
      else waiters.push(w);
  });
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Awaited<ChildRun['done']>>((res) => {
    child.on('close', (code, signal) => {
      const lines = stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { op: string; out?: unknown; error?: string });
      res({ lines, code, signal, stderr });
    });
  });
  const reached = (op: string) =>
    new Promise<void>((resolve, reject) => {
      if (seen(op)) return resolve();
      waiters.push({ op, resolve });
      child.once('close', () => (seen(op) ? resolve() : reject(new Error(`the child ended before ${op}: ${stderr}`))));
    });
  return { child, done, reached };
}
