/**
 * A `gatefs serve` whose workspace cannot be prepared says why when the client connects, driven
 * by the official SDK client over stdio as Claude Code drives it: the initialize result's
 * instructions end with the cause (the folder, the manifest's file:line, the value it got), and
 * every tool call answers `WORKSPACE_NOT_READY` with the same text and `details`. The server
 * stays up, so the agent can read the cause, and a fix on disk needs no restart. `serve --http`
 * refuses to start on a missing folder. Also: `serve` on a terminal warns that it expects an MCP
 * client, the first Ctrl-C says a second one stops at once, and a second one does.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BIN, ROOT, gatefs, git, sampleRepo } from '../cli/run-gatefs.js';
import { callTool, httpClient, startHttpServer, stdioClient } from './mcp-client.js';

let root: string;
const open: Client[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'gatefs-connect-'));
});
afterAll(async () => {
  for (const c of open) await c.close();
  rmSync(root, { recursive: true, force: true });
});

async function connect(args: string[], cwd = root) {
  const c = await stdioClient(args, cwd);
  open.push(c.client);
  return { ...c, instructions: c.client.getInstructions() ?? '' };
}

/** A call's refusal: its code, message and details. */
async function refusal(client: Client) {
  const r = await callTool(client, 'read', { path: 'README.md' });
  expect(r.isError).toBe(true);
  const error = r.structured.error as { code: string; message: string; details: Record<string, unknown> };
  expect(r.text).toContain(error.message);
  return error;
}

describe('the cause is in the instructions at connect, and in every call', () => {
  it('a --repo folder that does not exist (no --conversation: the CLI answers initialize itself)', async () => {
    const missing = join(root, 'no-such-repo');
    const { client, instructions } = await connect(['--repo', missing]);
    expect(instructions).toContain(`This server cannot prepare its workspace: the repository folder ${missing} does not exist`);
    for (let i = 0; i < 2; i++) {
      const error = await refusal(client);
      expect(error.code).toBe('WORKSPACE_NOT_READY');
      expect(error.message).toContain(`the repository folder ${missing} does not exist`);
      expect(error.details).toEqual({ cause: 'FOLDER_MISSING', folder: missing });
    }
  });

  it('an unexpanded ${workspaceFolder} in --repo (answered early, before the CLI loads)', async () => {
    const { client, instructions } = await connect(['--repo', '${workspaceFolder}', '--conversation', 'auto']);
    expect(instructions).toContain('--repo is "${workspaceFolder}": ${workspaceFolder} is a variable the MCP client did not expand');
    const error = await refusal(client);
    expect(error.code).toBe('WORKSPACE_NOT_READY');
    expect(error.message).toContain('${workspaceFolder} is a variable the MCP client did not expand');
    expect(error.details).toEqual({
      cause: 'UNEXPANDED_VARIABLE',
      flag: '--repo',
      got: '${workspaceFolder}',
      folder: join(root, '${workspaceFolder}'),
    });
  });

  it('an unexpanded ${HOME} in --state-dir: said at connect and on every call, and no literal ${HOME} folder is made', async () => {
    const repo = sampleRepo();
    try {
      const { client, instructions } = await connect(['--repo', repo.dir, '--state-dir', '${HOME}/state', '--conversation', 'st'], root);
      expect(instructions).toContain('--state-dir is "${HOME}/state": ${HOME} is a variable the MCP client did not expand');
      const error = await refusal(client);
      expect(error.code).toBe('WORKSPACE_NOT_READY');
      expect(error.details).toEqual({ cause: 'UNEXPANDED_VARIABLE', flag: '--state-dir', got: '${HOME}/state' });
      expect(existsSync(join(root, '${HOME}'))).toBe(false);
    } finally {
      repo.cleanup();
    }
  });

  it('a folder that is not a git repository, for the default role (backend worktree)', async () => {
    const plain = join(root, 'plain');
    mkdirSync(plain);
    writeFileSync(join(plain, 'README.md'), 'plain\n');
    const { client, instructions, stderr } = await connect(['--repo', plain, '--conversation', 'plain']);
    expect(instructions).toContain(`the repository folder ${plain} is not a git repository`);
    expect(instructions).toContain('give the role backend: copy');
    const error = await refusal(client);
    expect(error.message).toContain(`the repository folder ${plain} is not a git repository (backend worktree)`);
    expect(error.details).toEqual({ cause: 'NOT_A_GIT_REPOSITORY', folder: plain, backend: 'worktree' });
    expect(stderr()).toContain('the workspace cannot be prepared');
  });

  it('backend: worktre in gatefs.yaml: file:line and the value it got; fixing the file serves the next call', async () => {
    const repo = sampleRepo();
    try {
      const manifest = join(repo.dir, 'gatefs.yaml');
      writeFileSync(manifest, 'roles:\n  - name: dev\n    tools: [read]\n    workspace:\n      backend: worktre\n');
      const { client, instructions } = await connect(['--conversation', 'typo'], repo.dir);
      expect(instructions).toContain(`${manifest}:5: roles[0].workspace.backend: expected one of`);
      expect(instructions).toContain('got "worktre"');
      await expect(client.listTools()).rejects.toThrow(/gatefs\.yaml:5: roles\[0\]\.workspace\.backend/);
      const error = await refusal(client);
      expect(error.message).toContain(`${manifest}:5: roles[0].workspace.backend`);
      expect(error.details).toEqual({
        cause: 'INVALID_VALUE',
        file: manifest,
        line: 5,
        keyPath: 'roles[0].workspace.backend',
        got: 'worktre',
      });
      // The agent tells the user; the user fixes the file; the next call opens and prepares.
      writeFileSync(manifest, 'roles:\n  - name: dev\n    tools: [read]\n    workspace:\n      backend: worktree\n');
      const r = await callTool(client, 'read', { path: 'README.md' });
      expect(r.isError).toBe(false);
      expect(r.structured.content).toContain('sample');
    } finally {
      repo.cleanup();
    }
  });

  it('a preparation that fails in the background (a repository without commits): no cause at connect, the call says it', async () => {
    const empty = join(root, 'empty');
    mkdirSync(empty);
    git(empty, 'init', '--quiet');
    const { client, instructions } = await connect(['--repo', empty, '--conversation', 'nocommit']);
    expect(instructions).not.toContain('cannot prepare');
    const error = await refusal(client);
    expect(error.code).toBe('WORKSPACE_NOT_READY');
    expect(error.message).toContain('(BAD_REF)');
    expect(error.message).toContain('needs a first commit');
    expect(error.details).toEqual({ cause: 'BAD_REF', folder: empty });
  });

  it('a good configuration: instructions without a cause, calls served', async () => {
    const repo = sampleRepo();
    try {
      const { client, instructions } = await connect(['--repo', repo.dir, '--conversation', 'fine']);
      expect(instructions).not.toContain('cannot prepare');
      expect((await callTool(client, 'read', { path: 'README.md' })).isError).toBe(false);
    } finally {
      repo.cleanup();
    }
  });
});

describe('serve --http', () => {
  it('refuses to start on a missing folder or an unexpanded variable, naming it (exit 2)', async () => {
    const missing = join(root, 'gone');
    const r = await gatefs(['serve', '--http', '127.0.0.1:0', '--no-token', '--repo', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the repository folder ${missing} does not exist`);
    const v = await gatefs(['serve', '--http', '127.0.0.1:0', '--no-token', '--repo', '${workspaceFolder}'], { cwd: root });
    expect(v.code).toBe(2);
    expect(v.stderr).toContain('${workspaceFolder} is a variable the MCP client did not expand');
  });

  it('--allow-new over a folder that is not a git repository: each call says why, with its facts and no host path', async () => {
    const plain = join(root, 'plain-http');
    mkdirSync(plain);
    const server = await startHttpServer(['--repo', plain, '--no-token', '--allow-new'], plain);
    try {
      const client = await httpClient(`${server.base}/mcp/web`);
      open.push(client);
      const error = await refusal(client);
      expect(error.code).toBe('WORKSPACE_NOT_READY');
      expect(error.message).toContain('could not be prepared (NOT_A_GIT_REPOSITORY) (backend worktree)');
      expect(error.details).toEqual({ cause: 'NOT_A_GIT_REPOSITORY', backend: 'worktree' });
      expect(JSON.stringify(error)).not.toContain(plain); // an HTTP client did not write the server's command line
    } finally {
      await server.stop();
    }
  });
});

/** Runs `command` (argv) on a pseudo-terminal through util-linux `script`; what the terminal shows and how to type. */
function onTerminal(argv: string[], cwd: string) {
  const quoted = argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  // `exec`: script(1) runs the command through $SHELL -c, or /bin/sh when SHELL is unset (as on CI);
  // dash then stays the terminal's foreground process, dies of the Ctrl-C itself, and script reports its 130.
  const child = spawn('script', ['-qefc', `exec ${quoted}`, '/dev/null'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let shown = '';
  child.stdout.on('data', (d) => (shown += d));
  child.stderr.on('data', (d) => (shown += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitFor = async (text: string) => {
    for (let i = 0; i < 1200 && !shown.includes(text); i++) await new Promise((r) => setTimeout(r, 50)); // hang detector: 60 s
    expect(shown).toContain(text);
  };
  return { child, shown: () => shown, exited, waitFor, type: (s: string) => child.stdin.write(s) };
}

const hasScript = (() => {
  try {
    return spawn('script', ['--version']).pid !== undefined;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasScript)('serve typed in a terminal (a pseudo-terminal made by script(1))', () => {
  it('warns that it expects an MCP client and how to try it, still serves; Ctrl-C says a second one stops at once', async () => {
    const repo = sampleRepo();
    try {
      const t = onTerminal([process.execPath, BIN, 'serve', '--repo', repo.dir, '--conversation', 'tty'], repo.dir);
      await t.waitFor('stdin is a terminal: gatefs serve expects an MCP client');
      expect(t.shown()).toContain('gatefs demo');
      expect(t.shown()).toContain('gatefs call my-task');
      await t.waitFor('workspace of "tty" ready'); // it serves anyway
      t.type('\x03'); // Ctrl-C: the terminal sends SIGINT
      await t.waitFor('SIGINT received: finishing the calls in flight and freeing the workspace; press Ctrl-C again to stop now');
      expect(await t.exited).toBe(0);
    } finally {
      repo.cleanup();
    }
  });
});

describe('a second Ctrl-C', () => {
  it('gatefs serve with a command in flight: the first SIGINT waits for it and says so, the second ends the server with 130', async () => {
    const repo = sampleRepo();
    try {
      writeFileSync(join(repo.dir, 'gatefs.yaml'), 'roles:\n  - name: dev\n    tools: [read, exec]\n');
      git(repo.dir, 'add', 'gatefs.yaml');
      git(repo.dir, 'commit', '--quiet', '-m', 'role with exec');
      const child = spawn(process.execPath, [BIN, 'serve', '--conversation', 'ctrlc'], { cwd: repo.dir, stdio: ['pipe', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.stdout.resume();
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      const send = (m: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
      send({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/call', params: { name: 'exec', arguments: { command: 'touch started; sleep 120' } } });
      const started = join(repo.dir, '.gatefs', 'worktrees', 'ctrlc', 'started');
      for (let i = 0; i < 1200 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 50)); // hang detector: 60 s
      expect(existsSync(started)).toBe(true); // the command runs: a call is in flight
      child.kill('SIGINT');
      for (let i = 0; i < 1200 && !err.includes('press Ctrl-C again'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(err).toContain('SIGINT received: finishing the calls in flight and freeing the workspace; press Ctrl-C again to stop now');
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(err).toContain('SIGINT again: exiting now, without waiting for the calls in flight');
    } finally {
      repo.cleanup();
    }
  });

  it('while the first stop waits, ends the process at once with 130 (128 + SIGINT)', async () => {
    // The stop watch of gatefs serve, built, in a process whose stop never finishes by itself
    // (as when a call in flight hangs).
    const script = `
      const { watchStopSignals } = await import(${JSON.stringify(join(ROOT, 'dist/src/cli/stop-signals.js'))});
      watchStopSignals((line) => process.stderr.write(line + '\\n'));
      process.stderr.write('watching\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const waitFor = async (text: string) => {
      for (let i = 0; i < 1200 && !err.includes(text); i++) await new Promise((r) => setTimeout(r, 50));
      expect(err).toContain(text);
    };
    await waitFor('watching');
    child.kill('SIGINT');
    await waitFor('press Ctrl-C again to stop now');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(err).toContain('SIGINT again: exiting now, without waiting for the calls in flight');
  });
});
