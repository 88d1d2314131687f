/**
 * Which command lines `gatefs` answers `initialize` for before the CLI loads (`early-serve.ts`):
 * a plain stdio `serve` naming its conversation (or `auto`), and nothing else — another
 * command, `--help`, `--http`, an unknown flag or an invalid id are left to the CLI. What it
 * checks before answering (`checkCommandLine`), and an answer that waits for that check.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCommandLine, earlyServeConversation } from '../../src/cli/early-serve.js';
import { answerInitializeEarly } from '../../src/mcp/initialize/index.js';
import { sampleRepo } from './run-gatefs.js';

describe('earlyServeConversation', () => {
  it.each([
    [['serve', '--conversation', 'my-task'], 'my-task', {}],
    [['serve', '--repo', '/r', '--conversation', 'auto'], undefined, { repo: '/r' }],
    [
      ['--repo', '/r', 'serve', '--conversation', 'a_1', '--role', 'x', '--state-dir', '/s', '--manifest', '/m', '--json'],
      'a_1',
      { repo: '/r', role: 'x', stateDir: '/s', manifest: '/m' },
    ],
  ])('answers early for %j', (argv, conversation, args) => {
    expect(earlyServeConversation(argv)).toEqual({ conversation, profile: 'gatefs', args });
  });

  it('answers early with the tool profile a command line names, whose instructions the early answer carries', () => {
    expect(earlyServeConversation(['serve', '--profile', 'claude-code', '--conversation', 'auto'])).toEqual({
      conversation: undefined,
      profile: 'claude-code',
      args: {},
    });
  });

  it.each([
    [['serve']],
    [['serve', '--conversation', 'Bad/Id']],
    [['serve', '--conversation', 'x', '--http', '127.0.0.1:0']],
    [['serve', '--conversation', 'x', '--help']],
    [['serve', '--conversation', 'x', '--token-file', 'f']],
    [['serve', '--conversation']],
    [['status', '--conversation', 'x']],
    [['serve', '--conversation', 'x', 'extra']],
    [['serve', '--conversation', 'x', '--profile', 'cursor']],
  ])('leaves %j to the CLI', (argv) => {
    expect(earlyServeConversation(argv)).toBeNull();
  });
});

describe('checkCommandLine: what the early answer says before the CLI loads', () => {
  const root = mkdtempSync(join(tmpdir(), 'gatefs-early-check-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a missing folder, a literal ${workspaceFolder}, a file as the folder, a folder git does not know', async () => {
    expect((await checkCommandLine({ repo: join(root, 'nope') }))?.details).toEqual({
      cause: 'FOLDER_MISSING',
      folder: join(root, 'nope'),
    });
    expect((await checkCommandLine({ repo: '${workspaceFolder}/app' }))?.details).toMatchObject({
      cause: 'UNEXPANDED_VARIABLE',
      got: '${workspaceFolder}/app',
    });
    writeFileSync(join(root, 'file'), 'x');
    expect((await checkCommandLine({ repo: join(root, 'file') }))?.details.cause).toBe('NOT_A_FOLDER');
    const plain = join(root, 'plain');
    mkdirSync(plain);
    expect((await checkCommandLine({ repo: plain }))?.details).toEqual({
      cause: 'NOT_A_GIT_REPOSITORY',
      folder: plain,
      backend: 'worktree',
    });
  });

  it('a plain folder whose manifest gives the role backend copy is fine; a git repository is fine', async () => {
    const plain = join(root, 'copyable');
    mkdirSync(plain);
    writeFileSync(join(plain, 'gatefs.yaml'), 'roles:\n  - name: dev\n    tools: [read]\n    workspace:\n      backend: copy\n');
    expect(await checkCommandLine({ repo: plain })).toBeNull();
    const repo = sampleRepo();
    try {
      expect(await checkCommandLine({ repo: repo.dir })).toBeNull();
      expect(await checkCommandLine({ repo: join(repo.dir, 'src') })).toBeNull(); // inside a work tree: git finds it
    } finally {
      repo.cleanup();
    }
  });

  it('a manifest mistake: the file, its line, the key and the value it got', async () => {
    const repo = join(root, 'typo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeFileSync(join(repo, 'gatefs.yaml'), 'roles:\n  - name: dev\n    tools: [read]\n    workspace:\n      backend: worktre\n');
    const problem = await checkCommandLine({ repo });
    expect(problem?.summary).toBe(
      `${join(repo, 'gatefs.yaml')}:5: roles[0].workspace.backend: expected one of shared, worktree, copy, empty, got "worktre"`,
    );
    expect(problem?.details).toEqual({
      cause: 'INVALID_VALUE',
      file: join(repo, 'gatefs.yaml'),
      line: 5,
      keyPath: 'roles[0].workspace.backend',
      got: 'worktre',
    });
  });
});

describe('an early answer whose instructions are still being checked', () => {
  const initialize = `${JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  })}\n`;

  it('waits for them, then answers with them', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += d));
    let settle!: (text: string) => void;
    const instructions = new Promise<string>((r) => (settle = r));
    answerInitializeEarly({ stdin, stdout, server: { name: 'gatefs', version: '1', capabilities: {}, instructions } });
    stdin.write(initialize);
    await new Promise((r) => setImmediate(r));
    expect(out).toBe(''); // the line is read, the answer waits for the check
    settle('the cause');
    await new Promise((r) => setImmediate(r));
    expect(JSON.parse(out)).toMatchObject({ id: 7, result: { instructions: 'the cause' } });
  });

  it('handed over before they settle: the SDK answers it (the line is put back), the early reader never does', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += d));
    let settle!: (text: string) => void;
    const instructions = new Promise<string>((r) => (settle = r));
    const early = answerInitializeEarly({ stdin, stdout, server: { name: 'gatefs', version: '1', capabilities: {}, instructions } });
    stdin.write(initialize);
    await new Promise((r) => setImmediate(r));
    const { stream, answered } = early.handOver();
    expect(answered).toBeNull();
    settle('late');
    await new Promise((r) => setImmediate(r));
    expect(out).toBe('');
    expect(String(stream.read())).toBe(initialize);
  });
});
