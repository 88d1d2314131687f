/**
 * `gatefs serve` over stdio, driven by the official MCP SDK client against a real git repo:
 * the tool list and its schemas, every tool's happy path, error codes, and the main checkout
 * left untouched.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BIN, gatefs, git, sampleRepo } from '../cli/run-gatefs.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_BYTES } from '../../src/mcp/message-limits/message-limit.js';
import { callTool, stdioClient } from './mcp-client.js';

let repo: ReturnType<typeof sampleRepo>;
let client: Client;
let stderr: () => string;
const original = (p: string) => readFileSync(join(repo.dir, p), 'utf8');

beforeAll(async () => {
  repo = sampleRepo();
  ({ client, stderr } = await stdioClient(['--repo', repo.dir, '--conversation', 'alpha'], repo.root));
});

afterAll(async () => {
  await client?.close();
  repo?.cleanup();
});

describe('tools/list', () => {
  it("offers exactly the role's tools, with valid input and output schemas and read-only hints", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['edit', 'grep', 'list', 'read', 'write']);
    const ajv = new Ajv({ strict: false });
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.description?.length).toBeGreaterThan(20);
      ajv.compile(t.inputSchema);
      ajv.compile(t.outputSchema!);
      expect(t.annotations?.readOnlyHint === true).toBe(['read', 'grep', 'list'].includes(t.name));
    }
    const read = ajv.compile(tools.find((t) => t.name === 'read')!.inputSchema);
    expect(read({ path: 'README.md' })).toBe(true);
    expect(read({ path: 42 })).toBe(false);
  });

  it('logs the conversation on stderr', () => {
    expect(stderr()).toContain('serving conversation "alpha"');
  });
});

describe('happy paths', () => {
  it('read returns the file with its sha256', async () => {
    const r = await callTool(client, 'read', { path: 'README.md' });
    expect(r.isError).toBe(false);
    const bytes = readFileSync(join(repo.dir, 'README.md'));
    expect(r.structured).toMatchObject({ path: 'README.md', content: bytes.toString('utf8'), startLine: 1, truncated: false });
    expect(r.structured.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(r.text).toContain('# greeter');
  });

  it('list with a pattern finds the sources', async () => {
    const r = await callTool(client, 'list', { pattern: '**/*.js' });
    expect(r.isError).toBe(false);
    const paths = r.structured.entries.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['src/greeting.js', 'src/math.js', 'src/secret-config.js']);
    expect(r.text).toContain('src/math.js');
  });

  it('grep finds a symbol', async () => {
    const r = await callTool(client, 'grep', { pattern: 'export function add', output: 'content' });
    expect(r.isError).toBe(false);
    expect(r.structured.matches).toEqual([expect.objectContaining({ path: 'src/math.js', line: 2 })]);
  });

  it('write creates a file that read then returns; the main checkout does not get it', async () => {
    const w = await callTool(client, 'write', { path: 'notes/todo.md', content: 'ship it\n', expectedSha256: null });
    expect(w.isError).toBe(false);
    expect(w.structured).toMatchObject({ path: 'notes/todo.md', bytes: 8, created: true });
    const r = await callTool(client, 'read', { path: 'notes/todo.md' });
    expect(r.structured.content).toBe('ship it\n');
    expect(existsSync(join(repo.dir, 'notes/todo.md'))).toBe(false);
  });

  it('edit replaces text in the workspace only', async () => {
    const before = original('src/greeting.js');
    const e = await callTool(client, 'edit', { path: 'src/greeting.js', oldString: 'Hello', newString: 'Howdy' });
    expect(e.isError).toBe(false);
    expect(e.structured.replacements).toBe(1);
    expect((await callTool(client, 'read', { path: 'src/greeting.js' })).structured.content).toContain('Howdy');
    expect(original('src/greeting.js')).toBe(before);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  });
});

describe('errors carry isError and the stable code in structure and text', () => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    ['a path escape', 'read', { path: '../../etc/passwd' }, 'PATH_ESCAPE'],
    ['a host path', 'read', { path: '/etc/hostname' }, 'OUTSIDE_MOUNTS'],
    ['a missing file', 'read', { path: 'nope.txt' }, 'NOT_FOUND'],
    ['a write into the read-only mount', 'write', { path: '.campaign/brief.md', content: 'x' }, 'READ_ONLY'],
    ['a write into .git', 'write', { path: '.git/config', content: 'x' }, 'PROTECTED_PATH'],
    ['a tool the role lacks', 'request_files', { paths: ['src/math.js'], reason: 'x' }, 'TOOL_NOT_ALLOWED'],
    ['an unknown tool', 'delete', { path: 'README.md' }, 'TOOL_NOT_ALLOWED'],
    ['arguments of the wrong type', 'read', { path: ['README.md'] }, 'INVALID_INPUT'],
    ['an edit with no match', 'edit', { path: 'README.md', oldString: 'zzz-not-there', newString: 'y' }, 'NO_MATCH'],
  ];
  it.each(cases)('%s', async (_name, tool, args, code) => {
    const r = await callTool(client, tool, args);
    expect(r.isError).toBe(true);
    expect(r.structured.error.code).toBe(code);
    expect(r.text.startsWith(`${code}: `)).toBe(true);
    expect(r.text).not.toContain(repo.root);
  });

  it('the read-only mount still holds its committed bytes', () => {
    expect(original('.campaign/brief.md')).toContain('Make the greeting friendlier');
  });
});

describe('message size: the cap agrees with the tool schemas', () => {
  it('a write of 10 Mi characters (an 11+ MiB line once JSON-escaped) succeeds; the bytes on disk match', async () => {
    const content = 'ab"\n'.repeat(2.5 * 1024 * 1024); // quotes and newlines escape to 2 bytes each
    expect(Buffer.byteLength(JSON.stringify(content))).toBeGreaterThan(11 * 1024 * 1024);
    const w = await callTool(client, 'write', { path: 'large.txt', content });
    expect(w.isError).toBe(false);
    const onDisk = readFileSync(join(repo.dir, '.gatefs/worktrees/alpha/large.txt'));
    expect(createHash('sha256').update(onDisk).digest('hex')).toBe(createHash('sha256').update(content).digest('hex'));
  });

  it('a message over the cap gets a JSON-RPC error carrying its id; nothing is written and the next call works', async () => {
    const content = '\u0001'.repeat(MAX_MESSAGE_BYTES / 6 + 1); // escapes to 6 bytes a character: over the cap
    const refused = await client.callTool({ name: 'write', arguments: { path: 'huge.txt', content } }).then(
      () => null,
      (e: unknown) => e as McpError,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect(refused?.code).toBe(-32600);
    expect(refused?.message).toMatch(/request too large: \d+ bytes, over this server's limit of \d+ bytes per message/);
    expect(stderr()).toMatch(/stdio: refused a message of \d+ bytes \(the limit is \d+\); answered id \d+ with an error and kept serving/);
    expect((await callTool(client, 'read', { path: 'huge.txt' })).structured.error.code).toBe('NOT_FOUND');
    expect((await callTool(client, 'read', { path: 'README.md' })).isError).toBe(false);
  });

  it('a message of 200,000 empty objects (far under the byte cap) gets a JSON-RPC error with its id before it is parsed; nothing is written', async () => {
    const padding = Array.from({ length: 200_000 }, () => ({}));
    const refused = await client.callTool({ name: 'write', arguments: { path: 'complex.txt', content: 'x' }, _meta: { padding } }).then(
      () => null,
      (e: unknown) => e as McpError,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect(refused?.code).toBe(-32600);
    expect(refused?.message).toMatch(/request too complex: more than \d+ JSON tokens/);
    expect(stderr()).toMatch(/stdio: refused a message of more than \d+ JSON tokens; answered id \d+ with an error and kept serving/);
    expect((await callTool(client, 'read', { path: 'complex.txt' })).structured.error.code).toBe('NOT_FOUND');
    expect((await callTool(client, 'read', { path: 'README.md' })).isError).toBe(false);
  });
});

describe('bytes that are not UTF-8', () => {
  it('a write whose JSON holds bytes that are not UTF-8 gets a parse error with its id; nothing is written, nothing is replaced by U+FFFD', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--repo', repo.dir, '--conversation', 'bytes'], { stdio: 'pipe' });
    const answers = new Map<unknown, any>();
    let out = '';
    const answered = (id: number) =>
      new Promise<any>((resolve) => {
        const check = () => (answers.has(id) ? resolve(answers.get(id)) : setTimeout(check, 20));
        check();
      });
    child.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n');
      out = lines.pop()!;
      for (const line of lines) answers.set(JSON.parse(line).id, JSON.parse(line));
    });
    const send = (bytes: Buffer | object) =>
      child.stdin.write(Buffer.concat([Buffer.isBuffer(bytes) ? bytes : Buffer.from(JSON.stringify(bytes)), Buffer.from('\n')]));
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await answered(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const head = Buffer.from(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{"path":"latin1.txt","content":"caf',
    );
    send(Buffer.concat([head, Buffer.from([0xe9, 0xff]), Buffer.from('"}}}')])); // Latin-1 é and a byte no UTF-8 text holds
    const refused = await answered(2);
    expect(refused.error).toMatchObject({ code: -32700, message: expect.stringMatching(/not valid UTF-8/) });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read', arguments: { path: 'latin1.txt' } } });
    expect((await answered(3)).result.structuredContent.error.code).toBe('NOT_FOUND');
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    expect(existsSync(join(repo.dir, '.gatefs/worktrees/bytes/latin1.txt'))).toBe(false);
  });
});

describe('serve without --conversation', () => {
  it('generates an id, logs it on stderr, answers a garbage line with a parse error, and writes nothing but JSON-RPC on stdout', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--repo', repo.dir], { stdio: 'pipe' });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const answered = new Promise<void>((resolve) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (out.split('\n').length > 3) resolve();
      });
    });
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list', arguments: {} } };
    child.stdin.write('this is not JSON-RPC\n');
    child.stdin.write(`${JSON.stringify(init)}\n`);
    child.stdin.write(`${JSON.stringify(list)}\n`); // waits for the workspace, which is then prepared
    await answered;
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    for (const line of out.trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    const [garbage, initialized, listed] = out.split('\n').map((l) => (l ? JSON.parse(l) : null));
    expect(listed.result.isError).toBeFalsy();
    expect(garbage).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: the line is not JSON' } });
    expect(initialized.result.serverInfo.name).toBe('gatefs');
    const id = /serving conversation "(conv-[0-9a-f]+)"/.exec(err)?.[1];
    expect(id).toBeDefined();
    expect(err).toContain(`its workspace stays for the next start with --conversation ${id}; gatefs release ${id} removes it`);
    expect(child.exitCode).toBe(0);
  });
});

describe('the session is the occupancy holder', () => {
  const holderOf = async () => {
    const rows = JSON.parse((await gatefs(['status', '--json', '--repo', repo.dir])).stdout) as {
      conversation: string;
      holder: string | null;
    }[];
    return rows.find((r) => r.conversation === 'alpha')?.holder;
  };

  it('while the session is open, status names it and a CLI write is refused with OCCUPIED', async () => {
    expect(await holderOf()).toMatch(/^mcp-\d+-[0-9a-f]+$/);
    const w = await gatefs(['call', 'alpha', 'write', '{"path":"cli.txt","content":"x"}', '--repo', repo.dir]);
    expect(w.code).toBe(1);
    expect(w.stderr).toMatch(/^gatefs: OCCUPIED: /);
  });

  it('a second server on the same conversation answers at once; its calls are OCCUPIED, saying why; it exits 1', async () => {
    const second = await stdioClient(['--repo', repo.dir, '--conversation', 'alpha'], repo.root);
    const { tools } = await second.client.listTools();
    expect(tools.map((t) => t.name)).toContain('write');
    const w = await callTool(second.client, 'write', { path: 'second.txt', content: 'x' });
    expect(w.isError).toBe(true);
    expect(w.structured.error.code).toBe('OCCUPIED');
    expect(w.structured.error.message).toMatch(
      /another live MCP session holds the workspace of "alpha": conversation 'alpha' is occupied by 'mcp-\d+-[0-9a-f]+' \(exclusive-write\).*an MCP session holds this workspace/,
    );
    expect(w.structured.error.message).not.toContain(repo.dir);
    expect(existsSync(join(repo.dir, '.gatefs/worktrees/alpha/second.txt'))).toBe(false);
    const exited = new Promise<number | null>((resolve) => {
      const child = (second.client.transport as unknown as { _process: { once(e: string, f: (c: number | null) => void): void } })._process;
      child.once('exit', resolve);
    });
    await second.client.close();
    expect(await exited).toBe(1);
    expect(second.stderr()).toMatch(/gatefs: error: OCCUPIED: .*\(an MCP session holds this workspace/);
    expect(second.stderr()).not.toContain('this session holds it'); // it never held the workspace
  });

  it('closing the client frees the workspace', async () => {
    await client.close();
    for (let i = 0; i < 50 && (await holderOf()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await holderOf()).toBeNull();
    const w = await gatefs(['call', 'alpha', 'write', '{"path":"cli.txt","content":"x"}', '--repo', repo.dir]);
    expect(w.code).toBe(0);
  });
});
