/**
 * The lander on the memory host (isomorphic-git over memfs, scripted checks): an agent's edit
 * goes diff → commit → submit → landed on main, with its report, note, tally and memory line;
 * failing checks, FIFO order, a person's commit mid-check, a rejecting remote, an unreachable
 * one, one another lander moved (re-merged, re-checked, pushed), and a byte-identical run log
 * for the same scenario.
 */
import git, { type FsClient } from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { createMemoryRemote } from '../../src/git/memory-remote.js';
import { createMemoryHost, type MemoryHost } from '../../src/host/memory/create-memory-host.js';
import type { CheckRun, CheckRunner, CheckSpec } from '../../src/ports/check-runner.js';

const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n' };
const manifest = {
  roles: [
    { name: 'agent', tools: ['read', 'grep', 'list', 'edit', 'write', 'diff', 'commit', 'submit'], workspace: { backend: 'worktree' } },
  ],
};
const text = (v: unknown) => String(v);

/** A check runner whose answers are scripted per call, recording each call. */
class Checks implements CheckRunner {
  readonly calls: { name: string; cwd: string; chain: readonly string[] }[] = [];
  constructor(private readonly answer: (check: CheckSpec, call: number) => Promise<Partial<CheckRun>> | Partial<CheckRun> = () => ({})) {}
  async run(check: CheckSpec, cwd: string, chain: readonly string[]): Promise<CheckRun> {
    this.calls.push({ name: check.name, cwd, chain });
    const a = await this.answer(check, this.calls.length);
    return { exitCode: 0, timedOut: false, durationMs: 1, output: '', truncated: false, ...a };
  }
}

async function host(
  checks = new Checks(),
  settings: object = { lander: { checks: ['npm test'] } },
  extra: object = {},
): Promise<MemoryHost> {
  return createMemoryHost({ files, manifest, settings, checks, ...extra });
}

async function mainFile(h: MemoryHost, path: string): Promise<string | null> {
  const fs = h.volume as unknown as FsClient;
  const oid = await git.resolveRef({ fs, dir: '/repo', ref: 'refs/heads/main' });
  try {
    const { blob } = await git.readBlob({ fs, dir: '/repo', oid, filepath: path });
    return Buffer.from(blob).toString('utf8');
  } catch {
    return null;
  }
}

/** Commits `path` onto the memory remote's main as another host would push it. Result: the new commit. */
async function pushToRemote(h: MemoryHost, path: string, content: string): Promise<string> {
  const fs = h.volume as unknown as FsClient;
  const gitdir = '/remotes/origin.git';
  const parent = await git.resolveRef({ fs, gitdir, ref: 'refs/heads/main' });
  const { commit } = await git.readCommit({ fs, gitdir, oid: parent });
  const { tree: entries } = await git.readTree({ fs, gitdir, oid: commit.tree });
  const blob = await git.writeBlob({ fs, gitdir, blob: Buffer.from(content) });
  const tree = await git.writeTree({ fs, gitdir, tree: [...entries, { mode: '100644', path, oid: blob, type: 'blob' }] });
  const who = { name: 'other', email: 'o@example.invalid', timestamp: 1_800_000_000, timezoneOffset: 0 };
  const oid = await git.writeCommit({ fs, gitdir, commit: { message: 'theirs\n', tree, parent: [parent], author: who, committer: who } });
  await git.writeRef({ fs, gitdir, ref: 'refs/heads/main', value: oid, force: true });
  return oid;
}

async function work(h: MemoryHost, conversation: string, path: string, content: string) {
  expect((await h.gate.call(conversation, 'write', { path, content })).ok).toBe(true);
  const committed = await h.gate.call(conversation, 'commit', { message: `add ${path}` });
  expect(committed).toMatchObject({ ok: true });
  return h.gate.call(conversation, 'submit', { divergence: 'None', summary: `adds ${path}` });
}

describe('the lander on the memory host', () => {
  it('lands an agent’s commit on main with one report, one note, a tally and a memory line', async () => {
    const checks = new Checks();
    const h = await host(checks);
    await h.prepare({ conversation: 'a' });
    await h.gate.call('a', 'write', { path: 'src/c.ts', content: 'export const c = 3;\n' });
    const diff = await h.gate.call('a', 'diff', {});
    expect(diff).toMatchObject({ ok: true, value: { base: 'pinned', files: [{ path: 'src/c.ts', status: 'added' }] } });
    expect((diff as { value: { patch: string } }).value.patch).toContain('+export const c = 3;');
    const submitted = await h.gate.call('a', 'submit', { divergence: 'None' });
    expect(submitted).toMatchObject({ ok: false, error: { code: 'DIRTY_WORKTREE' } });
    expect(await h.gate.call('a', 'commit', { message: 'add c' })).toMatchObject({
      ok: true,
      value: { branch: 'gatefs/a', files: [{ path: 'src/c.ts', status: 'added' }] },
    });
    const queued = await h.gate.call('a', 'submit', { divergence: 'None', summary: 'adds c' });
    expect(queued).toMatchObject({ ok: true, value: { queuePosition: 1, target: 'main' } });
    const { submissionId, requestId } = (queued as { value: { submissionId: string; requestId: string } }).value;
    expect(await mainFile(h, 'src/c.ts')).toBeNull();

    const report = await h.lander.run();
    expect(report).toMatchObject({ landed: [submissionId], failed: [] });
    expect(await mainFile(h, 'src/c.ts')).toBe('export const c = 3;\n');
    expect(checks.calls).toEqual([{ name: 'npm test', cwd: expect.stringContaining('/state/lander/'), chain: ['a'] }]);
    const messages = h.messages('a');
    expect(messages.map((m) => [m.kind, m.requestId])).toEqual([
      ['report', requestId],
      ['note', `${requestId}/note`],
    ]);
    expect(h.status().find((s) => s.conversation === 'a')).toMatchObject({ landed: 1, parent: null });
    expect(text(h.volume.readFileSync('/state/memory/project.md', 'utf8'))).toContain(`[${submissionId}] a landed`);
    // Running again lands nothing twice.
    expect(await h.lander.run()).toMatchObject({ landed: [], failed: [] });
    expect(h.messages()).toHaveLength(2);
    await h.close();
  });

  it('answers a failed check with an input to the submitter carrying the output tail; main is unchanged', async () => {
    const h = await host(new Checks(() => ({ exitCode: 1, output: 'FAIL src/c.test.ts\nexpected 3, got 4' })));
    await h.prepare({ conversation: 'a' });
    const queued = await work(h, 'a', 'src/c.ts', 'x\n');
    const before = await git.resolveRef({ fs: h.volume as unknown as FsClient, dir: '/repo', ref: 'main' });
    const report = await h.lander.run();
    expect(report.failed).toHaveLength(1);
    expect(await git.resolveRef({ fs: h.volume as unknown as FsClient, dir: '/repo', ref: 'main' })).toBe(before);
    const [input] = h.messages('a');
    expect(input).toMatchObject({
      kind: 'input',
      requestId: (queued as { value: { requestId: string } }).value.requestId,
      body: { reason: 'CHECK_FAILED', check: 'npm test', exitCode: 1, output: expect.stringContaining('expected 3, got 4') },
    });
    expect(h.lander.status()[0]).toMatchObject({ state: 'failed', reason: 'CHECK_FAILED', landedSha: null });
    await h.close();
  });

  it('lands two conversations’ submissions in the order they were submitted', async () => {
    const h = await host();
    await h.prepare({ conversation: 'a' });
    await h.prepare({ conversation: 'b' });
    const first = await work(h, 'a', 'src/from-a.ts', 'a\n');
    const second = await work(h, 'b', 'src/from-b.ts', 'b\n');
    expect(second).toMatchObject({ ok: true, value: { queuePosition: 2 } });
    const report = await h.lander.run();
    expect(report.landed).toEqual([
      (first as { value: { submissionId: string } }).value.submissionId,
      (second as { value: { submissionId: string } }).value.submissionId,
    ]);
    expect(await mainFile(h, 'src/from-a.ts')).toBe('a\n');
    expect(await mainFile(h, 'src/from-b.ts')).toBe('b\n');
    const [one, two] = h.lander.status();
    expect(
      await git.isDescendent({
        fs: h.volume as unknown as FsClient,
        dir: '/repo',
        oid: two!.landedSha!,
        ancestor: one!.landedSha!,
        depth: -1,
      }),
    ).toBe(true);
    await h.close();
  });

  it('re-merges and re-checks a candidate when a person commits on main during the check, losing nothing', async () => {
    let h: MemoryHost | undefined;
    const checks = new Checks(async (_check, call) => {
      if (call === 1) {
        const fs = h!.volume as unknown as FsClient;
        h!.volume.writeFileSync('/repo/PERSON.md', 'by hand\n');
        await git.add({ fs, dir: '/repo', filepath: 'PERSON.md' });
        const who = { name: 'person', email: 'p@example.invalid', timestamp: 1_800_000_000, timezoneOffset: 0 };
        await git.commit({ fs, dir: '/repo', message: 'by hand', author: who, committer: who });
      }
      return {};
    });
    h = await host(checks);
    await h.prepare({ conversation: 'a' });
    await work(h, 'a', 'src/c.ts', 'c\n');
    const report = await h.lander.run();
    expect(report.landed).toHaveLength(1);
    expect(checks.calls).toHaveLength(2);
    expect(await mainFile(h, 'PERSON.md')).toBe('by hand\n');
    expect(await mainFile(h, 'src/c.ts')).toBe('c\n');
    expect(h.events().map((e) => e.type)).toContain('lander.target_moved');
    await h.close();
  });

  it('keeps a local landing when the remote rejects, and pushes exactly that sha when it accepts', async () => {
    const h = await host(new Checks(), { lander: { checks: [], push: 'origin' } }, { remotes: ['origin'] });
    await h.prepare({ conversation: 'a' });
    await work(h, 'a', 'src/c.ts', 'c\n');
    h.volume.writeFileSync('/remotes/origin.git/gatefs-reject-pushes', '10');
    const first = await h.lander.run();
    expect(first.pushPending).toHaveLength(1);
    const [sub] = h.lander.status();
    expect(sub).toMatchObject({ state: 'landed', pushAttempts: 3 });
    expect(await mainFile(h, 'src/c.ts')).toBe('c\n');
    expect(h.messages('a')).toEqual([]);
    h.volume.writeFileSync('/remotes/origin.git/gatefs-reject-pushes', '0');
    const second = await h.lander.run();
    expect(second.landed).toEqual([sub!.id]);
    const fs = h.volume as unknown as FsClient;
    expect(await git.resolveRef({ fs, gitdir: '/remotes/origin.git', ref: 'refs/heads/main' })).toBe(sub!.landedSha);
    expect(h.lander.status()[0]!.landedSha).toBe(sub!.landedSha);
    expect(h.messages('a').filter((m) => m.kind === 'report')).toHaveLength(1);
    await h.close();
  });

  it('lands locally when the remote cannot be reached, and pushes once it is there', async () => {
    const h = await host(new Checks(), { lander: { checks: [], push: 'origin' } });
    await h.prepare({ conversation: 'a' });
    await work(h, 'a', 'src/c.ts', 'c\n');
    const first = await h.lander.run();
    expect(first).toMatchObject({ landed: [], failed: [], pushPending: [expect.any(String)] });
    const [sub] = h.lander.status();
    expect(sub).toMatchObject({ state: 'landed', pushedSha: null });
    expect(sub!.pushError).toMatch(/^remote 'origin' unreachable: /);
    expect(await mainFile(h, 'src/c.ts')).toBe('c\n');
    expect(h.events().map((e) => e.type)).toContain('lander.remote_unreachable');
    await createMemoryRemote(h.volume, 'origin');
    expect((await h.lander.run()).landed).toEqual([sub!.id]);
    const fs = h.volume as unknown as FsClient;
    expect(await git.resolveRef({ fs, gitdir: '/remotes/origin.git', ref: 'refs/heads/main' })).toBe(sub!.landedSha);
    expect(h.lander.status()[0]).toMatchObject({ state: 'done', pushedSha: sub!.landedSha, pushError: null });
    await h.close();
  });

  it('re-merges onto a remote another lander moved, checks the re-merge and pushes it; landed.sha stays', async () => {
    let h: MemoryHost | undefined;
    let theirs = '';
    const checks = new Checks(async (_check, call) => {
      // While the second submission is checked, another host pushes a commit of its own.
      if (call === 2) theirs = await pushToRemote(h!, 'THEIRS.md', 'theirs\n');
      return {};
    });
    h = await host(checks, { lander: { checks: ['npm test'], push: 'origin' } }, { remotes: ['origin'] });
    for (const c of ['a', 'b']) await h.prepare({ conversation: c });
    await work(h, 'a', 'src/from-a.ts', 'a\n');
    expect((await h.lander.run()).landed).toHaveLength(1);
    await work(h, 'b', 'src/from-b.ts', 'b\n');
    const report = await h.lander.run();
    expect(report).toMatchObject({ landed: [expect.any(String)], pushPending: [] });
    expect(checks.calls).toHaveLength(3);
    const sub = h.lander.status()[1]!;
    const fs = h.volume as unknown as FsClient;
    const remoteHead = await git.resolveRef({ fs, gitdir: '/remotes/origin.git', ref: 'refs/heads/main' });
    expect(sub.pushedSha).toBe(remoteHead);
    expect(sub.pushedSha).not.toBe(sub.landedSha);
    const { commit } = await git.readCommit({ fs, dir: '/repo', oid: sub.pushedSha! });
    expect(commit.parent).toEqual([theirs, sub.landedSha]);
    expect(await git.resolveRef({ fs, dir: '/repo', ref: 'refs/heads/main' })).toBe(sub.pushedSha);
    for (const [path, content] of [
      ['THEIRS.md', 'theirs\n'],
      ['src/from-a.ts', 'a\n'],
      ['src/from-b.ts', 'b\n'],
    ] as const)
      expect(await mainFile(h, path)).toBe(content);
    expect(h.messages('b').find((m) => m.kind === 'report')?.body).toMatchObject({ landedSha: sub.landedSha, pushedSha: sub.pushedSha });
    await h.close();
  });

  it('refuses to queue a branch with nothing to land', async () => {
    const h = await host();
    await h.prepare({ conversation: 'a' });
    expect(await h.gate.call('a', 'submit', { divergence: 'None' })).toMatchObject({ ok: false, error: { code: 'QUEUE_REJECTED' } });
    expect(await h.gate.call('a', 'commit', { message: 'nothing' })).toMatchObject({ ok: true, value: { files: [] } });
    await h.close();
  });

  it('answers NOT_A_WORKTREE to diff, commit and submit in a copy workspace, which has no branch of its own', async () => {
    const tools = ['read', 'write', 'diff', 'commit', 'submit'];
    const h = await createMemoryHost({ files, manifest: { roles: [{ name: 'agent', tools, workspace: { backend: 'copy' } }] } });
    await h.prepare({ conversation: 'c' });
    expect((await h.gate.call('c', 'write', { path: 'new.txt', content: 'n\n' })).ok).toBe(true);
    for (const [tool, args] of [
      ['diff', {}],
      ['commit', { message: 'new' }],
      ['submit', { divergence: 'None' }],
    ] as const) {
      const result = await h.gate.call('c', tool, args);
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'NOT_A_WORKTREE', message: expect.stringContaining('not a git worktree') },
      });
    }
    expect(h.lander.status()).toEqual([]);
    await h.close();
  });

  it('gives a byte-identical run log for the same landing scenario', async () => {
    const run = async () => {
      const h = await host(new Checks((_c, call) => (call === 2 ? { exitCode: 2, output: 'boom' } : {})));
      await h.prepare({ conversation: 'a' });
      await h.prepare({ conversation: 'b' });
      await work(h, 'a', 'src/from-a.ts', 'a\n');
      await work(h, 'b', 'src/from-b.ts', 'b\n');
      await h.lander.run();
      const out = { events: JSON.stringify(h.events()), messages: JSON.stringify(h.messages()), queue: JSON.stringify(h.lander.status()) };
      await h.close();
      return out;
    };
    const one = await run();
    const two = await run();
    expect(two).toEqual(one);
    expect(one.events).toContain('lander.reported');
    expect(one.events).toContain('lander.failed');
  });
});

describe('subagents on the memory host', () => {
  it('starts a child from its parent’s branch, lands it by fast-forward, and releases it', async () => {
    const h = await host();
    await h.prepare({ conversation: 'p' });
    await h.gate.call('p', 'write', { path: 'src/p.ts', content: 'p\n' });
    await h.gate.call('p', 'commit', { message: 'parent work' });
    await h.subagents.start({ parent: 'p', child: 'k' });
    expect(h.status().find((s) => s.conversation === 'k')).toMatchObject({ parent: 'p', state: 'ready' });
    expect(await h.gate.call('k', 'read', { path: 'src/p.ts' })).toMatchObject({ ok: true });
    await h.gate.call('k', 'write', { path: 'src/k.ts', content: 'k\n' });
    await expect(h.subagents.land('k')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE' });
    await h.gate.call('k', 'commit', { message: 'child work' });
    await expect(h.release('k')).rejects.toMatchObject({ code: 'NOT_CLEAN' });
    const landed = await h.subagents.land('k');
    expect(landed).toMatchObject({ parent: 'p', commits: 1 });
    expect(await h.gate.call('p', 'read', { path: 'src/k.ts' })).toMatchObject({ ok: true, value: { content: 'k\n' } });
    expect(h.status().find((s) => s.conversation === 'k')).toMatchObject({ state: 'released' });
    const chains = h.events().filter((e) => e.type === 'exec' || e.type === 'subagent.start');
    expect(chains.length).toBeGreaterThan(0);
    await h.close();
  });

  it('discards a clean child and keeps its branch', async () => {
    const h = await host();
    await h.prepare({ conversation: 'p' });
    await h.subagents.start({ parent: 'p', child: 'k' });
    await h.gate.call('k', 'write', { path: 'src/k.ts', content: 'k\n' });
    await h.gate.call('k', 'commit', { message: 'child work' });
    await h.subagents.discard('k');
    const fs = h.volume as unknown as FsClient;
    expect(await git.resolveRef({ fs, dir: '/repo', ref: 'refs/heads/gatefs/k' })).toMatch(/^[0-9a-f]{40}$/);
    expect(h.status().find((s) => s.conversation === 'k')).toMatchObject({ state: 'released' });
    await h.close();
  });
});
