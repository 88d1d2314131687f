/**
 * The `messages` tool on the memory host (isomorphic-git, SQLite :memory:, scripted checks): a
 * conversation reads its own landing report (each check's name, exit code, duration) and its own
 * refusal (the failing check's output tail), never another conversation's, whatever request id it
 * names; `unread` returns each message once; a blocked landing says why and what unblocks it; the
 * default role (no manifest) declares diff, commit, submit and messages; `diff` after a landing
 * shows only work not yet on main.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost, type MemoryHost } from '../../src/host/memory/create-memory-host.js';
import type { CheckRun, CheckRunner, CheckSpec } from '../../src/ports/check-runner.js';
import type { MessagesValue } from '../../tools/work-requests.js';

const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n' };

/** Scripted checks: `answer` per check name; every call takes `durationMs` 40 + its call number. */
class Checks implements CheckRunner {
  calls = 0;
  constructor(private readonly answer: (check: CheckSpec) => Partial<CheckRun> = () => ({})) {}
  async run(check: CheckSpec): Promise<CheckRun> {
    this.calls++;
    return { exitCode: 0, timedOut: false, durationMs: 40 + this.calls, output: '', truncated: false, ...this.answer(check) };
  }
}

const SETTINGS = {
  lander: {
    checks: [
      { name: 'types', command: 'npx tsc' },
      { name: 'unit', command: 'npx vitest run' },
    ],
  },
};

function memoryHost(checks: CheckRunner): Promise<MemoryHost> {
  // No manifest: the default role must be enough for the whole loop.
  return createMemoryHost({ files, settings: SETTINGS, checks });
}

async function submitFile(h: MemoryHost, conversation: string, path: string, content: string) {
  expect(await h.gate.call(conversation, 'write', { path, content })).toMatchObject({ ok: true });
  expect(await h.gate.call(conversation, 'commit', { message: `add ${path}` })).toMatchObject({ ok: true });
  const submitted = await h.gate.call(conversation, 'submit', { divergence: 'None', summary: `adds ${path}` });
  expect(submitted).toMatchObject({ ok: true });
  return (submitted as { value: { submissionId: string; requestId: string } }).value;
}

async function messages(h: MemoryHost, conversation: string, args: object = {}): Promise<MessagesValue> {
  const r = await h.gate.call(conversation, 'messages', args);
  expect(r).toMatchObject({ ok: true });
  return (r as { value: MessagesValue }).value;
}

describe('messages', () => {
  it('the default role declares the loop: diff, commit, submit, messages', async () => {
    const h = await memoryHost(new Checks());
    await h.prepare({ conversation: 'a' });
    const names = h.gate.tools('a').map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read', 'edit', 'delete', 'move', 'diff', 'commit', 'submit', 'messages']));
    expect(h.gate.tools('a').find((t) => t.name === 'messages')?.annotations.readOnlyHint).toBe(true);
    await h.close();
  });

  it('a passing landing: the report names each check with its exit code and duration', async () => {
    const h = await memoryHost(new Checks());
    await h.prepare({ conversation: 'a' });
    const { requestId, submissionId } = await submitFile(h, 'a', 'src/c.ts', 'export const c = 3;\n');
    const waiting = await messages(h, 'a', { requestId });
    expect(waiting.messages).toEqual([]);
    expect(waiting.pending).toEqual([{ requestId, submissionId, target: 'main', state: 'queued', queuePosition: 1 }]);
    expect((await h.lander.run()).landed).toEqual([submissionId]);
    const got = await messages(h, 'a', { requestId });
    expect(got.pending).toEqual([]);
    expect(got.messages.map((m) => [m.kind, m.requestId, m.outcome])).toEqual([
      ['report', requestId, 'landed'],
      ['note', `${requestId}/note`, 'landed'],
    ]);
    expect(got.messages[0]!.checks).toEqual([
      { name: 'types', exitCode: 0, timedOut: false, durationMs: 41 },
      { name: 'unit', exitCode: 0, timedOut: false, durationMs: 42 },
    ]);
    expect(got.messages[0]).toMatchObject({ target: 'main', landedSha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(got.messages[0]!.message).toContain(`${submissionId} landed on main`);
    await h.close();
  });

  it('a failed check: the input names every check that ran, the failing one with its exit code and output tail', async () => {
    const checks = new Checks((c) => (c.name === 'unit' ? { exitCode: 3, output: 'FAIL src/c.test.ts\nexpected 3, got 4\n' } : {}));
    const h = await memoryHost(checks);
    await h.prepare({ conversation: 'a' });
    const { requestId, submissionId } = await submitFile(h, 'a', 'src/c.ts', 'x\n');
    expect((await h.lander.run()).failed).toEqual([submissionId]);
    const [input] = (await messages(h, 'a', { requestId })).messages;
    expect(input).toMatchObject({ kind: 'input', outcome: 'failed', reason: 'CHECK_FAILED', requestId, submissionId, target: 'main' });
    expect(input!.checks).toEqual([
      { name: 'types', exitCode: 0, timedOut: false, durationMs: 41 },
      {
        name: 'unit',
        exitCode: 3,
        timedOut: false,
        durationMs: 42,
        output: 'FAIL src/c.test.ts\nexpected 3, got 4\n',
        outputTruncated: false,
      },
    ]);
    expect(input!.message).toBe(`${submissionId} was not landed: check 'unit' failed with exit code 3`);
    expect(h.lander.status()[0]).toMatchObject({
      state: 'failed',
      reason: 'CHECK_FAILED',
      failure: "check 'unit' failed with exit code 3",
    });
    await h.close();
  });

  it('unread returns each message once, and the read marks are in the store', async () => {
    const h = await memoryHost(new Checks());
    await h.prepare({ conversation: 'a' });
    const first = await submitFile(h, 'a', 'src/c.ts', 'c\n');
    await h.lander.run();
    const once = await messages(h, 'a', { unread: true });
    expect(once.messages.map((m) => m.requestId)).toEqual([first.requestId, `${first.requestId}/note`]);
    expect((await messages(h, 'a', { unread: true })).messages).toEqual([]);
    const second = await submitFile(h, 'a', 'src/d.ts', 'd\n');
    await h.lander.run();
    expect((await messages(h, 'a', { unread: true })).messages.map((m) => m.requestId)).toEqual([
      second.requestId,
      `${second.requestId}/note`,
    ]);
    // Without unread every message is there, read or not; reading by id marks nothing twice.
    expect((await messages(h, 'a')).messages).toHaveLength(4);
    expect(h.messages('a').every((m) => m.readAt !== null)).toBe(true);
    await h.close();
  });

  it('reading by request id marks only those read; unread then returns the rest', async () => {
    const h = await memoryHost(new Checks());
    await h.prepare({ conversation: 'a' });
    const first = await submitFile(h, 'a', 'src/c.ts', 'c\n');
    const second = await submitFile(h, 'a', 'src/d.ts', 'd\n');
    await h.lander.run();
    expect((await messages(h, 'a', { requestId: first.requestId })).messages).toHaveLength(2);
    const rest = await messages(h, 'a', { unread: true });
    expect(rest.messages.map((m) => m.requestId)).toEqual([second.requestId, `${second.requestId}/note`]);
    await h.close();
  });

  it("never shows another conversation's messages or submissions, even by its request id", async () => {
    const checks = new Checks((c) => (c.name === 'unit' ? { exitCode: 1, output: 'SECRET-OUTPUT-OF-B\n' } : {}));
    const h = await memoryHost(checks);
    await h.prepare({ conversation: 'a' });
    await h.prepare({ conversation: 'b' });
    const ofB = await submitFile(h, 'b', 'src/b.ts', 'b\n');
    const waiting = await messages(h, 'a', { requestId: ofB.requestId });
    expect(waiting).toEqual({ messages: [], pending: [], more: 0 });
    await h.lander.run();
    expect(h.messages('b')).toHaveLength(1);
    expect(await messages(h, 'a', { requestId: ofB.requestId })).toEqual({ messages: [], pending: [], more: 0 });
    expect(await messages(h, 'a', { unread: true })).toEqual({ messages: [], pending: [], more: 0 });
    expect(await messages(h, 'a', { requestId: `${ofB.requestId}/note` })).toEqual({ messages: [], pending: [], more: 0 });
    // b's message is still unread for b: a's calls marked nothing.
    expect(h.messages('b')[0]!.readAt).toBeNull();
    expect((await messages(h, 'b', { unread: true })).messages[0]!.checks.at(-1)!.output).toBe('SECRET-OUTPUT-OF-B\n');
    await h.close();
  });

  it("a subagent's landing moves its parent's diff base once the parent holds the child's work; the parent gets the note", async () => {
    const h = await memoryHost(new Checks());
    await h.prepare({ conversation: 'p' });
    await h.subagents.start({ parent: 'p', child: 'k' });
    const { requestId } = await submitFile(h, 'k', 'src/k.ts', 'k\n');
    expect((await h.lander.run()).landed).toHaveLength(1);
    // Before the parent holds the child's commits nothing of its own is home: its diff is as it was.
    expect(await h.gate.call('p', 'diff', {})).toMatchObject({ ok: true, value: { files: [] } });
    expect((await h.gate.call('p', 'diff', {})) as object).not.toHaveProperty('value.landedOn');
    await h.subagents.land('k');
    expect(await h.gate.call('p', 'diff', {})).toMatchObject({ ok: true, value: { files: [], landedOn: 'main' } });
    const note = (await messages(h, 'p', { unread: true })).messages;
    expect(note.map((m) => [m.kind, m.requestId, m.from])).toEqual([['note', `${requestId}/note`, 'k']]);
    await h.close();
  });

  it('diff after a landing shows only the work not yet on main', async () => {
    const h = await memoryHost(new Checks());
    await h.prepare({ conversation: 'a' });
    await submitFile(h, 'a', 'src/c.ts', 'c\n');
    await h.lander.run();
    const after = await h.gate.call('a', 'diff', {});
    expect(after).toMatchObject({ ok: true, value: { base: 'pinned', files: [], patch: '', landedOn: 'main' } });
    expect(await h.gate.call('a', 'write', { path: 'src/d.ts', content: 'd\n' })).toMatchObject({ ok: true });
    expect(await h.gate.call('a', 'commit', { message: 'add d' })).toMatchObject({ ok: true });
    expect(await h.gate.call('a', 'write', { path: 'README.md', content: '# changed\n' })).toMatchObject({ ok: true });
    const later = await h.gate.call('a', 'diff', {});
    expect(later).toMatchObject({
      ok: true,
      value: {
        files: [
          { path: 'README.md', status: 'modified' },
          { path: 'src/d.ts', status: 'added' },
        ],
      },
    });
    expect((later as { value: { patch: string } }).value.patch).not.toContain('src/c.ts');
    await h.close();
  });
});
