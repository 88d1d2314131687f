/**
 * `gatefs serve --profile claude-code` with a role that declares commands, driven by the official
 * SDK client over stdio as Claude Code would drive it (the client also checks each
 * `structuredContent` against the tool's output schema), over a real repository and the real
 * bubblewrap sandbox: Bash runs in the workspace at its namespace path, what it writes the file
 * tools read, a background shell is read with BashOutput and ended with KillShell, a timeout ends
 * the command and the server keeps serving, and nothing of the host outside the namespace is
 * readable or changed from inside a command. Skipped, with the probe's reason, where no sandbox
 * can run. The answers' shapes in every case: claude-code-bash.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { sampleRepo } from '../cli/run-gatefs.js';
import { callTool, stdioClient } from './mcp-client.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping Bash over MCP with a real sandbox: ${support.cause}; ${support.fix}`);

const SENTINEL = 'outside-sentinel-5c1e';
const ROOT = '/worktrees/cc';
const MANIFEST = [
  'roles:',
  '  - name: agent',
  '    tools: [read, write, list, exec, exec_output, exec_kill]',
  '    exec: { timeout: 30 }',
  '',
].join('\n');

let repo: ReturnType<typeof sampleRepo>;
let client: Client;
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  if (!support.available) return;
  repo = sampleRepo();
  writeFileSync(join(repo.root, 'secret.txt'), `${SENTINEL}\n`);
  const manifest = join(repo.root, 'gatefs-agent.yaml');
  writeFileSync(manifest, MANIFEST);
  ({ client } = await stdioClient(
    ['--repo', repo.dir, '--manifest', manifest, '--conversation', 'cc', '--profile', 'claude-code'],
    repo.root,
  ));
});

afterAll(async () => {
  await client?.close();
  repo?.cleanup();
});

describe.skipIf(!support.available)('Bash, BashOutput and KillShell over MCP with a real sandbox', () => {
  it("lists them with Claude Code's argument names", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['Read', 'Write', 'Glob', 'LS', 'Bash', 'BashOutput', 'KillShell']);
    const bash = tools.find((t) => t.name === 'Bash')!;
    expect(Object.keys(bash.inputSchema.properties ?? {})).toEqual(['command', 'timeout', 'description', 'run_in_background']);
  });

  it('runs in the workspace at its namespace path; what it writes, Read reads, and the answer names it', async () => {
    const r = await callTool(client, 'Bash', {
      command: 'pwd; mkdir -p notes && echo from-bash > notes/out.txt; echo done >&2',
      description: 'Write a note',
    });
    expect(r.isError).toBe(false);
    expect(r.text).toBe(`${ROOT}\ndone\nFiles changed (1):\nA ${ROOT}/notes/out.txt`);
    expect(r.structured).toMatchObject({ stdout: `${ROOT}\n`, exitCode: 0, changed: [{ path: `${ROOT}/notes/out.txt`, status: 'added' }] });
    const read = await callTool(client, 'Read', { file_path: `${ROOT}/notes/out.txt` });
    expect(read.text).toContain('from-bash');
    expect(readFileSync(join(repo.dir, '.gatefs/worktrees/cc/notes/out.txt'), 'utf8')).toBe('from-bash\n');
  });

  it('answers a failing command with its exit code', async () => {
    const r = await callTool(client, 'Bash', { command: 'echo nope >&2; exit 3' });
    expect(r.isError).toBe(false);
    expect(r.text).toBe('nope\nExit code 3');
    expect(r.structured.exitCode).toBe(3);
  });

  it('reads nothing of the host outside the namespace and changes nothing there; the workspace is never named by its host path', async () => {
    const before = sha(readFileSync(join(repo.root, 'secret.txt')));
    const r = await callTool(client, 'Bash', {
      command: [
        `cat ${join(repo.root, 'secret.txt')} 2>&1`,
        `echo x > ${join(repo.root, 'secret.txt')} 2>&1`,
        'ls -a /worktrees',
        'ls -a',
        `ls ${repo.dir} 2>&1`,
        'cat .git 2>&1 | wc -c',
        'env | sort',
      ].join('; '),
    });
    const all = `${r.text}${JSON.stringify(r.structured)}`;
    expect(all).not.toContain(SENTINEL);
    expect(r.structured.stderr).toContain('Directory nonexistent'); // the host's temp folder is not there
    expect(all).not.toContain(join(repo.dir, '.gatefs')); // the workspace's host folder is named nowhere
    expect(r.structured.stdout).toMatch(/^\.\n\.\.\ncc\n/m);
    expect(r.structured.stdout).not.toContain('.gatefs');
    expect(r.structured.stdout).toMatch(/^HOME=\/tmp\/home$/m);
    expect(sha(readFileSync(join(repo.root, 'secret.txt')))).toBe(before);
  });

  it('a background shell: its ID at once, BashOutput its new output and status, KillShell ends it', async () => {
    const started = await callTool(client, 'Bash', { command: 'echo first; sleep 60; echo never', run_in_background: true });
    const id = started.structured.backgroundTaskId as string;
    expect(started.text).toBe(`Command running in background with ID: ${id}`);
    let out = await callTool(client, 'BashOutput', { bash_id: id });
    for (let i = 0; i < 100 && out.structured.stdout === ''; i++) {
      await new Promise((r) => setTimeout(r, 100));
      out = await callTool(client, 'BashOutput', { bash_id: id });
    }
    expect(out.structured).toMatchObject({ shellId: id, status: 'running', stdout: 'first\n' });
    expect(out.text).toBe('<status>running</status>\n\n<stdout>\nfirst\n</stdout>');
    const killed = await callTool(client, 'KillShell', { shell_id: id });
    expect(killed.text).toBe(`Successfully killed shell: ${id}`);
    expect((await callTool(client, 'BashOutput', { bash_id: id })).structured).toMatchObject({ status: 'killed', exitCode: null });
  });

  it('a command past its timeout is ended with everything it started, and the server keeps serving', async () => {
    const started = performance.now();
    const r = await callTool(client, 'Bash', { command: '(sleep 30 &) ; sleep 30', timeout: 500 });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(r.structured).toMatchObject({ interrupted: true, timedOut: true, exitCode: null });
    expect(r.text).toMatch(/^Command timed out after \d+ ms: it was ended with every process it started$/);
    const next = await callTool(client, 'Bash', { command: 'echo still-serving' });
    expect(next.structured.stdout).toBe('still-serving\n');
  });
});
