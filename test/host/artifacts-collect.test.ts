/**
 * Collecting a handoff's files, tried as an agent smuggling files would, on the disk host and the
 * memory host alike: each declared file gets its documented record (src/host/artifacts/
 * rejection-codes.ts) — a symlink, a path outside the workspace, a file in a read-only or a
 * writable mount, a folder, a `../` escape, a file not yet disclosed to a sparse role, a
 * duplicate, one exactly at `max_file_bytes` (collected) and one byte over, the 33rd of 33 — and
 * what is collected is in the host-owned store: one object per content (the same inode in every
 * folder), hard-linked at `<stateDir>/artifacts/<run>/<role>-v<visit>/<path>`, mode 0444.
 */
import * as nodeFs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { toolResultText } from '../../src/mcp/text/tool-text.js';
import { ARTIFACT_REJECTION_DOCS } from '../../src/host/artifacts/rejection-codes.js';
import type { HandoffValue } from '../../tools/handoff-requests.js';
import { makeTempRepo } from './temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const FILES = { 'README.md': '# demo\n', '.campaign/brief.md': 'the brief\n', 'src/secret.ts': 'export const s = 1;\n' };

/** What a test needs of either host: the host, and the "disk" under it. */
interface World {
  host: Host;
  stateDir: string;
  /** A writable and a read-only absolute mount folder. */
  data: string;
  ro: string;
  fs: Pick<typeof nodeFs, 'writeFileSync' | 'mkdirSync' | 'symlinkSync' | 'statSync' | 'readdirSync' | 'existsSync' | 'readFileSync'>;
  workspace(conversation: string): string;
}

function manifestFor(data: string, ro: string) {
  return {
    roles: [
      {
        name: 'maker',
        tools: ['read', 'write', 'handoff', 'end'],
        workspace: {
          backend: 'worktree',
          mounts: [
            { path: '.campaign', writable: false },
            { path: data, writable: true },
            { path: ro, writable: false },
          ],
        },
        artifacts: { auto_patch: false, max_file_bytes: 1000, max_files: 32 },
      },
      {
        name: 'sparse',
        tools: ['read', 'request_files', 'handoff'],
        workspace: { backend: 'worktree', progressive_disclosure: { initial_paths: ['README.md'], allowed_paths: ['src'] } },
        artifacts: { auto_patch: false },
      },
      { name: 'checker', tools: ['read', 'handoff', 'end'], workspace: { backend: 'copy' } },
      { name: 'user-checkout', tools: ['read', 'handoff'], workspace: { backend: 'shared' } },
    ],
  };
}

async function memoryWorld(): Promise<World> {
  const data = '/data/out';
  const ro = '/data/ro';
  const host = await createMemoryHost({
    files: FILES,
    manifest: manifestFor(data, ro),
    folders: { [data]: { 'x.txt': 'x' }, [ro]: { 'y.txt': 'y' } },
  });
  cleanups.push(() => host.close());
  const fs = host.volume as unknown as World['fs'];
  return { host, stateDir: '/state', data, ro, fs, workspace: (c) => `/state/worktrees/${c}` };
}

async function diskWorld(): Promise<World> {
  const repo = makeTempRepo(FILES);
  cleanups.push(() => repo.cleanup());
  const outside = mkdtempSync(join(tmpdir(), 'gatefs-mounts-'));
  cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
  const data = join(outside, 'out');
  const ro = join(outside, 'ro');
  nodeFs.mkdirSync(data);
  nodeFs.mkdirSync(ro);
  nodeFs.writeFileSync(join(data, 'x.txt'), 'x');
  nodeFs.writeFileSync(join(ro, 'y.txt'), 'y');
  const host = await createHost({ repo: repo.dir, manifest: manifestFor(data, ro) });
  cleanups.push(() => host.close());
  const stateDir = join(repo.dir, '.gatefs');
  return { host, stateDir, data, ro, fs: nodeFs, workspace: (c) => join(stateDir, 'worktrees', c) };
}

async function handoff(host: Host, conversation: string, args: object): Promise<HandoffValue> {
  const result = await host.gate.call(conversation, 'handoff', args);
  if (!result.ok) throw new Error(`handoff failed: ${result.error.code} ${result.error.message}`);
  return result.value as HandoffValue;
}

describe.each([
  ['memory', memoryWorld],
  ['disk', diskWorld],
] as const)('on the %s host', (_name, makeWorld) => {
  it("gives every smuggling attempt its documented record, and collects only the workspace's own regular files", async () => {
    const w = await makeWorld();
    const { host, fs } = w;
    await host.prepare({ conversation: 'm1', role: 'maker', run: 'r1' });
    const write = async (path: string, content: string) => {
      const r = await host.gate.call('m1', 'write', { path, content });
      expect(r.ok, JSON.stringify(r)).toBe(true);
    };
    await write('out/at-cap.txt', 'a'.repeat(1000));
    await write('out/over.txt', 'b'.repeat(1001));
    await write('out/target.txt', 'the target\n');
    fs.symlinkSync('out/target.txt', join(w.workspace('m1'), 'link.txt'));
    fs.symlinkSync('/etc', join(w.workspace('m1'), 'etc-link'));

    const value = await handoff(host, 'm1', {
      to: 'checker',
      message: 'done',
      files: [
        'out/at-cap.txt',
        'out/over.txt',
        'link.txt',
        'etc-link/passwd',
        '/etc/passwd',
        '.campaign/brief.md',
        `${w.data}/x.txt`,
        `${w.ro}/y.txt`,
        'out',
        '../other/x.txt',
        './out/at-cap.txt',
        'missing.txt',
        '/worktrees/m1/out/target.txt',
      ],
    });
    expect(value).toMatchObject({ run: 'r1', visit: 1, to: 'checker', patch: null });
    expect(value.collected).toEqual([
      { path: 'out/at-cap.txt', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: 1000 },
      { path: 'out/target.txt', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: 11 },
    ]);
    expect(value.rejected.map((r) => [r.path, r.code])).toEqual([
      ['out/over.txt', 'TOO_LARGE'],
      ['link.txt', 'SYMLINK'],
      ['etc-link/passwd', 'SYMLINK_ESCAPE'],
      ['/etc/passwd', 'OUTSIDE_WORKSPACE'],
      ['.campaign/brief.md', 'OUTSIDE_WORKSPACE'],
      [`${w.data}/x.txt`, 'OUTSIDE_WORKSPACE'],
      [`${w.ro}/y.txt`, 'OUTSIDE_WORKSPACE'],
      ['out', 'NOT_REGULAR_FILE'],
      ['../other/x.txt', 'PATH_ESCAPE'],
      ['out/at-cap.txt', 'DUPLICATE'],
      ['missing.txt', 'NOT_FOUND'],
    ]);
    for (const r of value.rejected) {
      expect(r.reason.length, r.code).toBeGreaterThan(10);
      // Every code is documented in one place.
      expect(Object.keys(ARTIFACT_REJECTION_DOCS)).toContain(r.code);
    }
    expect(value.rejected.find((r) => r.code === 'TOO_LARGE')?.reason).toContain('1000 bytes');
    // What an MCP client shows the agent: each rejection with its code and reason, and that the visit ended.
    const text = toolResultText('handoff', { ok: true, value });
    expect(text).toContain('handed off to checker in run r1 (visit 1 of this role): 2 file(s) collected, 11 rejected');
    expect(text).toContain('rejected link.txt: SYMLINK (');
    expect(text).toContain('VISIT_ENDED');

    // The store: the handoff's folder holds the collected files, nothing else, as links to read-only objects.
    const folder = join(w.stateDir, 'artifacts/r1/maker-v1');
    expect(fs.readFileSync(join(folder, 'out/at-cap.txt'), 'utf8')).toBe('a'.repeat(1000));
    expect(fs.readdirSync(join(folder, 'out')).sort()).toEqual(['at-cap.txt', 'target.txt']);
    expect(fs.readdirSync(folder)).toEqual(['out']);
    const object = join(w.stateDir, 'artifacts/objects', value.collected[0]!.sha256);
    expect(fs.statSync(join(folder, 'out/at-cap.txt')).ino).toBe(fs.statSync(object).ino);
    expect(fs.statSync(object).mode & 0o777).toBe(0o444);

    // The records, in declared order, as the operator reads them.
    const status = host.runs.status('r1');
    expect(status.handoffs).toHaveLength(1);
    expect(status.handoffs[0]).toMatchObject({ kind: 'handoff', to: 'checker', folder: 'maker-v1', message: 'done', visit: 1 });
    expect(status.handoffs[0]!.artifacts.map((a) => (a.record === 'artifact_collected' ? 'ok' : a.code))).toEqual([
      'ok',
      'TOO_LARGE',
      'SYMLINK',
      'SYMLINK_ESCAPE',
      'OUTSIDE_WORKSPACE',
      'OUTSIDE_WORKSPACE',
      'OUTSIDE_WORKSPACE',
      'OUTSIDE_WORKSPACE',
      'NOT_REGULAR_FILE',
      'PATH_ESCAPE',
      'DUPLICATE',
      'NOT_FOUND',
      'ok',
    ]);
    const listed = host.runs.artifacts('r1').filter((a) => a.record === 'artifact_collected');
    expect(listed.map((a) => a.storePath)).toEqual([join(folder, 'out/at-cap.txt'), join(folder, 'out/target.txt')]);
    const types = host.events().map((e) => e.type);
    expect(types.filter((t) => t === 'artifact.collected')).toHaveLength(2);
    expect(types.filter((t) => t === 'artifact.rejected')).toHaveLength(11);
    expect(types).toContain('handoff.accepted');

    // A visit ends once: the tool and the host API both refuse a second handoff, and the workspace still serves.
    const again = await host.gate.call('m1', 'handoff', { to: 'checker', files: ['out/at-cap.txt'] });
    expect(again.ok ? 'ok' : again.error.code).toBe('VISIT_ENDED');
    await expect(host.runs.handoff('m1', { to: 'checker' })).rejects.toMatchObject({ code: 'VISIT_ENDED' });
    expect((await host.gate.call('m1', 'read', { path: 'out/target.txt' })).ok).toBe(true);
    expect(host.runs.status('r1').handoffs).toHaveLength(1);
  });

  it('collects the first 32 of 33 files, stores identical content once, and the 33rd is TOO_MANY_FILES', async () => {
    const w = await makeWorld();
    const { host, fs } = w;
    await host.prepare({ conversation: 'm2', role: 'maker', run: 'r2' });
    await host.prepare({ conversation: 'm3', role: 'maker', run: 'r2' });
    const names = Array.from({ length: 33 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);
    for (const name of names) expect((await host.gate.call('m2', 'write', { path: name, content: `same\n` })).ok).toBe(true);
    expect((await host.gate.call('m3', 'write', { path: 'copy.txt', content: 'same\n' })).ok).toBe(true);
    const first = await handoff(host, 'm2', { to: 'checker', files: names });
    expect(first.collected).toHaveLength(32);
    expect(first.rejected).toEqual([{ path: 'f32.txt', code: 'TOO_MANY_FILES', reason: expect.stringContaining('32') }]);
    const second = await handoff(host, 'm3', { to: 'checker', files: ['copy.txt'] });
    expect(second.visit).toBe(2);
    const sha = second.collected[0]!.sha256;
    expect(new Set(first.collected.map((c) => c.sha256))).toEqual(new Set([sha]));
    // One object, the same inode in both visits' folders.
    const objects = fs.readdirSync(join(w.stateDir, 'artifacts/objects')).map(String);
    expect(objects.filter((o) => o === sha)).toHaveLength(1);
    expect(objects.filter((o) => o.startsWith('.tmp-'))).toEqual([]);
    const inode = fs.statSync(join(w.stateDir, 'artifacts/objects', sha)).ino;
    expect(fs.statSync(join(w.stateDir, 'artifacts/r2/maker-v1/f00.txt')).ino).toBe(inode);
    expect(fs.statSync(join(w.stateDir, 'artifacts/r2/maker-v2/copy.txt')).ino).toBe(inode);
  });

  it("refuses what a sparse role never saw, a shared role's files and an unknown role; end ends the run", async () => {
    const w = await makeWorld();
    const { host } = w;
    await host.prepare({ conversation: 's1', role: 'sparse', run: 'r3' });
    const sparse = await handoff(host, 's1', { to: 'maker', files: ['README.md', 'src/secret.ts'] });
    expect(sparse.collected.map((c) => c.path)).toEqual(['README.md']);
    expect(sparse.rejected.map((r) => [r.path, r.code])).toEqual([['src/secret.ts', 'NOT_DISCLOSED']]);

    await host.prepare({ conversation: 'u1', role: 'user-checkout', run: 'r3' });
    const unknown = await host.gate.call('u1', 'handoff', { to: 'nobody', files: ['README.md'] });
    expect(unknown.ok ? 'ok' : unknown.error.code).toBe('INVALID_INPUT');
    expect(unknown.ok ? '' : unknown.error.message).toContain('maker, sparse, checker, user-checkout');
    const shared = await handoff(host, 'u1', { to: 'checker', files: ['README.md'] });
    expect(shared.collected).toEqual([]);
    expect(shared.rejected.map((r) => [r.path, r.code])).toEqual([['README.md', 'NOT_ISOLATED']]);
    expect(host.runs.status('r3').handoffs.map((h) => h.folder)).toEqual(['sparse-v1', null]);

    await host.prepare({ conversation: 'c1', role: 'checker', run: 'r3' });
    await host.prepare({ conversation: 'c2', role: 'checker', run: 'r3' });
    const ended = await host.gate.call('c1', 'end', { message: 'all good' });
    expect(ended.ok && ended.value).toMatchObject({ run: 'r3', visit: 1, patch: null });
    expect(host.runs.status('r3').run).toMatchObject({ run: 'r3', endedBy: 'c1' });
    // c2's visit is open, but its run is over.
    const late = await host.gate.call('c2', 'handoff', { to: 'maker', files: [] });
    expect(late.ok ? 'ok' : late.error.code).toBe('VISIT_ENDED');
    expect(host.events().filter((e) => e.type === 'run.ended')).toHaveLength(1);
    expect(host.runs.list().map((r) => r.run)).toContain('r3');
    expect(() => host.runs.status('nope')).toThrow(expect.objectContaining({ code: 'UNKNOWN_RUN' }));
  });
});

describe('collecting large files on the disk host', () => {
  it("serves another conversation's calls while 32 files of 1 MiB are collected, and collects them whole", {
    timeout: 120_000,
  }, async () => {
    const w = await diskWorld();
    const { host, fs } = w;
    await host.prepare({ conversation: 'big', role: 'checker', run: 'r9' });
    await host.prepare({ conversation: 'other', role: 'maker', run: 'r9' });
    const root = w.workspace('big').replace('/worktrees/', '/copies/');
    const names = Array.from({ length: 32 }, (_, i) => `big/f${i}.bin`);
    fs.mkdirSync(join(root, 'big'), { recursive: true });
    for (const [i, name] of names.entries()) fs.writeFileSync(join(root, name), Buffer.alloc(1024 * 1024, i));
    const order: string[] = [];
    const handing = host.gate.call('big', 'handoff', { to: 'maker', files: names }).then((r) => {
      order.push('handoff');
      return r;
    });
    const reading = host.gate.call('other', 'read', { path: 'README.md' }).then((r) => {
      order.push('read');
      return r;
    });
    const [handed, read] = await Promise.all([handing, reading]);
    expect(read.ok).toBe(true);
    // The other conversation's read did not wait for the 32 MiB.
    expect(order).toEqual(['read', 'handoff']);
    const value = handed.ok ? (handed.value as HandoffValue) : null;
    expect(value?.collected).toHaveLength(32);
    expect(value?.collected.every((c) => c.bytes === 1024 * 1024)).toBe(true);
    const stored = fs.readFileSync(join(w.stateDir, 'artifacts/r9/checker-v1/big/f7.bin'));
    expect(stored.equals(Buffer.alloc(1024 * 1024, 7))).toBe(true);
  });
});
