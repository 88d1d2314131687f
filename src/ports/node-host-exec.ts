/**
 * `NodeHostExec`: the real host-exec port. Spawns the program with an argv array (no shell),
 * kills it with SIGKILL after `timeoutMs`, and keeps at most `maxOutputBytes` of each stream.
 *
 * This is one of the few files allowed to touch `child_process` and `process.env` (STYLE.md 4).
 * Limits: a killed program's own children are not killed (no process groups), and the
 * environment is the host's, with the request's variables merged over it.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { HostExecError, type ExecRequest, type ExecResult, type HostExec } from './host-exec.js';
import { foreignCodeOf } from '../../vfs/coded-error.js';

export interface NodeHostExecOptions {
  /** Bytes kept of each of stdout and stderr (default 16 MiB); the rest is dropped. */
  maxOutputBytes?: number;
  /** Timeout used when a request gives none (default: none). */
  defaultTimeoutMs?: number;
}

/** The real host-exec port (see the file comment): argv spawn, SIGKILL on timeout, capped output. */
export class NodeHostExec implements HostExec {
  private readonly maxOutputBytes: number;
  private readonly defaultTimeoutMs?: number;

  constructor(options: NodeHostExecOptions = {}) {
    this.maxOutputBytes = options.maxOutputBytes ?? 16 * 1024 * 1024;
    this.defaultTimeoutMs = options.defaultTimeoutMs;
  }

  run(request: ExecRequest): Promise<ExecResult> {
    const { argv } = request;
    if (argv.length === 0) return Promise.reject(new HostExecError('SPAWN_FAILED', argv, 'empty argv'));
    const started = performance.now();
    const timeoutMs = request.timeoutMs ?? this.defaultTimeoutMs;
    return new Promise<ExecResult>((resolve, reject) => {
      const child = spawn(argv[0], argv.slice(1), {
        cwd: request.cwd,
        env: request.env ? { ...process.env, ...request.env } : process.env,
        shell: false,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
      const out = new CappedBuffer(this.maxOutputBytes);
      const err = new CappedBuffer(this.maxOutputBytes);
      let timedOut = false;
      let spawnError: Error | undefined;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              child.kill('SIGKILL');
            }, timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', (e) => {
        spawnError = e;
        if (child.pid === undefined) {
          if (timer) clearTimeout(timer);
          reject(new HostExecError('SPAWN_FAILED', argv, foreignCodeOf(e) ?? 'spawn error', { cause: e }));
        }
      });
      child.stdin.on('error', () => {
        /* the program exited before reading its input: its exit status tells the story */
      });
      if (request.input !== undefined) child.stdin.end(request.input);
      else child.stdin.end();
      child.on('close', (code, signal) => {
        if (timer) clearTimeout(timer);
        if (spawnError && child.pid === undefined) return;
        resolve({
          exitCode: code,
          signal,
          stdout: out.text(),
          stderr: err.text(),
          timedOut,
          durationMs: performance.now() - started,
          outputTruncated: out.truncated || err.truncated,
        });
      });
    });
  }
}

/** Collects a stream's bytes up to a cap and remembers whether anything was dropped. */
class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks, this.size).toString('utf8');
  }
}
