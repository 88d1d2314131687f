/**
 * Routing collected artifacts to receivers, on the memory host and on the disk host (real git,
 * real SQLite, real folders): an isolated receiver reads a handoff's files read-only at
 * `artifacts/<role>-v<visit>/`, and nothing there can be changed; another role of the run and a
 * receiver of another run see nothing; a handoff that lands later shows on the receiver's next
 * call; a `shared` receiver reads its seed inventory at `/artifacts/inventory.json`, and
 * `host.inventory` answers the same; a link planted in the store folder is never followed out.
 *
 * The handoffs are seeded as the collection leaves them: files in the store folder, then the one
 * `recordHandoff` record.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/index.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import type { StateStore } from '../../src/state/index.js';
import type { HandoffDraft } from '../../src/state/run-table.js';
import { makeTempRepo } from './temp-repo.js';

const tools = ['read', 'write', 'edit', 'delete', 'move', 'list', 'grep'];
const manifest = {
  roles: [
    { name: 'planner', tools: [...tools, 'handoff'], workspace: { backend: 'worktree' } },
    { name: 'coder', tools: [...tools, 'handoff'], workspace: { backend: 'worktree' } },
    { name: 'tester', tools, workspace: { backend: 'copy' } },
    { name: 'scratch', tools, workspace: { backend: 'empty' } },
    { name: 'reviewer', tools, workspace: { backend: 'shared' } },
  ],
};
const files = { 'README.md': '# routing\n', 'src/a.ts': 'export const a = 1;\n' };

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A host of one kind and what a test does behind it: the store, and files in the state directory. */
interface World {
  host: Host;
  store: StateStore;
  stateDir: string;
  /** Writes a file (folders made) at a host path. */
  put(path: string, content: string): void;
  /** Plants a symbolic link at a host path. */
  link(target: string, path: string): void;
  /** Reads a host file. */
  read(path: string): string;
  /** True when a host path exists. */
  exists(path: string): boolean;
}

const kinds: [string, () => Promise<World>][] = [
  [
    'memory host',
    async () => {
      const host = await createMemoryHost({ files, manifest, folders: { '/outside': { 'secret.txt': 'outside secret\n' } } });
      cleanups.push(() => host.close());
      const v = host.volume;
      return {
        host,
        store: (host as unknown as { parts: { store: StateStore } }).parts.store,
        stateDir: '/state',
        put: (path, content) => {
          v.mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
          v.writeFileSync(path, content);
        },
        link: (target, path) => v.symlinkSync(target, path),
        read: (path) => String(v.readFileSync(path, 'utf8')),
        exists: (path) => v.existsSync(path),
      };
    },
  ],
  [
    'disk host',
    async () => {
      const repo = makeTempRepo(files);
      cleanups.push(() => repo.cleanup());
      writeFileSync(join(repo.dir, '..', `${repo.dir.split('/').pop()}-outside.txt`), 'outside secret\n');
      const host = await createHost({ repo: repo.dir, manifest });
      cleanups.push(() => host.close());
      return {
        host,
        store: (host as unknown as { parts: { store: StateStore } }).parts.store,
        stateDir: join(repo.dir, '.gatefs'),
        put: (path, content) => {
          mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
          writeFileSync(path, content);
        },
        link: (target, path) => symlinkSync(target, path),
        read: (path) => readFileSync(path, 'utf8'),
        exists: (path) => {
          try {
            readFileSync(path);
            return true;
          } catch {
            return false;
          }
        },
      };
    },
  ],
];

/**
 * A handoff from `conversation` (its visit of `role` in `run`, started here when it has none) to
 * `to`, its files stored first as a collection leaves them. Answers the folder's host path.
 */
function seedHandoff(
  w: World,
  from: { conversation: string; role: string; run: string; to: string },
  collected: Record<string, string>,
  rejected: { path: string; code: string; reason: string }[] = [],
): string {
  const visit = w.store.runs.visitOf(from.conversation) ?? w.store.runs.startVisit(from.conversation, from.run, from.role, () => true);
  const folder = Object.keys(collected).length > 0 ? `${from.role}-v${visit?.visit}` : null;
  for (const [path, content] of Object.entries(collected)) w.put(`${w.stateDir}/artifacts/${from.run}/${folder}/${path}`, content);
  const draft: HandoffDraft = {
    run: from.run,
    conversation: from.conversation,
    role: from.role,
    visit: visit?.visit ?? 0,
    kind: 'handoff',
    to: from.to,
    message: null,
    folder,
    artifacts: [
      ...Object.entries(collected).map(([path, content]) => ({
        record: 'artifact_collected' as const,
        path,
        sha256: 'a'.repeat(64),
        bytes: Buffer.byteLength(content),
      })),
      ...rejected.map((r) => ({ record: 'artifact_rejected' as const, ...r })),
    ],
  };
  expect(w.store.runs.recordHandoff(draft)).toBeDefined();
  return `${w.stateDir}/artifacts/${from.run}/${folder}`;
}

async function value(host: Host, conversation: string, tool: string, args: unknown): Promise<Record<string, unknown>> {
  const r = await host.gate.call(conversation, tool, args);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
  return r.value as Record<string, unknown>;
}

async function codeOf(host: Host, conversation: string, tool: string, args: unknown): Promise<string> {
  const r = await host.gate.call(conversation, tool, args);
  return r.ok ? 'ok' : r.error.code;
}

const names = (v: Record<string, unknown>) => (v.entries as { path: string }[]).map((e) => e.path.split('/').pop());

describe.each(kinds)('artifact routing (%s)', (_kind, make) => {
  it('an isolated receiver reads the handed files read-only at artifacts/<role>-v<visit>/, and no one else sees them', async () => {
    const w = await make();
    const { host } = w;
    await host.prepare({ conversation: 'p1', role: 'planner', run: 'r1' });
    await host.prepare({ conversation: 'c1', role: 'coder', run: 'r1' });
    await host.prepare({ conversation: 't1', role: 'tester', run: 'r1' });
    await host.prepare({ conversation: 'c2', role: 'coder', run: 'r2' });
    seedHandoff(w, { conversation: 'p1', role: 'planner', run: 'r1', to: 'coder' }, { 'notes.md': '# plan\n', 'docs/spec.md': 'spec\n' });

    expect(await value(host, 'c1', 'read', { path: 'artifacts/planner-v1/notes.md' })).toMatchObject({
      content: expect.stringContaining('# plan'),
    });
    expect(await value(host, 'c1', 'read', { path: '/worktrees/c1/artifacts/planner-v1/docs/spec.md' })).toMatchObject({
      content: expect.stringContaining('spec'),
    });
    expect(names(await value(host, 'c1', 'list', { path: '.' }))).toContain('artifacts');
    expect(names(await value(host, 'c1', 'list', { path: 'artifacts' }))).toEqual(['planner-v1']);

    // Nothing there can be changed, and the store keeps its bytes.
    expect(await codeOf(host, 'c1', 'write', { path: 'artifacts/planner-v1/notes.md', content: 'x' })).toBe('READ_ONLY');
    expect(await codeOf(host, 'c1', 'write', { path: 'artifacts/planner-v1/new.md', content: 'x' })).toBe('READ_ONLY');
    expect(await codeOf(host, 'c1', 'edit', { path: 'artifacts/planner-v1/notes.md', oldString: 'plan', newString: 'x' })).toBe(
      'READ_ONLY',
    );
    expect(await codeOf(host, 'c1', 'delete', { path: 'artifacts/planner-v1/notes.md' })).toBe('READ_ONLY');
    expect(await codeOf(host, 'c1', 'move', { from: 'artifacts/planner-v1/notes.md', to: 'notes.md' })).toBe('READ_ONLY');
    expect(await codeOf(host, 'c1', 'move', { from: 'README.md', to: 'artifacts/planner-v1/README.md' })).toBe('READ_ONLY');
    expect(await codeOf(host, 'c1', 'move', { from: 'artifacts/planner-v1', to: 'plan' })).toBe('READ_ONLY');
    expect(await codeOf(host, 'c1', 'delete', { path: 'artifacts' })).toBe('CROSS_MOUNT');
    expect(w.read(`${w.stateDir}/artifacts/r1/planner-v1/notes.md`)).toBe('# plan\n');
    expect(await value(host, 'c1', 'read', { path: 'README.md' })).toMatchObject({ content: expect.stringContaining('routing') });

    // Another role of the run, the emitter itself, and the same role in another run see nothing.
    for (const other of ['t1', 'p1', 'c2']) {
      expect(await codeOf(host, other, 'read', { path: 'artifacts/planner-v1/notes.md' }), other).toBe('NOT_FOUND');
    }
    // Nothing was copied into the receiver's worktree.
    expect(w.exists(`${w.stateDir}/worktrees/c1/artifacts/planner-v1/notes.md`)).toBe(false);
  });

  it('a handoff that lands after the receiver was prepared shows on its next call, in every isolated backend', async () => {
    const w = await make();
    const { host } = w;
    await host.prepare({ conversation: 'c1', role: 'coder', run: 'r1' });
    await host.prepare({ conversation: 'c2', role: 'coder', run: 'r1' });
    await host.prepare({ conversation: 't1', role: 'tester', run: 'r1' });
    await host.prepare({ conversation: 'e1', role: 'scratch', run: 'r1' });
    expect(await codeOf(host, 'c1', 'read', { path: 'artifacts/planner-v1/notes.md' })).toBe('NOT_FOUND');
    seedHandoff(w, { conversation: 'p1', role: 'planner', run: 'r1', to: 'coder' }, { 'notes.md': 'first\n' });
    expect(await value(host, 'c1', 'read', { path: 'artifacts/planner-v1/notes.md' })).toMatchObject({
      content: expect.stringContaining('first'),
    });
    expect(await value(host, 'c2', 'read', { path: 'artifacts/planner-v1/notes.md' })).toMatchObject({
      content: expect.stringContaining('first'),
    });
    // A handoff to another role changes nothing for the coders; the tester and the scratch role get theirs.
    seedHandoff(w, { conversation: 'c2', role: 'coder', run: 'r1', to: 'tester' }, { 'out/report.txt': 'report\n' });
    expect(names(await value(host, 'c1', 'list', { path: 'artifacts' }))).toEqual(['planner-v1']);
    expect(await value(host, 't1', 'read', { path: 'artifacts/coder-v2/out/report.txt' })).toMatchObject({
      content: expect.stringContaining('report'),
    });
    expect(await codeOf(host, 't1', 'write', { path: 'artifacts/coder-v2/out/report.txt', content: 'x' })).toBe('READ_ONLY');
    seedHandoff(w, { conversation: 't1', role: 'tester', run: 'r1', to: 'scratch' }, { 'r.txt': 'r\n' });
    expect(await value(host, 'e1', 'read', { path: 'artifacts/tester-v1/r.txt' })).toMatchObject({ content: expect.stringContaining('r') });
    expect(await codeOf(host, 'e1', 'delete', { path: 'artifacts/tester-v1/r.txt' })).toBe('READ_ONLY');
  });

  it("a routed folder shadows the receiver's own folder of that name, read-only; the rest of its artifacts/ stays its own", async () => {
    const w = await make();
    const { host } = w;
    await host.prepare({ conversation: 'c1', role: 'coder', run: 'r1' });
    await value(host, 'c1', 'write', { path: 'artifacts/mine.txt', content: 'mine\n' });
    await value(host, 'c1', 'write', { path: 'artifacts/planner-v1/own.txt', content: 'own\n' });
    seedHandoff(w, { conversation: 'p1', role: 'planner', run: 'r1', to: 'coder' }, { 'notes.md': 'plan\n' });
    expect(names(await value(host, 'c1', 'list', { path: 'artifacts' }))).toEqual(['mine.txt', 'planner-v1']);
    expect(names(await value(host, 'c1', 'list', { path: 'artifacts/planner-v1' }))).toEqual(['notes.md']);
    expect(await codeOf(host, 'c1', 'read', { path: 'artifacts/planner-v1/own.txt' })).toBe('NOT_FOUND');
    expect(await value(host, 'c1', 'write', { path: 'artifacts/mine.txt', content: 'mine 2\n' })).toBeDefined();
    // The worktree's own file is still there on disk, untouched.
    expect(w.read(`${w.stateDir}/worktrees/c1/artifacts/planner-v1/own.txt`)).toBe('own\n');
  });

  it('a shared receiver reads its seed inventory at /artifacts/inventory.json; host.inventory answers the same', async () => {
    const w = await make();
    const { host } = w;
    await host.prepare({ conversation: 's1', role: 'reviewer', run: 'r1' });
    await host.prepare({ conversation: 'c1', role: 'coder', run: 'r1' });
    const empty = JSON.parse(
      String((await value(host, 's1', 'read', { path: '/artifacts/inventory.json' })).content).replace(/^ *\d+\t/gm, ''),
    );
    expect(empty).toMatchObject({ run: 'r1', conversation: 's1', role: 'reviewer', visit: 1, available: [], unavailable: [] });

    seedHandoff(w, { conversation: 'c1', role: 'coder', run: 'r1', to: 'reviewer' }, { 'src/patch.ts': 'export {};\n' }, [
      { path: 'big.bin', code: 'TOO_LARGE', reason: 'more than 1048576 bytes' },
    ]);
    const storePath = `${w.stateDir}/artifacts/r1/coder-v1/src/patch.ts`;
    const expected = {
      run: 'r1',
      conversation: 's1',
      role: 'reviewer',
      visit: 1,
      available: [
        {
          from: { role: 'coder', visit: 1, conversation: 'c1' },
          path: 'src/patch.ts',
          sha256: 'a'.repeat(64),
          bytes: 11,
          storePath,
        },
      ],
      unavailable: [
        { from: { role: 'coder', visit: 1, conversation: 'c1' }, path: 'big.bin', code: 'TOO_LARGE', reason: 'more than 1048576 bytes' },
      ],
    };
    const read = await value(host, 's1', 'read', { path: '/artifacts/inventory.json' });
    const shown = JSON.parse(String(read.content).replace(/^ *\d+\t/gm, ''));
    expect(shown).toMatchObject(expected);
    expect(host.inventory('s1')).toEqual(shown);
    expect(w.read(storePath)).toBe('export {};\n');
    expect(await codeOf(host, 's1', 'write', { path: '/artifacts/inventory.json', content: '{}' })).toBe('READ_ONLY');
    expect(await codeOf(host, 's1', 'delete', { path: '/artifacts/inventory.json' })).toBe('READ_ONLY');

    // An isolated receiver's inventory names where its workspace shows each file.
    await host.prepare({ conversation: 's2', role: 'coder', run: 'r2' });
    expect(host.inventory('c1')).toMatchObject({ run: 'r1', role: 'coder', available: [], unavailable: [] });
    seedHandoff(w, { conversation: 's1', role: 'reviewer', run: 'r1', to: 'coder' }, { 'review.md': 'ok\n' });
    expect(host.inventory('c1').available).toEqual([
      {
        from: { role: 'reviewer', visit: 1, conversation: 's1' },
        handoff: expect.any(Number),
        path: 'review.md',
        sha256: 'a'.repeat(64),
        bytes: 3,
        workspacePath: 'artifacts/reviewer-v1/review.md',
      },
    ]);
    expect(await value(host, 'c1', 'read', { path: 'artifacts/reviewer-v1/review.md' })).toMatchObject({
      content: expect.stringContaining('ok'),
    });
    expect(() => host.inventory('nobody')).toThrow(expect.objectContaining({ code: 'UNKNOWN_CONVERSATION' }));
  });

  it('a link planted in the store folder is never followed out of it', async () => {
    const w = await make();
    const { host } = w;
    await host.prepare({ conversation: 'c1', role: 'coder', run: 'r1' });
    const folder = seedHandoff(w, { conversation: 'p1', role: 'planner', run: 'r1', to: 'coder' }, { 'notes.md': 'plan\n' });
    const outside =
      _kind === 'memory host' ? '/outside/secret.txt' : join(w.stateDir, '..', '..', `${w.stateDir.split('/').at(-2)}-outside.txt`);
    expect(w.read(outside)).toBe('outside secret\n');
    w.link(outside, `${folder}/leak.txt`);
    w.link('/', `${folder}/root`);
    for (const path of ['artifacts/planner-v1/leak.txt', 'artifacts/planner-v1/root/etc/hostname', 'artifacts/planner-v1/root']) {
      const r = await host.gate.call('c1', 'read', { path });
      expect(r.ok, path).toBe(false);
      expect(JSON.stringify(r)).not.toContain('outside secret');
    }
    const grep = await host.gate.call('c1', 'grep', { pattern: 'secret', path: 'artifacts' });
    expect(JSON.stringify(grep)).not.toContain('outside secret');
    expect(await value(host, 'c1', 'read', { path: 'artifacts/planner-v1/notes.md' })).toMatchObject({
      content: expect.stringContaining('plan'),
    });
  });

  it('through the handoff tool: the receiver reads what was collected, a routed file is never collected again, a shared receiver is told at once', async () => {
    const w = await make();
    const { host } = w;
    await host.prepare({ conversation: 'p1', role: 'planner', run: 'r1' });
    await host.prepare({ conversation: 'c1', role: 'coder', run: 'r1' });
    await host.prepare({ conversation: 's1', role: 'reviewer', run: 'r1' });
    await value(host, 'p1', 'write', { path: 'notes.md', content: '# plan\n' });
    await value(host, 'p1', 'write', { path: 'plan/steps.md', content: '1. do\n' });
    const handed = await value(host, 'p1', 'handoff', { to: 'coder', files: ['notes.md', 'plan/steps.md', 'nope.md'] });
    expect(handed).toMatchObject({
      to: 'coder',
      collected: [{ path: 'notes.md' }, { path: 'plan/steps.md' }],
      rejected: [{ path: 'nope.md', code: 'NOT_FOUND' }],
    });
    expect(await value(host, 'c1', 'read', { path: 'artifacts/planner-v1/plan/steps.md' })).toMatchObject({ content: '1. do\n' });
    expect(await codeOf(host, 'c1', 'write', { path: 'artifacts/planner-v1/notes.md', content: 'forged' })).toBe('READ_ONLY');
    expect(host.inventory('c1')).toMatchObject({
      available: [
        { path: 'notes.md', workspacePath: 'artifacts/planner-v1/notes.md', bytes: 7 },
        { path: 'plan/steps.md', workspacePath: 'artifacts/planner-v1/plan/steps.md' },
      ],
      unavailable: [{ path: 'nope.md', code: 'NOT_FOUND' }],
    });

    // The coder passes a routed file on as its own: it lies in a read-only mount, not in its workspace.
    await value(host, 'c1', 'write', { path: 'src/fix.ts', content: 'export const fix = 1;\n' });
    const passed = await value(host, 'c1', 'handoff', { to: 'reviewer', files: ['src/fix.ts', 'artifacts/planner-v1/notes.md'] });
    expect(passed).toMatchObject({ collected: [{ path: 'src/fix.ts' }], rejected: [{ path: 'artifacts/planner-v1/notes.md' }] });
    // The shared receiver's inventory was written when the handoff was recorded, before any call of its own.
    const file = JSON.parse(w.read(`${w.stateDir}/artifacts/r1/inventory/s1/inventory.json`));
    expect(file).toMatchObject({
      available: [{ path: 'src/fix.ts', storePath: `${w.stateDir}/artifacts/r1/coder-v1/src/fix.ts` }],
      unavailable: [{ path: 'artifacts/planner-v1/notes.md' }],
    });
    expect(w.read(`${w.stateDir}/artifacts/r1/coder-v1/src/fix.ts`)).toBe('export const fix = 1;\n');
    expect(file).toEqual(host.inventory('s1'));
    const read = await value(host, 's1', 'read', { path: '/artifacts/inventory.json' });
    expect(JSON.parse(String(read.content))).toEqual(file);
  });
});

describe('artifact routing across processes sharing a state directory (disk host)', () => {
  it("a handoff another host records shows on the receiver's next call here, and the shared receiver reads its new inventory", async () => {
    const repo = makeTempRepo(files);
    cleanups.push(() => repo.cleanup());
    const here = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => here.close());
    await here.prepare({ conversation: 'p1', role: 'planner', run: 'r1' });
    await here.prepare({ conversation: 'c1', role: 'coder', run: 'r1' });
    await here.prepare({ conversation: 's1', role: 'reviewer', run: 'r1' });
    expect(await codeOf(here, 'c1', 'read', { path: 'artifacts/planner-v1/notes.md' })).toBe('NOT_FOUND');
    expect(JSON.parse(String((await value(here, 's1', 'read', { path: '/artifacts/inventory.json' })).content))).toMatchObject({
      available: [],
    });

    const there = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => there.close());
    await value(there, 'p1', 'write', { path: 'notes.md', content: 'from there\n' });
    await value(there, 'p1', 'handoff', { to: 'coder', files: ['notes.md'] });
    await value(there, 'c1', 'write', { path: 'fix.md', content: 'fixed\n' });
    await value(there, 'c1', 'handoff', { to: 'reviewer', files: ['fix.md'] });

    expect(await value(here, 'c1', 'read', { path: 'artifacts/planner-v1/notes.md' })).toMatchObject({ content: 'from there\n' });
    const inventory = JSON.parse(String((await value(here, 's1', 'read', { path: '/artifacts/inventory.json' })).content));
    expect(inventory).toMatchObject({ available: [{ path: 'fix.md', from: { conversation: 'c1', role: 'coder', visit: 1 } }] });
    expect(readFileSync(inventory.available[0].storePath, 'utf8')).toBe('fixed\n');
  });
});
