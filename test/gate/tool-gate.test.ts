import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { addWorkspace, errorOf, setupGate, valueOf } from '../tools/workspace-fixture.js';
import type { DisclosureRequests } from '../../tools/disclosure-requests.js';

describe('ToolGate: validation (step 1)', () => {
  const s = setupGate();
  addWorkspace(s, 'a', { files: { 'f.txt': 'hello\n' } });
  const huge = 'x'.repeat(11 * 1024 * 1024);
  const cases: [string, unknown, string][] = [
    ['read', { path: 42 }, 'path: expected string'],
    ['read', { path: ['a'] }, 'path: expected string'],
    ['read', { path: { toString: 'x' } }, 'path: expected string'],
    ['read', {}, 'path: required'],
    ['read', { path: 'f.txt', extra: 1 }, 'extra: unknown field'],
    ['read', { path: 'f.txt', offset: 0 }, 'offset: '],
    ['read', { path: 'f.txt', offset: 1.5 }, 'offset: expected integer'],
    ['read', { path: 'f.txt', limit: '10' }, 'limit: '],
    ['read', { path: '' }, 'path: '],
    ['read', { path: 'p'.repeat(5000) }, 'path: expected string length less or equal to 4096'],
    ['read', null, 'arguments: expected object'],
    ['read', [], 'arguments: expected object'],
    ['read', 'f.txt', 'arguments: expected object'],
    ['write', { path: 'f.txt' }, 'content: required'],
    ['write', { path: 'f.txt', content: huge }, 'content: expected string length'],
    ['write', { path: 'f.txt', content: 'x', expectedSha256: 'abc' }, 'expectedSha256: expected a string matching'],
    ['write', { path: 'f.txt', content: 'x', expectedSha256: 7 }, 'expectedSha256: expected'],
    ['edit', { path: 'f.txt', oldString: 'a' }, 'newString: required'],
    ['edit', { path: 'f.txt', oldString: 'a', newString: 'b', replaceAll: 'yes' }, 'replaceAll: expected boolean'],
    ['edit', { path: 'f.txt', oldString: huge, newString: 'b' }, 'oldString: expected string length'],
    ['grep', { pattern: '' }, 'pattern: '],
    ['grep', { pattern: 'x', output: 'lines' }, 'output: expected "files" or "content" or "count"'],
    ['grep', { pattern: 'x', context: 21 }, 'context: '],
    ['grep', { pattern: 'x', maxResults: -1 }, 'maxResults: '],
    ['grep', { pattern: '[a-' }, 'pattern: not a valid JavaScript regular expression'],
    ['grep', { pattern: 'a'.repeat(5000) }, 'pattern: expected string length'],
    ['list', { pattern: 5 }, 'pattern: expected string'],
    ['list', { maxResults: 0 }, 'maxResults: '],
    ['list', { path: '.', recursive: true }, 'recursive: unknown field'],
  ];
  it.each(cases)('%s %j → INVALID_INPUT naming the field', async (tool, args, prefix) => {
    const error = errorOf(await s.gate.call('a', tool, args));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message.startsWith(prefix)).toBe(true);
    expect(error.message.length).toBeLessThan(400);
  });
});

describe('ToolGate: registration, role, occupancy (steps 2, 3, 5)', () => {
  it('refuses unknown, preparing and released workspaces, and bad ids, without echoing them at length', async () => {
    const s = setupGate();
    addWorkspace(s, 'prep', { state: 'preparing' });
    addWorkspace(s, 'gone', { state: 'released' });
    expect(errorOf(await s.gate.call('nobody', 'read', { path: 'x' })).code).toBe('UNKNOWN_CONVERSATION');
    expect(errorOf(await s.gate.call('prep', 'read', { path: 'x' })).code).toBe('WORKSPACE_NOT_READY');
    expect(errorOf(await s.gate.call('gone', 'read', { path: 'x' })).code).toBe('WORKSPACE_RELEASED');
    const bad = errorOf(await s.gate.call(`../${'x'.repeat(5000)}`, 'read', { path: 'x' }));
    expect(bad.code).toBe('UNKNOWN_CONVERSATION');
    expect(bad.message.length).toBeLessThan(200);
    expect(errorOf(await s.gate.call(42 as unknown as string, 'read', { path: 'x' })).code).toBe('UNKNOWN_CONVERSATION');
    expect(s.log.map((e) => e.conversation)).toEqual(['nobody', 'prep', 'gone', null, null]);
  });

  it('allows only the tools the role declares; unknown tool names are refused too', async () => {
    const s = setupGate();
    const { layer } = addWorkspace(s, 'ro', { files: { f: 'f' }, tools: ['read', 'list'], role: 'reviewer' });
    const denied = errorOf(await s.gate.call('ro', 'write', { path: 'f', content: 'x' }));
    expect(denied).toMatchObject({ code: 'TOOL_NOT_ALLOWED' });
    expect(denied.message).toContain("'reviewer'");
    expect(errorOf(await s.gate.call('ro', 'rm', { path: 'f' }))).toEqual({
      code: 'TOOL_NOT_ALLOWED',
      message: 'there is no tool named "rm"; the tools are read, grep, list, edit, write, delete, move', // the tools this gate was built with
    });
    expect(Buffer.from(await (layer as MemoryLayer).readFile('f')).toString()).toBe('f');
    expect(s.gate.tools('ro').map((t) => t.name)).toEqual(['read', 'list']);
    expect(s.gate.tools('nobody')).toEqual([]);
  });

  it('refuses writes with OCCUPIED while another holder has exclusive write; reads still run', async () => {
    const s = setupGate({ occupancy: { blockingHolder: (conv, holder) => (conv === 'a' && holder !== 'owner' ? 'owner' : undefined) } });
    const { layer } = addWorkspace(s, 'a', { files: { 'f.txt': 'v1' } });
    expect(errorOf(await s.gate.call('a', 'write', { path: 'f.txt', content: 'v2' }, { holder: 'intruder' })).code).toBe('OCCUPIED');
    expect(errorOf(await s.gate.call('a', 'edit', { path: 'f.txt', oldString: 'v1', newString: 'v2' })).code).toBe('OCCUPIED');
    expect(valueOf(await s.gate.call('a', 'read', { path: 'f.txt' }, { holder: 'intruder' })).content).toBe('v1');
    expect(valueOf(await s.gate.call('a', 'write', { path: 'f.txt', content: 'v3' }, { holder: 'owner' })).created).toBe(false);
    expect(Buffer.from(await layer.readFile('f.txt')).toString()).toBe('v3');
  });
});

describe('ToolGate: audit and internal errors (step 6)', () => {
  it('appends exactly one tool_call record per call, with outcome, duration and the paths named, never contents', async () => {
    const s = setupGate();
    addWorkspace(s, 'a', { files: { 'secret-name.txt': 'TOP SECRET CONTENT', 'docs/a.md': 'x' } });
    await s.gate.call('a', 'read', { path: 'secret-name.txt' });
    await s.gate.call('a', 'read', { path: 'missing.txt' });
    await s.gate.call('a', 'write', { path: 'new.txt', content: 'MORE SECRET' });
    await s.gate.call('a', 'grep', { pattern: 'SECRET', output: 'content' });
    await s.gate.call('a', 'list', { path: './docs/' }, { clientTool: 'LS' });
    await s.gate.call('a', 'read', { path: '../outside.txt' });
    await s.gate.call('a', 'read', { nope: 1 });
    await s.gate.call('a', 'bogus', {}, { clientTool: 'Bogus' });
    expect(s.log).toEqual([
      { type: 'tool_call', conversation: 'a', data: { tool: 'read', outcome: 'ok', durationMs: 1, paths: ['secret-name.txt'] } },
      { type: 'tool_call', conversation: 'a', data: { tool: 'read', outcome: 'NOT_FOUND', durationMs: 1, paths: ['missing.txt'] } },
      { type: 'tool_call', conversation: 'a', data: { tool: 'write', outcome: 'ok', durationMs: 1, paths: ['new.txt'] } },
      { type: 'tool_call', conversation: 'a', data: { tool: 'grep', outcome: 'ok', durationMs: 1, paths: ['.'] } },
      { type: 'tool_call', conversation: 'a', data: { tool: 'list', outcome: 'ok', durationMs: 1, paths: ['docs'], clientTool: 'LS' } },
      { type: 'tool_call', conversation: 'a', data: { tool: 'read', outcome: 'PATH_ESCAPE', durationMs: 1, paths: ['../outside.txt'] } },
      { type: 'tool_call', conversation: 'a', data: { tool: 'read', outcome: 'INVALID_INPUT', durationMs: 1 } },
      {
        type: 'tool_call',
        conversation: 'a',
        data: { tool: '(unknown)', outcome: 'TOOL_NOT_ALLOWED', durationMs: 1, clientTool: 'Bogus' },
      },
    ]);
    expect(JSON.stringify(s.log)).not.toMatch(/SECRET|CONTENT/);
  });

  it('turns an unexpected throw into INTERNAL once, without leaking its message', async () => {
    const s = setupGate();
    const layer = new MemoryLayer({ files: { 'f.txt': 'x' } });
    layer.readFile = async () => {
      throw new Error('EIO at /home/user/.secret/host/path');
    };
    addWorkspace(s, 'a', { layer });
    const error = errorOf(await s.gate.call('a', 'read', { path: 'f.txt' }));
    expect(error.code).toBe('INTERNAL');
    expect(error.message).not.toContain('/home');
    expect(s.log).toHaveLength(1);
    expect(s.log[0].data.outcome).toBe('INTERNAL');
  });
});

describe('ToolGate: descriptors', () => {
  it('gives MCP-ready plain JSON Schemas refusing extra fields, and readOnlyHint on read tools', () => {
    const s = setupGate();
    addWorkspace(s, 'a');
    const tools = s.gate.tools('a');
    expect(tools.map((t) => t.name)).toEqual(['read', 'grep', 'list', 'edit', 'write']);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.inputSchema.additionalProperties).toBe(false);
      expect(t.outputSchema.type).toBe('object');
      expect(Object.getOwnPropertySymbols(t.inputSchema)).toEqual([]);
      expect(JSON.parse(JSON.stringify(t.inputSchema))).toEqual(t.inputSchema);
      expect(t.description.length).toBeGreaterThan(80);
      expect(t.annotations.readOnlyHint).toBe(['read', 'grep', 'list'].includes(t.name));
    }
  });
});

describe('ToolGate: no processes, no git', () => {
  it('runs every file tool with a disclosure handle that throws on any call (the one port a registration carries)', async () => {
    let calls = 0;
    const throwing = new Proxy(
      {},
      {
        get: () => () => {
          calls++;
          throw new Error('a file tool must not reach past the namespace');
        },
      },
    ) as DisclosureRequests;
    const s = setupGate();
    addWorkspace(s, 'a', { files: { 'f.txt': 'one\n' }, disclosure: throwing });
    const results = [
      await s.gate.call('a', 'read', { path: 'f.txt' }),
      await s.gate.call('a', 'grep', { pattern: 'one' }),
      await s.gate.call('a', 'list', {}),
      await s.gate.call('a', 'edit', { path: 'f.txt', oldString: 'one', newString: 'two' }),
      await s.gate.call('a', 'write', { path: 'g.txt', content: 'g' }),
    ];
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true]);
    expect(calls).toBe(0);
  });

  it('imports neither child_process nor the git or host-exec ports in the gate and tools sources', () => {
    const root = join(import.meta.dirname, '..', '..');
    const files = [
      ...readdirSync(join(root, 'src/gate')).map((f) => join(root, 'src/gate', f)),
      ...readdirSync(join(root, 'tools'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(root, 'tools', f)),
    ];
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const source = readFileSync(f, 'utf8');
      expect(source, f).not.toMatch(/child_process|from '[^']*\/git\/|host-exec/);
    }
  });
});
