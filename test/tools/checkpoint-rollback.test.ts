/**
 * The agent's `checkpoint` and `rollback` tools on the memory host: a checkpoint holds the whole
 * workspace (untracked and ignored files too), a rollback returns it to exactly those files and
 * first takes a checkpoint of the state it leaves, so a rollback is itself undone by one; ids are
 * the conversation's own; the tools run only when the role declares them (no default role does);
 * `exec: { checkpoint: true }` takes one before each command. Deterministic: no process runs.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { ScriptedSandbox } from '../../src/ports/scripted-sandbox.js';
import { toolResultText } from '../../src/mcp/text/index.js';
import type { ToolResult } from '../../tools/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Value } from '@sinclair/typebox/value';
import { CLAUDE_CODE_PROFILE } from '../../src/mcp/profiles/claude-code.js';
import { BashValue } from '../../src/mcp/profiles/claude-code-schemas.js';
import { gateOf } from '../../src/mcp/profiles/tool-profile.js';

type Backend = 'worktree' | 'copy';

const FILES = { 'README.md': '# repo\n', 'src/app.ts': 'export const app = 1;\n', '.gitignore': 'build/\n' };

/** A memory host whose conversation `c` has a role declaring the snapshot tools (and `w`, `b` one each without / beside it). */
async function world(backend: Backend = 'worktree', exec: Record<string, unknown> = {}, sandbox = new ScriptedSandbox()) {
  const host = await createMemoryHost({
    files: FILES,
    manifest: {
      roles: [
        { name: 'agent', tools: ['read', 'list', 'write', 'delete', 'checkpoint', 'rollback', 'exec'], workspace: { backend }, exec },
        { name: 'plain', tools: ['read', 'list', 'write'], workspace: { backend } },
      ],
    },
    sandbox,
  });
  await host.prepare({ conversation: 'c' });
  const call = (tool: string, args: unknown, conversation = 'c') => host.gate.call(conversation, tool, args);
  return { host, call, sandbox };
}

type Call = (tool: string, args: unknown, conversation?: string) => Promise<ToolResult>;

/** The value of a successful call (fails the test with the error otherwise). */
async function valueOf<T = Record<string, unknown>>(result: Promise<ToolResult>): Promise<T> {
  const r = await result;
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

/** Every entry of the workspace, ignored ones included: folders as 'dir', files with their text. */
async function stateOf(call: Call, conversation = 'c'): Promise<Record<string, string>> {
  const list = await valueOf<{ entries: { path: string; type: string }[] }>(
    call('list', { pattern: '**', includeIgnored: true, maxResults: 10_000 }, conversation),
  );
  const out: Record<string, string> = {};
  for (const e of list.entries) {
    if (e.type === 'directory') out[e.path] = 'dir';
    else out[e.path] = (await valueOf<{ content: string }>(call('read', { path: e.path }, conversation))).content;
  }
  return out;
}

describe.each<Backend>(['worktree', 'copy'])('checkpoint and rollback in a %s workspace', (backend) => {
  it('rollback returns the workspace to exactly the checkpoint, untracked and ignored files included, and its before undoes it', async () => {
    const { call, host } = await world(backend);
    await valueOf(call('write', { path: 'notes/todo.md', content: 'untracked\n' }));
    await valueOf(call('write', { path: 'build/out.js', content: 'ignored\n' }));
    const saved = await stateOf(call);
    expect(saved['build/out.js']).toBe('ignored\n');

    const checkpoint = await valueOf(call('checkpoint', { label: 'before the refactor' }));
    expect(checkpoint).toMatchObject({ snapshotId: '1', label: 'before the refactor' });
    // At least the two files written (a copy's snapshot may count only what differs from its pinned commit).
    expect(checkpoint.files).toBeGreaterThanOrEqual(2);
    expect(checkpoint.bytes).toBeGreaterThan(0);

    await valueOf(call('write', { path: 'src/app.ts', content: 'export const app = 2;\n' }));
    await valueOf(call('delete', { path: 'notes/todo.md' }));
    await valueOf(call('delete', { path: 'build/out.js' }));
    await valueOf(call('write', { path: 'src/new.ts', content: 'new\n' }));
    await valueOf(call('write', { path: 'deep/er/file.txt', content: 'added\n' }));
    const changed = await stateOf(call);

    const rolled = await valueOf(call('rollback', { snapshotId: '1' }));
    expect(rolled).toMatchObject({ snapshotId: '1', before: '2' });
    expect(rolled.written).toBeGreaterThan(0);
    expect(rolled.removed).toBeGreaterThan(0);
    expect(await stateOf(call)).toEqual(saved);

    const undone = await valueOf(call('rollback', { snapshotId: '2' }));
    expect(undone).toMatchObject({ snapshotId: '2', before: '3' });
    expect(await stateOf(call)).toEqual(changed);

    expect(host.snapshots('c').map((s) => [s.snapshotId, s.reason, s.label])).toEqual([
      ['1', 'checkpoint', 'before the refactor'],
      ['2', 'restore', expect.anything()],
      ['3', 'restore', expect.anything()],
    ]);
  });

  it('an unknown id is SNAPSHOT_NOT_FOUND naming the ids there are, and nothing changes', async () => {
    const { call } = await world(backend);
    const none = await call('rollback', { snapshotId: '1' });
    expect(none).toMatchObject({ ok: false, error: { code: 'SNAPSHOT_NOT_FOUND', details: { available: [] } } });

    await valueOf(call('checkpoint', {}));
    await valueOf(call('write', { path: 'x.txt', content: 'x\n' }));
    const before = await stateOf(call);
    const missing = await call('rollback', { snapshotId: '7' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'SNAPSHOT_NOT_FOUND', details: { available: ['1'] } } });
    if (!missing.ok) expect(missing.error.message).toContain('1');
    expect(await stateOf(call)).toEqual(before);
  });

  it("ids are the conversation's own: another conversation cannot roll back to them, and its files stay as they are", async () => {
    const { host, call } = await world(backend);
    await host.prepare({ conversation: 'd' });
    await valueOf(call('write', { path: 'mine.txt', content: 'c\n' }));
    await valueOf(call('checkpoint', {}));
    await valueOf(call('write', { path: 'theirs.txt', content: 'd\n' }, 'd'));
    const dBefore = await stateOf(call, 'd');

    expect(await call('rollback', { snapshotId: '1' }, 'd')).toMatchObject({ ok: false, error: { code: 'SNAPSHOT_NOT_FOUND' } });
    await valueOf(call('write', { path: 'mine.txt', content: 'changed\n' }));
    await valueOf(call('rollback', { snapshotId: '1' }));
    expect(await stateOf(call, 'd')).toEqual(dBefore);
    expect(host.snapshots('d')).toEqual([]);
  });
});

describe('who may checkpoint', () => {
  it('a role without the tools gets TOOL_NOT_ALLOWED, and the default role has neither', async () => {
    const { host, call } = await world();
    await host.prepare({ conversation: 'p', role: 'plain' });
    expect(await call('checkpoint', {}, 'p')).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_ALLOWED' } });
    expect(await call('rollback', { snapshotId: '1' }, 'p')).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_ALLOWED' } });

    const plain = await createMemoryHost({ files: FILES });
    await plain.prepare({ conversation: 'q' });
    const names = (await plain.gate.tools('q')).map((t) => t.name);
    expect(names).not.toContain('checkpoint');
    expect(names).not.toContain('rollback');
    expect(await plain.gate.call('q', 'checkpoint', {})).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_ALLOWED' } });
  });

  it('a role declaring them is offered them, with a description that says what a checkpoint holds and what rollback never does', async () => {
    const { host } = await world();
    const tools = await host.gate.tools('c');
    const checkpoint = tools.find((t) => t.name === 'checkpoint')!;
    const rollback = tools.find((t) => t.name === 'rollback')!;
    expect(checkpoint.description).toMatch(/untracked and ignored/);
    expect(checkpoint.description).toMatch(/never the files of a mount/);
    expect(rollback.description).toMatch(/first takes a checkpoint/);
    expect(rollback.description).toMatch(/never moves your branch and never undoes commits/);
  });

  it.each([
    [{ label: 'two\nlines' }, 'label'],
    [{ label: 'x'.repeat(201) }, 'label'],
    [{ name: 'x' }, 'name'],
  ])('checkpoint %j is INVALID_INPUT and takes nothing', async (args, field) => {
    const { host, call } = await world();
    const r = await call('checkpoint', args);
    expect(r).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    if (!r.ok) expect(r.error.message).toContain(field);
    expect(host.snapshots('c')).toEqual([]);
  });

  it('rollback without a snapshotId is INVALID_INPUT', async () => {
    const { call } = await world();
    expect(await call('rollback', {})).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });
});

describe('exec: { checkpoint: true }', () => {
  it('takes a snapshot before each command, answers its id, and rolling back to it undoes what followed', async () => {
    const { call, host, sandbox } = await world('worktree', { checkpoint: true });
    await valueOf(call('write', { path: 'data.txt', content: 'precious\n' }));
    const command = `rm -rf data.txt && echo ${'x'.repeat(120)}`;
    const ran = await valueOf<{ checkpoint?: string; exitCode: number }>(call('exec', { command }));
    expect(ran.checkpoint).toBe('1');
    expect(sandbox.started).toHaveLength(1);
    const [snapshot] = host.snapshots('c');
    expect(snapshot).toMatchObject({ snapshotId: '1', reason: 'exec' });
    expect(snapshot!.label!.startsWith('before exec: rm -rf data.txt && echo xxx')).toBe(true);
    expect(snapshot!.label!.length).toBeLessThanOrEqual('before exec: '.length + 80);

    // What the command would have done (the scripted sandbox writes nothing): the file is gone.
    await valueOf(call('delete', { path: 'data.txt' }));
    await valueOf(call('rollback', { snapshotId: ran.checkpoint! }));
    expect(await valueOf<{ content: string }>(call('read', { path: 'data.txt' }))).toMatchObject({ content: 'precious\n' });

    const background = await valueOf<{ runId: string; checkpoint?: string }>(call('exec', { command: 'sleep 1', background: true }));
    expect(background.checkpoint).toBe('3');
    const text = toolResultText('exec', await call('exec', { command: 'true' }));
    expect(text).toContain('checkpoint 4 was taken before the command');
  });

  it('takes none unless the role asks for one', async () => {
    const { call, host } = await world();
    const ran = await valueOf(call('exec', { command: 'true' }));
    expect(ran).not.toHaveProperty('checkpoint');
    expect(host.snapshots('c')).toEqual([]);
  });
});

describe('the text a client shows', () => {
  it('names the snapshot, its size and how to return to it; a rollback names the snapshot that undoes it', async () => {
    const { call } = await world();
    const taken = await call('checkpoint', { label: 'green tests' });
    expect(toolResultText('checkpoint', taken)).toMatch(
      /^checkpoint 1 \("green tests"\): \d+ file\(s\), \d+ bytes, \d+ bytes new in the store; rollback \{"snapshotId": "1"\} returns to it$/,
    );
    const rolled = await call('rollback', { snapshotId: '1' });
    expect(toolResultText('rollback', rolled)).toMatch(
      /^rolled back to checkpoint 1: \d+ entries written, \d+ removed; the state before is checkpoint 2: rollback \{"snapshotId": "2"\} undoes this$/,
    );
    expect(toolResultText('rollback', await call('rollback', { snapshotId: '9' }))).toMatch(/^SNAPSHOT_NOT_FOUND: /);
  });
});

describe('under the claude-code profile', () => {
  it('checkpoint and rollback keep their names, and Bash says which checkpoint it took before the command', async () => {
    const { host } = await world('worktree', { checkpoint: true });
    const listed = CLAUDE_CODE_PROFILE.tools(host.declaredTools('c'), 'c').map((t) => t.name);
    expect(listed).toContain('checkpoint');
    expect(listed).toContain('rollback');
    const call = async (name: string, args: Record<string, unknown>) => {
      const r: CallToolResult = await CLAUDE_CODE_PROFILE.call(name, args, gateOf(host, 'c', undefined));
      return {
        text: (r.content as { text?: string }[]).map((c) => c.text).join('\n'),
        structured: r.structuredContent as Record<string, unknown>,
      };
    };
    const taken = await call('checkpoint', { label: 'start' });
    expect(taken.text).toMatch(/^checkpoint 1 \("start"\)/);
    const bash = await call('Bash', { command: 'make clean' });
    expect(bash.structured.checkpoint).toBe('2');
    expect(Value.Check(BashValue, bash.structured)).toBe(true);
    expect(bash.text).toContain('checkpoint 2 was taken before the command: rollback {"snapshotId": "2"} undoes it');
    expect((await call('rollback', { snapshotId: '2' })).text).toMatch(/^rolled back to checkpoint 2: /);
  });
});

describe('rollback, as a model writes it', () => {
  it('takes the id as the number it reads (3 as "3"); zero, a fraction or a negative is INVALID_INPUT', async () => {
    const { host, call } = await world();
    await valueOf(call('write', { path: 'notes.md', content: 'one' }));
    await valueOf(call('checkpoint', {}));
    await valueOf(call('write', { path: 'notes.md', content: 'two' }));
    expect(await valueOf(call('rollback', { snapshotId: 1 }))).toMatchObject({ snapshotId: '1', before: '2' });
    expect(await valueOf<{ content: string }>(call('read', { path: 'notes.md' }))).toMatchObject({
      content: expect.stringContaining('one'),
    });
    for (const bad of [0, 1.5, -1])
      expect(await call('rollback', { snapshotId: bad })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    await host.close();
  });
});
