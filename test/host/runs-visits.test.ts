/**
 * Runs and visits, on the memory host and on the disk host (real git, real SQLite): the n-th
 * conversation of a role in a run is its visit n, numbered per role and per run; `max_visits` is
 * refused at prepare with nothing left behind (no folder, no branch, no workspace, no visit); a run
 * an `end` ended takes no new conversation; a prepared conversation keeps its visit (a released
 * one still counts); concurrent preparations get distinct numbers; `status` shows run and visit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/index.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { systemClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';
import { isWorkspaceError } from '../../src/workspace-error.js';
import { makeTempRepo } from './temp-repo.js';

const manifest = {
  roles: [
    { name: 'implementer', max_visits: 2, tools: ['read', 'write', 'edit'], workspace: { backend: 'worktree' } },
    { name: 'reviewer', tools: ['read', 'grep'], workspace: { backend: 'copy' } },
  ],
};
const files = { 'README.md': '# runs\n', 'src/a.ts': 'export const a = 1;\n' };

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A host of one kind, with what a test looks at: the store, a workspace folder, a conversation's branch. */
interface World {
  host: Host;
  store: StateStore;
  /** True when the workspace folder of `conversation` (worktree or copy) exists. */
  hasFolder(conversation: string): boolean;
  /** True when the branch `gatefs/<conversation>` exists. */
  hasBranch(conversation: string): boolean;
}

const kinds: [string, (m?: object) => Promise<World>][] = [
  [
    'memory host',
    async (m = manifest) => {
      const host = await createMemoryHost({ files, manifest: m });
      cleanups.push(() => host.close());
      // The memory host's own store (tests may reach internals; nothing public ends a run yet).
      const store = (host as unknown as { parts: { store: StateStore } }).parts.store;
      return {
        host,
        store,
        hasFolder: (c) => host.volume.existsSync(`/state/worktrees/${c}`) || host.volume.existsSync(`/state/copies/${c}`),
        hasBranch: (c) => host.volume.existsSync(`/repo/.git/refs/heads/gatefs/${c}`),
      };
    },
  ],
  [
    'disk host',
    async (m = manifest) => {
      const repo = makeTempRepo(files);
      cleanups.push(() => repo.cleanup());
      const host = await createHost({ repo: repo.dir, manifest: m });
      cleanups.push(() => host.close());
      // A second connection to the same database, as another process would have.
      const store = StateStore.open(join(repo.dir, '.gatefs/gatefs.db'), { clock: systemClock });
      cleanups.push(() => store.close());
      const state = join(repo.dir, '.gatefs');
      return {
        host,
        store,
        hasFolder: (c) => existsSync(join(state, 'worktrees', c)) || existsSync(join(state, 'copies', c)),
        hasBranch: (c) => execFileSync('git', ['branch', '--list', `gatefs/${c}`], { cwd: repo.dir, encoding: 'utf8' }).trim() !== '',
      };
    },
  ],
];

/** The error `fn` rejects with (fails the test when it resolves). */
async function refusal(fn: () => Promise<unknown>): Promise<{ code: string; data: Record<string, unknown> }> {
  try {
    await fn();
  } catch (e) {
    if (isWorkspaceError(e)) return { code: e.code, data: { ...e.data } };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe.each(kinds)('runs and visits (%s)', (_kind, make) => {
  it('numbers visits per role and per run, and status shows run and visit', async () => {
    const { host } = await make();
    const a1 = await host.prepare({ conversation: 'a1', role: 'implementer', run: 'r1' });
    const a2 = await host.prepare({ conversation: 'a2', role: 'implementer', run: 'r1' });
    const b1 = await host.prepare({ conversation: 'b1', role: 'reviewer', run: 'r1' });
    const c1 = await host.prepare({ conversation: 'c1', role: 'implementer', run: 'r2' });
    const d = await host.prepare({ conversation: 'd', role: 'reviewer' });
    expect([a1, a2, b1, c1, d].map((s) => [s.conversation, s.run, s.visit])).toEqual([
      ['a1', 'r1', 1],
      ['a2', 'r1', 2],
      ['b1', 'r1', 1],
      ['c1', 'r2', 1],
      ['d', 'default', 1],
    ]);
    expect(host.status().map((s) => [s.conversation, s.run, s.visit])).toEqual([
      ['a1', 'r1', 1],
      ['a2', 'r1', 2],
      ['b1', 'r1', 1],
      ['c1', 'r2', 1],
      ['d', 'default', 1],
    ]);
    expect(host.events({ type: 'run.visit' }).map((e) => [e.conversation, e.data])).toEqual([
      ['a1', { run: 'r1', role: 'implementer', visit: 1 }],
      ['a2', { run: 'r1', role: 'implementer', visit: 2 }],
      ['b1', { run: 'r1', role: 'reviewer', visit: 1 }],
      ['c1', { run: 'r2', role: 'implementer', visit: 1 }],
      ['d', { run: 'default', role: 'reviewer', visit: 1 }],
    ]);
  });

  it('refuses a visit past max_visits with VISITS_EXHAUSTED and leaves nothing behind; another run is not affected', async () => {
    const { host, store, hasFolder, hasBranch } = await make();
    await host.prepare({ conversation: 'a1', role: 'implementer', run: 'r1' });
    await host.prepare({ conversation: 'a2', role: 'implementer', run: 'r1' });
    const refused = await refusal(() => host.prepare({ conversation: 'a3', role: 'implementer', run: 'r1' }));
    expect(refused).toEqual({
      code: 'VISITS_EXHAUSTED',
      data: { conversation: 'a3', run: 'r1', role: 'implementer', maxVisits: 2, visits: 2 },
    });
    expect(host.status().map((s) => s.conversation)).toEqual(['a1', 'a2']);
    expect([hasFolder('a3'), hasBranch('a3'), store.runs.visitOf('a3')]).toEqual([false, false, undefined]);
    expect([hasFolder('a2'), hasBranch('a2')]).toEqual([true, true]);
    // The same conversation id in another run is a first visit there.
    expect(await host.prepare({ conversation: 'a3', role: 'implementer', run: 'r2' })).toMatchObject({ run: 'r2', visit: 1 });
  });

  it('keeps the visit of a prepared conversation; another run for it is RUN_MISMATCH', async () => {
    const { host } = await make();
    await host.prepare({ conversation: 'a1', role: 'implementer', run: 'r1' });
    expect(await host.prepare({ conversation: 'a1' })).toMatchObject({ role: 'implementer', run: 'r1', visit: 1 });
    expect(await host.prepare({ conversation: 'a1', role: 'implementer', run: 'r1' })).toMatchObject({ run: 'r1', visit: 1 });
    expect(await refusal(() => host.prepare({ conversation: 'a1', run: 'r2' }))).toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'RUN_MISMATCH', run: 'r1', visit: 1 },
    });
    expect(host.events({ type: 'run.visit' })).toHaveLength(1);
    expect(host.status()).toMatchObject([{ conversation: 'a1', state: 'ready', run: 'r1', visit: 1 }]);
  });

  it('counts a released conversation: its number is not given again, and it may come back with it', async () => {
    const { host } = await make();
    await host.prepare({ conversation: 'a1', role: 'implementer', run: 'r1' });
    await host.prepare({ conversation: 'a2', role: 'implementer', run: 'r1' });
    await host.release('a1');
    expect((await refusal(() => host.prepare({ conversation: 'a3', role: 'implementer', run: 'r1' }))).code).toBe('VISITS_EXHAUSTED');
    expect(await host.prepare({ conversation: 'a1', role: 'implementer', run: 'r1' })).toMatchObject({ state: 'ready', visit: 1 });
  });

  it('gives concurrent preparations of one run distinct numbers, and refuses the one past max_visits whole', async () => {
    const { host, store, hasFolder, hasBranch } = await make();
    const reviewers = await Promise.all(['b1', 'b2', 'b3', 'b4'].map((c) => host.prepare({ conversation: c, role: 'reviewer', run: 'r' })));
    expect(reviewers.map((s) => s.visit).sort()).toEqual([1, 2, 3, 4]);
    const outcomes = await Promise.allSettled(
      ['a1', 'a2', 'a3'].map((c) => host.prepare({ conversation: c, role: 'implementer', run: 'r' })),
    );
    const made = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(made.map((s) => s.visit).sort()).toEqual([1, 2]);
    expect(refused).toHaveLength(1);
    expect(isWorkspaceError(refused[0], 'VISITS_EXHAUSTED')).toBe(true);
    const loser = (refused[0] as { data: { conversation: string } }).data.conversation;
    expect([hasFolder(loser), hasBranch(loser), store.runs.visitOf(loser)]).toEqual([false, false, undefined]);
    expect(host.status().map((s) => s.conversation)).not.toContain(loser);
  });

  it('refuses a new conversation in a run an end ended (RUN_ENDED); the ending conversation is still served', async () => {
    const { host, store, hasFolder } = await make();
    await host.prepare({ conversation: 'a1', role: 'implementer', run: 'r1' });
    const ended = store.runs.recordHandoff({
      run: 'r1',
      conversation: 'a1',
      role: 'implementer',
      visit: 1,
      kind: 'end',
      to: null,
      message: 'done',
      folder: null,
      artifacts: [],
    });
    expect(ended?.kind).toBe('end');
    expect(await refusal(() => host.prepare({ conversation: 'b1', role: 'reviewer', run: 'r1' }))).toEqual({
      code: 'RUN_ENDED',
      data: { conversation: 'b1', run: 'r1', endedBy: 'a1' },
    });
    expect([hasFolder('b1'), store.runs.visitOf('b1')]).toEqual([false, undefined]);
    expect(await host.prepare({ conversation: 'a1' })).toMatchObject({ state: 'ready', run: 'r1', visit: 1 });
    expect(await host.prepare({ conversation: 'b1', role: 'reviewer', run: 'r2' })).toMatchObject({ run: 'r2', visit: 1 });
  });

  it('refuses a run name outside the conversation-id grammar with BAD_RUN_NAME, making nothing', async () => {
    const { host, hasFolder } = await make();
    for (const run of ['Big', '../x', '', 'a b', 'x'.repeat(64)]) {
      expect(await refusal(() => host.prepare({ conversation: 'a1', role: 'implementer', run }))).toMatchObject({
        code: 'PREPARATION_FAILED',
        data: { reason: 'BAD_RUN_NAME' },
      });
    }
    expect([hasFolder('a1'), host.status()]).toEqual([false, []]);
  });

  it("starts a subagent in its parent's run", async () => {
    const { host } = await make({
      roles: [{ name: 'implementer', tools: ['read', 'write', 'commit'], workspace: { backend: 'worktree' } }],
    });
    await host.prepare({ conversation: 'p', run: 'r7' });
    const child = await host.subagents.start({ parent: 'p', child: 'k' });
    expect(child).toMatchObject({ conversation: 'k', run: 'r7', visit: 2, parent: 'p' });
  });

  it("refuses a subagent past its role's max_visits in the run, recording no lineage and making nothing", async () => {
    const { host, store, hasFolder, hasBranch } = await make({
      roles: [{ name: 'implementer', max_visits: 1, tools: ['read', 'write', 'commit'], workspace: { backend: 'worktree' } }],
    });
    await host.prepare({ conversation: 'p', run: 'r7' });
    expect((await refusal(() => host.subagents.start({ parent: 'p', child: 'k' }))).code).toBe('VISITS_EXHAUSTED');
    expect([hasFolder('k'), hasBranch('k'), store.runs.visitOf('k'), store.lineage.of('k').parent]).toEqual([
      false,
      false,
      undefined,
      null,
    ]);
    expect(host.status().map((s) => s.conversation)).toEqual(['p']);
  });
});

describe('two hosts over one state directory (two database connections, as two processes)', () => {
  it('give concurrent preparations of one run distinct visit numbers', async () => {
    const repo = makeTempRepo(files);
    cleanups.push(() => repo.cleanup());
    const one = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => one.close());
    const two = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => two.close());
    const made = await Promise.all(
      ['b1', 'b2', 'b3', 'b4'].map((c, i) => (i % 2 === 0 ? one : two).prepare({ conversation: c, role: 'reviewer', run: 'r' })),
    );
    expect(made.map((s) => s.visit).sort()).toEqual([1, 2, 3, 4]);
    expect(
      one
        .status()
        .map((s) => s.visit)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
  });
});

describe('a workspace prepared before runs existed', () => {
  it('shows no run and no visit, and takes its visit when it is prepared again', async () => {
    const repo = makeTempRepo(files);
    cleanups.push(() => repo.cleanup());
    const first = await createHost({ repo: repo.dir, manifest });
    await first.prepare({ conversation: 'old', role: 'reviewer' });
    await first.close();
    // What a database migrated from before runs holds: the workspace, no visit row.
    const store = StateStore.open(join(repo.dir, '.gatefs/gatefs.db'), { clock: systemClock });
    (store as unknown as { db: { exec(sql: string): void } }).db.exec('DELETE FROM visits; DELETE FROM runs;');
    store.close();
    const host = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => host.close());
    expect(host.status()).toMatchObject([{ conversation: 'old', state: 'ready', run: null, visit: null }]);
    expect(await host.prepare({ conversation: 'old' })).toMatchObject({ role: 'reviewer', run: 'default', visit: 1 });
  });
});

describe('startRunVisit after the workspace is made', () => {
  it('refuses, recording nothing, when another preparer took the last visit since the check before making it', async () => {
    const { refuseVisit, startRunVisit } = await import('../../src/host/lifecycle/run-visit.js');
    const { loadManifest } = await import('../../src/manifest/index.js');
    const { ManualClock } = await import('../../src/ports/index.js');
    const store = StateStore.open(':memory:', { clock: new ManualClock() });
    cleanups.push(() => store.close());
    const implementer = loadManifest(manifest).roles[0]!;
    store.runs.startVisit('a1', 'r', 'implementer', () => true);
    refuseVisit(store, 'a3', implementer, 'r'); // one visit left: allowed before making
    store.runs.startVisit('a2', 'r', 'implementer', () => true); // a concurrent preparer takes it
    expect(() => startRunVisit(store, 'a3', implementer, 'r')).toThrow(expect.objectContaining({ code: 'VISITS_EXHAUSTED' }));
    expect(store.runs.visitOf('a3')).toBeUndefined();
    expect(store.runLog.read({ type: 'run.visit' })).toEqual([]);
    store.runs.recordHandoff({
      run: 'r',
      conversation: 'a1',
      role: 'implementer',
      visit: 1,
      kind: 'end',
      to: null,
      message: null,
      folder: null,
      artifacts: [],
    });
    const reviewer = loadManifest(manifest).roles[1]!;
    expect(() => startRunVisit(store, 'b1', reviewer, 'r')).toThrow(expect.objectContaining({ code: 'RUN_ENDED' }));
    expect(startRunVisit(store, 'b1', reviewer, undefined)).toMatchObject({ run: 'default', visit: 1 });
  });
});

describe('the disclosure record', () => {
  it("carries the role's visit in the run and counts requests apart", async () => {
    const host = await createMemoryHost({
      files: { 'README.md': '# r\n', 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' },
      manifest: {
        roles: [
          {
            name: 'reader',
            tools: ['read', 'request_files'],
            workspace: { backend: 'worktree', progressive_disclosure: { initial_paths: ['README.md'], allowed_paths: ['src'] } },
          },
        ],
      },
    });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'one', run: 'r' });
    await host.prepare({ conversation: 'two', run: 'r' });
    await host.gate.call('two', 'request_files', { paths: ['src/a.ts'], reason: 'first' });
    await host.gate.call('two', 'request_files', { paths: ['src/b.ts'], reason: 'second' });
    await host.gate.call('one', 'request_files', { paths: ['src/a.ts'], reason: 'mine' });
    const records = host.events({ type: 'progressive_disclosure' }).map((e) => [e.conversation, e.data.visit, e.data.request]);
    expect(records).toEqual([
      ['two', 2, 1],
      ['two', 2, 2],
      ['one', 1, 1],
    ]);
  });
});
