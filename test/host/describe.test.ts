/**
 * The execution snapshot (`host.describe`, the `whereami` tool, the MCP resource
 * `gatefs://whereami`, `gatefs describe`), on the memory host and on the disk host: every field
 * for each backend (worktree, shared, copy, empty), after attach, switch (to an attached
 * workspace and to `/home`), give-up and detach; a conversation prepared before migration 11 (no
 * agent row); unknown and released conversations; and never a host path anywhere in the JSON.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { ExecutionSnapshot, Host } from '../../src/host/composition/index.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { ScriptedSandbox } from '../../src/ports/scripted-sandbox.js';
import type { StateStore } from '../../src/state/index.js';
import { isWorkspaceError } from '../../src/workspace-error.js';
import { makeTempRepo } from './temp-repo.js';

const manifest = {
  checks: [
    { name: 'unit', command: 'npx vitest run' },
    { name: 'types', command: 'npx tsc --noEmit' },
  ],
  roles: [
    {
      name: 'impl',
      tools: ['read', 'write', 'exec', 'check', 'whereami'],
      exec: { network: true, timeout: 30 },
      workspace: { backend: 'worktree' },
    },
    { name: 'sharer', tools: ['read', 'whereami'], workspace: { backend: 'shared' } },
    { name: 'copier', tools: ['read', 'exec', 'whereami'], workspace: { backend: 'copy' } },
    { name: 'scratcher', tools: ['read', 'check', 'whereami'], workspace: { backend: 'empty' } },
    { name: 'quiet', tools: ['read'], workspace: { backend: 'copy' } },
  ],
};
const files = { 'README.md': '# describe\n', 'src/a.ts': 'export const a = 1;\n' };

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A host of one kind, its store, and the host paths that must never appear in a snapshot. */
interface World {
  host: Host;
  store: StateStore;
  hostPaths: string[];
}

const storeOf = (host: Host) => (host as unknown as { parts: { store: StateStore } }).parts.store;

const kinds: [string, (sandbox?: ScriptedSandbox) => Promise<World>][] = [
  [
    'memory host',
    async (sandbox) => {
      const host = await createMemoryHost({ files, manifest, ...(sandbox ? { sandbox } : {}) });
      cleanups.push(() => host.close());
      return { host, store: storeOf(host), hostPaths: ['/repo', '/state'] };
    },
  ],
  [
    'disk host',
    async (sandbox) => {
      const repo = makeTempRepo(files);
      cleanups.push(() => repo.cleanup());
      const host = await createHost({ repo: repo.dir, manifest, sandbox: sandbox ?? new ScriptedSandbox() });
      cleanups.push(() => host.close());
      return { host, store: storeOf(host), hostPaths: [repo.dir, join(repo.dir, '.gatefs')] };
    },
  ],
];

/** Prepares the four conversations, one per backend: worktree, shared, copy, empty. */
async function prepareAll(w: World): Promise<void> {
  for (const [conversation, role] of [
    ['w', 'impl'],
    ['s', 'sharer'],
    ['c', 'copier'],
    ['e', 'scratcher'],
  ] as const) {
    await w.host.prepare({ conversation, role });
  }
}

/** The facts of a conversation's own workspace at `/worktrees/<id>`. */
const ownFacts = (id: string, projectionKind: string, accessMode = 'exclusive-write') => ({
  id,
  anchor: `/worktrees/${id}`,
  executionRoot: `/worktrees/${id}`,
  projectionKind,
  accessMode,
});

/** Fails unless no host path occurs in the snapshot's JSON. */
function expectNoHostPath(w: World, snapshot: ExecutionSnapshot): void {
  const json = JSON.stringify(snapshot);
  for (const path of w.hostPaths) expect(json).not.toContain(path);
}

async function refusalOf(fn: () => unknown): Promise<{ code: string; data: Record<string, unknown> }> {
  try {
    await fn();
  } catch (e) {
    if (isWorkspaceError(e)) return { code: e.code, data: { ...e.data } };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe.each(kinds)('the execution snapshot (%s)', (_kind, make) => {
  it('gives every field for each backend', async () => {
    const w = await make();
    await prepareAll(w);
    const { host } = w;

    const wt = host.describe('w');
    expect(wt).toMatchObject({
      conversation: 'w',
      agent: 'impl',
      role: 'impl',
      run: 'default',
      visit: 1,
      active: ownFacts('w', 'git-worktree-root'),
      cwd: '/worktrees/w',
      own: ownFacts('w', 'git-worktree-root'),
      attached: [],
      home: { anchor: '/home', agent: 'impl' },
      worktreeRoot: '/worktrees/w',
      branch: 'gatefs/w',
      policy: {
        tools: ['read', 'write', 'exec', 'check', 'whereami'],
        commands: { exec: true, check: ['unit', 'types'], sandbox: 'scripted', network: true, timeoutSeconds: 30 },
      },
    });
    expect(wt.own.acquiredAt).toEqual(expect.any(Number));
    expect(wt.active).toEqual(wt.own);
    expect(wt.base).toEqual({ ref: 'HEAD', sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(Object.keys(wt).sort()).toEqual(
      [
        'active',
        'agent',
        'attached',
        'base',
        'branch',
        'conversation',
        'cwd',
        'home',
        'own',
        'policy',
        'role',
        'run',
        'visit',
        'worktreeRoot',
      ].sort(),
    );

    // shared: the source checkout, written without a binding (acquiredAt null), no worktree root.
    const sh = host.describe('s');
    expect(sh).toMatchObject({
      own: { ...ownFacts('s', 'canonical-root'), acquiredAt: null },
      active: { ...ownFacts('s', 'canonical-root'), acquiredAt: null },
      cwd: '/worktrees/s',
      worktreeRoot: null,
      branch: null,
      policy: { tools: ['read', 'whereami'], commands: null },
    });

    const cp = host.describe('c');
    expect(cp).toMatchObject({
      own: ownFacts('c', 'copy-overlay'),
      worktreeRoot: null,
      branch: null,
      policy: { commands: { exec: true, check: [], sandbox: 'scripted', network: false, timeoutSeconds: 120 } },
    });
    expect(cp.base.sha).toMatch(/^[0-9a-f]{40}$/);

    const em = host.describe('e');
    expect(em).toMatchObject({
      own: ownFacts('e', 'scratch'),
      worktreeRoot: null,
      branch: null,
      base: { ref: null, sha: null },
      policy: { commands: { exec: false, check: ['unit', 'types'], sandbox: 'scripted' } },
    });
    for (const s of [wt, sh, cp, em]) expectNoHostPath(w, s);
  });

  it('follows attach, switch, give-up and detach (the host API)', async () => {
    const w = await make();
    await prepareAll(w);
    const { host } = w;
    host.attach('w', 'canonical', 'shared-read');
    let s = host.describe('w');
    expect(s.attached).toMatchObject([
      { id: 'canonical', anchor: '/canonical', executionRoot: '/canonical', projectionKind: 'canonical-root', accessMode: 'shared-read' },
    ]);
    expect(s.active.id).toBe('w');
    expect(s.cwd).toBe('/worktrees/w');

    // c gives write up, so w can take it exclusive-write; c's own workspace is read-only to c now.
    host.attach('c', 'c', 'shared-read');
    host.attach('w', 'c', 'exclusive-write');
    expect(host.describe('c').own).toMatchObject({ accessMode: 'shared-read' });
    s = host.describe('w');
    expect(s.attached.map((f) => [f.id, f.anchor, f.projectionKind, f.accessMode])).toEqual([
      ['canonical', '/canonical', 'canonical-root', 'shared-read'],
      ['c', '/worktrees/c', 'copy-overlay', 'exclusive-write'],
    ]);
    expect(s.attached.every((f) => typeof f.acquiredAt === 'number')).toBe(true);

    host.switch('w', 'c');
    s = host.describe('w');
    expect(s.active).toEqual(s.attached[1]);
    expect(s.cwd).toBe('/worktrees/c');
    expect(s.own.id).toBe('w');
    expect(s.worktreeRoot).toBe('/worktrees/w');

    host.switch('w', 'home');
    s = host.describe('w');
    expect(s.active).toEqual({
      id: 'home',
      anchor: '/home',
      executionRoot: '/home',
      projectionKind: 'agent-home',
      accessMode: 'exclusive-write',
      acquiredAt: null,
    });
    expect(s.cwd).toBe('/home');

    host.switch('w', 'c');
    host.detach('w', 'c');
    s = host.describe('w');
    expect(s.active.id).toBe('w');
    expect(s.cwd).toBe('/worktrees/w');
    expect(s.attached.map((f) => f.id)).toEqual(['canonical']);

    // Giving its own write up shows on its own facts (and on the active ones: the same workspace).
    host.attach('w', 'w', 'shared-read');
    s = host.describe('w');
    expect(s.own.accessMode).toBe('shared-read');
    expect(s.active).toEqual(s.own);
    expect(s.attached.map((f) => f.id)).toEqual(['canonical']);
    expectNoHostPath(w, s);

    // A workspace released while attached and active leaves the snapshot; the own one is active again.
    host.attach('w', 'w', 'exclusive-write');
    host.attach('e', 'e', 'shared-read');
    host.attach('w', 'e', 'exclusive-write');
    host.switch('w', 'e');
    expect(host.describe('w').cwd).toBe('/worktrees/e');
    await host.release('e', { discard: true });
    s = host.describe('w');
    expect(s.attached.map((f) => f.id)).toEqual(['canonical']);
    expect(s.active).toEqual(s.own);
    expect(s.own.accessMode).toBe('exclusive-write');
  });

  it('describes a conversation prepared before migration 11 (no agent row) as holding its own workspace', async () => {
    const w = await make();
    await prepareAll(w);
    w.store.bindings.unregister('c');
    const s = w.host.describe('c');
    expect(s).toMatchObject({
      agent: 'copier',
      home: { anchor: '/home', agent: 'copier' },
      active: { ...ownFacts('c', 'copy-overlay'), acquiredAt: null },
      own: { ...ownFacts('c', 'copy-overlay'), acquiredAt: null },
      attached: [],
      cwd: '/worktrees/c',
    });
  });

  it('refuses an unknown conversation and a released one', async () => {
    const w = await make();
    await prepareAll(w);
    expect(await refusalOf(() => w.host.describe('nobody'))).toMatchObject({
      code: 'UNKNOWN_CONVERSATION',
      data: { conversation: 'nobody' },
    });
    await w.host.release('e', { discard: true });
    expect(await refusalOf(() => w.host.describe('e'))).toMatchObject({ code: 'WORKSPACE_RELEASED', data: { conversation: 'e' } });
    expect(await refusalOf(() => w.host.describeProbed('e'))).toMatchObject({ code: 'WORKSPACE_RELEASED' });
  });

  it('answers the same snapshot through the whereami tool, which a role must declare', async () => {
    const w = await make();
    await prepareAll(w);
    await w.host.prepare({ conversation: 'q', role: 'quiet' });
    const r = await w.host.gate.call('w', 'whereami', {});
    expect(r).toEqual({ ok: true, value: w.host.describe('w') });
    expectNoHostPath(w, (r as { value: ExecutionSnapshot }).value);
    expect(await w.host.gate.call('w', 'whereami', { extra: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await w.host.gate.call('q', 'whereami', {})).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_ALLOWED' } });
    expect(w.host.gate.tools('w').map((t) => t.name)).toContain('whereami');
  });

  it('appends nothing to the run log, and the memory host gives the same snapshots and log for the same scenario', async () => {
    const scenario = async () => {
      const w = await make();
      await prepareAll(w);
      w.host.attach('w', 'canonical', 'shared-read');
      const before = w.host.events().length;
      const snapshots = [w.host.describe('w'), await w.host.describeProbed('c'), w.host.describe('s')];
      expect(w.host.events().length).toBe(before);
      await w.host.gate.call('w', 'whereami', {});
      return { snapshots, events: w.host.events() };
    };
    const first = await scenario();
    if (_kind !== 'memory host') return;
    const second = await scenario();
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it('names a sandbox that cannot run as unavailable', async () => {
    const w = await make(new ScriptedSandbox({ cause: 'bubblewrap is not installed', fix: 'install it' }));
    await prepareAll(w);
    expect(w.host.describe('w').policy.commands?.sandbox).toBe('unavailable');
    expect((await w.host.describeProbed('w')).policy.commands?.sandbox).toBe('unavailable');
  });
});

describe('the sandbox fact of the disk host (bubblewrap)', () => {
  it('is unprobed until probed once, then what the probe found; a role without commands never probes', async () => {
    const repo = makeTempRepo(files);
    cleanups.push(() => repo.cleanup());
    const host = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'q', role: 'quiet' });
    expect((await host.describeProbed('q')).policy.commands).toBeNull();
    await host.prepare({ conversation: 'w', role: 'impl' });
    expect(host.describe('w').policy.commands?.sandbox).toBe('unprobed');
    const probed = (await host.describeProbed('w')).policy.commands?.sandbox;
    expect(['bubblewrap', 'unavailable']).toContain(probed);
    expect(host.describe('w').policy.commands?.sandbox).toBe(probed);
  }, 60_000);
});
