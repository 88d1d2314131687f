/**
 * `NodeHostExec`: the real host-exec port. Spawns the program with an argv array (no shell),
 * kills it with SIGKILL after `timeoutMs` or when the request's `signal` aborts, and keeps at most `maxOutputBytes` of each stream
 * (the head, or the tail when the request says `keep: 'tail'`).
 *
 * This is one of the few files allowed to touch `child_process` and `process.env` (docs/ARCHITECTURE.md
 * § Ports and determinism).
 * Limits: without `processGroup` a killed program's own children are not killed; with it, the
 * whole group is killed, but a descendant that left the group (`setsid`) survives, and if it
 * still holds the output pipes the result is returned `GROUP_GRACE_MS` after the kill with
 * whatever output had arrived. The environment is the host's, with the request's variables
 * merged over it.
 */
import { spawn } from 'node:child_process';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import { HostExecError, type ExecRequest, type ExecResult, type HostExec } from './host-exec.js';
import { foreignCodeOf } from '../../vfs/index.js';
import { HeadBuffer, TailBuffer, type CappedOutput } from './capped-output.js';

/** How long a killed process group may keep the output pipes open before the result is returned anyway. */
const GROUP_GRACE_MS = 2000;

interface NodeHostExecOptions {
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
    const group = request.processGroup === true;
    return new Promise<ExecResult>((resolve, reject) => {
      const child = spawn(argv[0], argv.slice(1), {
        cwd: request.cwd,
        env: request.env ? { ...process.env, ...request.env } : process.env,
        shell: false,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
        detached: group,
      });
      const cap = Math.min(this.maxOutputBytes, request.maxOutputBytes ?? this.maxOutputBytes);
      const collector = (): CappedOutput => (request.keep === 'tail' ? new TailBuffer(cap) : new HeadBuffer(cap));
      const out = collector();
      const err = collector();
      let timedOut = false;
      let spawnError: Error | undefined;
      let grace: NodeJS.Timeout | undefined;
      /** SIGKILLs the child's whole group, then stops waiting for the pipes after a grace period. */
      const killGroup = () => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* ESRCH: the group is already gone */
        }
        grace ??= setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, GROUP_GRACE_MS);
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              if (group && child.pid !== undefined) killGroup();
              else child.kill('SIGKILL');
            }, timeoutMs);
      if (group) child.on('exit', () => child.pid !== undefined && killGroup());
      const abort = () => {
        if (group && child.pid !== undefined) killGroup();
        else child.kill('SIGKILL');
      };
      if (request.signal?.aborted) abort();
      else request.signal?.addEventListener('abort', abort, { once: true });
      child.stdout.on('data', (chunk: Buffer) => (request.onStdout ? request.onStdout(chunk) : out.push(chunk)));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', (e) => {
        spawnError = e;
        if (child.pid === undefined) {
          if (timer) clearTimeout(timer);
          request.signal?.removeEventListener('abort', abort);
          reject(new HostExecError('SPAWN_FAILED', argv, foreignCodeOf(e) ?? 'spawn error', { cause: e }));
        }
      });
      child.stdin.on('error', () => {
        /* the program exited before reading its input: its exit status tells the story */
      });
      const input = request.input;
      if (input === undefined) child.stdin.end();
      else if (typeof input === 'string' || input instanceof Uint8Array) child.stdin.end(input);
      else void feed(input, child.stdin).then((threw) => threw && abort());
      child.on('close', (code, signal) => {
        if (timer) clearTimeout(timer);
        request.signal?.removeEventListener('abort', abort);
        if (grace) clearTimeout(grace);
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

/**
 * Writes `source`'s chunks to `sink` with backpressure and closes it. Result: true when the source
 * threw (a pipe closed by the program is its exit status's story, not a source failure).
 */
async function feed(source: AsyncIterable<Uint8Array>, sink: Writable): Promise<boolean> {
  let threw = false;
  async function* guarded(): AsyncGenerator<Uint8Array> {
    try {
      yield* source;
    } catch {
      threw = true;
    }
    if (threw) throw new Error('input source failed');
  }
  await pipeline(Readable.from(guarded(), { objectMode: false }), sink).catch(() => undefined);
  return threw;
}
