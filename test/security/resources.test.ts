/**
 * Resources (docs/ARCHITECTURE.md § Trust boundary, "Resources"): a walk holds a bounded number of
 * descriptors whatever the depth, deep chains answer correctly or `TOO_DEEP`, and running out
 * of descriptors answers `BUSY` (retryable), never `INTERNAL`.
 *
 * The chains are real folders 2,030 levels deep (deeper than any host path can name, made
 * through /proc/self/fd), with a side folder every 100 levels so every walk has to come back
 * up and reopen ancestors it let go of. Limits are real: child processes started under
 * `prlimit --nofile=N`, and a child that opens /dev/null until the kernel says EMFILE.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { openHostLayer } from '../../vfs/host-layer.js';
import { walkLayer } from '../../vfs/layer.js';
import { makeTempRepo } from '../host/temp-repo.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { addWorkspace, setupGate } from '../tools/workspace-fixture.js';
import { makeChain, removeDeep } from './deep-chain.js';
import { RUN_TYPESCRIPT } from '../run-typescript.js';
import { descriptorsUnder } from '../open-descriptors.js';

const DEPTH = 2030;
const SIDE_EVERY = 100;
const MANIFEST = { roles: [{ name: 'r', tools: ['read', 'grep', 'list', 'edit', 'write'], workspace: { backend: 'worktree' } }] };
const here = dirname(fileURLToPath(import.meta.url));
/** The child host, run from its source (test/run-typescript.ts). */
const childScript = join(here, 'resources-child.ts');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The repository with one README; removed (deep chains and all) after the test. */
function repo() {
  const r = makeTempRepo({ 'README.md': 'hello\n' });
  cleanups.push(() => removeDeep(dirname(r.dir)));
  return r;
}

/** What a search for `needle|side ` must find in the chain, in tree order (deepest first: 'd' < 'z'). */
function expectedFiles(depth = DEPTH): string[] {
  const out = [`${'d/'.repeat(depth)}needle.txt`];
  for (let level = Math.floor(depth / SIDE_EVERY) * SIDE_EVERY; level >= SIDE_EVERY; level -= SIDE_EVERY)
    out.push(`${'d/'.repeat(level - 1)}z/side.txt`);
  return out;
}

const CHAIN = { depth: DEPTH, sideEvery: SIDE_EVERY, bottom: { 'needle.txt': 'needle\n' } };
const LIST = { tool: 'list', args: { pattern: '**/*.txt', maxResults: 100 } };
const GREP = { tool: 'grep', args: { pattern: 'needle|side ', maxResults: 100 } };

type Line = { op: string; out?: any; error?: string };

/** Runs the child host with `steps`, under `prlimit --nofile=<limit>` when given. */
async function runChild(input: object, limit?: number): Promise<{ lines: Line[]; code: number | null; stderr: string }> {
  const argv = [process.execPath, ...RUN_TYPESCRIPT, childScript, JSON.stringify(input)];
  const [cmd, ...args] = limit ? ['prlimit', `--nofile=${limit}:${limit}`, ...argv] : argv;
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((res) => child.on('close', res));
  return {
    lines: stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line),
    code,
    stderr,
  };
}

describe('a walk holds a bounded number of descriptors', () => {
  it('12 lists and 12 greps at once over a 2,030-deep chain all answer, with every file', async () => {
    const r = repo();
    const host = await createHost({ repo: r.dir, manifest: MANIFEST });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'deep' });
    makeChain(join(r.dir, '.gatefs/worktrees/deep'), CHAIN);
    const calls = Array.from({ length: 12 }, () => [
      host.gate.call('deep', LIST.tool, LIST.args),
      host.gate.call('deep', GREP.tool, GREP.args),
    ]).flat();
    const results = await Promise.all(calls);
    const want = expectedFiles();
    for (const [i, result] of results.entries()) {
      expect(result).toMatchObject({ ok: true });
      const value = (result as { value: { entries?: { path: string }[]; files?: string[] } }).value;
      expect(i % 2 === 0 ? value.entries!.map((e) => e.path) : value.files).toEqual(want);
    }
    // And the content of the deepest file is reachable by its (4,070-byte) path.
    expect(await host.gate.call('deep', 'read', { path: `${'d/'.repeat(DEPTH)}needle.txt` })).toMatchObject({
      ok: true,
      value: { content: 'needle\n' },
    });
  }, 120_000);

  it('under a 256-descriptor limit, one grep and one list answer correctly, and under 1,024 one grep', async () => {
    const r = repo();
    const steps = [
      { op: 'prepare', conversation: 'deep' },
      { op: 'chain', conversation: 'deep', ...CHAIN },
      { op: 'call', conversation: 'deep', ...GREP },
      { op: 'call', conversation: 'deep', ...LIST },
    ];
    const low = await runChild({ repo: r.dir, manifest: MANIFEST, steps }, 256);
    expect(low.stderr).toBe('');
    expect(low.lines.map((l) => l.error ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(low.lines[2].out).toMatchObject({ ok: true, value: { files: expectedFiles(), truncated: false } });
    expect(low.lines[3].out.value.entries.map((e: { path: string }) => e.path)).toEqual(expectedFiles());

    const mid = await runChild({ repo: r.dir, manifest: MANIFEST, steps: [{ op: 'call', conversation: 'deep', ...GREP }] }, 1024);
    expect(mid.stderr).toBe('');
    expect(mid.lines[0].out).toMatchObject({ ok: true, value: { files: expectedFiles(), truncated: false } });
  }, 120_000);

  it('a real EMFILE answers BUSY (never INTERNAL), and the same calls answer once descriptors are free', async () => {
    const r = repo();
    r.write({ 'src/a.ts': 'export const needle = 1;\n' });
    r.commit('a');
    const calls = [
      { tool: 'grep', args: { pattern: 'needle' } },
      { tool: 'list', args: { pattern: '**' } },
      { tool: 'read', args: { path: 'src/a.ts' } },
      { tool: 'write', args: { path: 'src/b.ts', content: 'b\n' } },
      { tool: 'edit', args: { path: 'src/a.ts', oldString: 'needle', newString: 'pin' } },
    ];
    // The same calls in a worktree and in a copy (whose unchanged files come from git objects).
    const manifest = { roles: [MANIFEST.roles[0], { ...MANIFEST.roles[0], name: 'cp', workspace: { backend: 'copy' } }] };
    const round = (conversation: string) => calls.map((c) => ({ op: 'call', conversation, ...c }));
    const steps = [
      { op: 'prepare', conversation: 'c' },
      { op: 'prepare', conversation: 'k', role: 'cp' },
      { op: 'hog', leave: 0 },
      ...round('c'),
      ...round('k'),
      { op: 'unhog' },
      ...round('c'),
      ...round('k'),
    ];
    const run = await runChild({ repo: r.dir, manifest, steps }, 512);
    expect(run.stderr).toBe('');
    const [preparedC, preparedK, hog, ...rest] = run.lines;
    expect([preparedC.error, preparedK.error]).toEqual([undefined, undefined]);
    expect(hog.out.hogged).toBeGreaterThan(400);
    const outcome = (l: Line) => (l.out?.ok ? 'ok' : (l.out?.code ?? l.error));
    const n = calls.length;
    expect(rest.slice(0, 2 * n).map(outcome)).toEqual([...calls, ...calls].map(() => 'BUSY'));
    expect(rest.slice(2 * n + 1).map(outcome)).toEqual([...calls, ...calls].map(() => 'ok'));
    expect(rest[2 * n + 1].out.value.files).toEqual(['src/a.ts']);
    expect(rest[3 * n + 1].out.value.files).toEqual(['src/a.ts']);
  });

  it('one walk over a 2,030-deep chain never holds more than 33 descriptors, and meets every folder', async () => {
    const base = makeTempRepo().dir;
    cleanups.push(() => removeDeep(dirname(base)));
    makeChain(base, { depth: DEPTH, sideEvery: SIDE_EVERY, bottom: { 'needle.txt': 'needle\n' } });
    const layer = openHostLayer(base);
    cleanups.push(() => layer.close());
    const open = () => descriptorsUnder(base);
    const before = open();
    let most = 0;
    let folders = 0;
    for await (const w of walkLayer(layer, 'd')) {
      folders++;
      if (folders % 7 === 0 || w.path.endsWith('/z')) most = Math.max(most, open() - before);
    }
    // The chain (2,030 folders from d down) plus one side folder every 100 levels.
    expect(folders).toBe(DEPTH + Math.floor(DEPTH / SIDE_EVERY));
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(33);
    expect(open()).toBe(before);
  });

  it('a walk lets go of ancestors and reopens them by (dev, ino): one swapped meanwhile is skipped, nothing read from the replacement', async () => {
    const base = makeTempRepo().dir;
    cleanups.push(() => removeDeep(dirname(base)));
    const root = join(base, 'tree');
    mkdirSync(root);
    // a/b/c/d/e with a sibling file beside each level, and a/x (visited after a/b/… returns).
    mkdirSync(join(root, 'a/b/c/d/e'), { recursive: true });
    mkdirSync(join(root, 'a/x'));
    writeFileSync(join(root, 'a/x/kept.txt'), 'kept\n');
    mkdirSync(join(root, 'a/b/y'));
    writeFileSync(join(root, 'a/b/y/lost.txt'), 'lost\n');
    mkdirSync(join(root, 'impostor/y'), { recursive: true });
    writeFileSync(join(root, 'impostor/y/secret.txt'), 'SENTINEL\n');
    const layer = openHostLayer(root, { walkHandles: { window: 1, checkpointEvery: 1000 } });
    cleanups.push(() => layer.close());
    const seen: string[] = [];
    for await (const w of walkLayer(layer, 'a')) {
      seen.push(w.path);
      // Deep in a/b/c/d/e, a/b's handle is long closed: swap a/b for another folder.
      if (w.path === 'a/b/c/d/e') {
        renameSync(join(root, 'a/b'), join(root, 'gone'));
        renameSync(join(root, 'impostor'), join(root, 'a/b'));
      }
    }
    // a/b/y (in the impostor: a/b/y/secret.txt) is never listed; a/x still is.
    expect(seen).toEqual(['a', 'a/b', 'a/b/c', 'a/b/c/d', 'a/b/c/d/e', 'a/x']);
  });

  it('a chain deeper than any path can name answers TOO_DEEP; a walk from deep inside it answers', async () => {
    const r = repo();
    const host = await createHost({ repo: r.dir, manifest: MANIFEST });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'deeper' });
    makeChain(join(r.dir, '.gatefs/worktrees/deeper'), { depth: 2100, bottom: { 'needle.txt': 'needle\n' } });
    for (const call of [GREP, LIST, { tool: 'list', args: { pattern: '**' } }]) {
      expect(await host.gate.call('deeper', call.tool, call.args)).toMatchObject({ ok: false, error: { code: 'TOO_DEEP' } });
    }
    // The error names the folder the agent gave, not a 4 KiB path.
    const denied = await host.gate.call('deeper', 'grep', { pattern: 'needle', path: 'd/d' });
    expect(denied).toMatchObject({ ok: false, error: { code: 'TOO_DEEP', path: 'd/d' } });
    // Listing one folder deep inside is fine (its entries can be named).
    const deepDir = 'd/'.repeat(2000).slice(0, -1);
    expect(await host.gate.call('deeper', 'list', { path: deepDir })).toMatchObject({
      ok: true,
      value: { entries: [{ path: `${deepDir}/d`, type: 'directory' }] },
    });
    expect(readdirSync(join(r.dir, '.gatefs/worktrees/deeper'))).toContain('d');
  });

  it('the same depth limit holds on layers without the host walk (memory), counted in namespace segments', async () => {
    const s = setupGate();
    // A memory mount 2,040 one-letter segments deep: a file at 2,048 segments (4,096 bytes, the
    // longest path there is) can still be named; a folder there holding anything cannot.
    const mount = `/${Array.from({ length: 2040 }, () => 'p').join('/')}`;
    const layer = new MemoryLayer({ files: { 'a/b/c/d/e/f/g/h': 'needle\n', 'a/b/c/d/e/f/x/y/z': 'needle\n' } });
    addWorkspace(s, 'm', { mounts: [{ path: mount, layer, writable: false }] });
    const fits = `${mount}/a/b/c/d/e/f/g/h`;
    expect(await s.gate.call('m', 'read', { path: fits })).toMatchObject({ ok: true, value: { content: 'needle\n' } });
    expect(await s.gate.call('m', 'grep', { pattern: 'needle', path: mount })).toMatchObject({
      ok: false,
      error: { code: 'TOO_DEEP', path: mount },
    });
    expect(await s.gate.call('m', 'list', { path: mount, pattern: '**' })).toMatchObject({ ok: false, error: { code: 'TOO_DEEP' } });
    await layer.remove('a/b/c/d/e/f/x/y/z');
    expect(await s.gate.call('m', 'grep', { pattern: 'needle', path: mount })).toMatchObject({
      ok: true,
      value: { files: [fits], truncated: false },
    });
  });

  it('the limit holds in bytes too: entries past the 4,096 bytes a path can name answer TOO_DEEP, never paths no tool accepts', async () => {
    // 20 names of 255 bytes: the bottom file lies 5,100 bytes deep, only 20 segments.
    const r = repo();
    const host = await createHost({ repo: r.dir, manifest: MANIFEST });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'long' });
    const name = 'n'.repeat(255);
    makeChain(join(r.dir, '.gatefs/worktrees/long'), { depth: 20, name, bottom: { 'needle.txt': 'needle\n' } });
    for (const call of [GREP, LIST, { tool: 'list', args: { pattern: '**' } }]) {
      const result = await host.gate.call('long', call.tool, call.args);
      expect({ call: call.args, result }).toMatchObject({ result: { ok: false, error: { code: 'TOO_DEEP' } } });
    }
    // A folder whose entries can all be named lists as usual (14 levels: 3,600 bytes, and a name).
    const nameable = Array.from({ length: 14 }, () => name).join('/');
    expect(await host.gate.call('long', 'list', { path: nameable })).toMatchObject({
      ok: true,
      value: { entries: [{ path: `${nameable}/${name}`, type: 'directory' }] },
    });
    // Through a memory layer the same.
    const s = setupGate();
    addWorkspace(s, 'm', { files: { [`${Array.from({ length: 20 }, () => name).join('/')}/needle.txt`]: 'needle\n' } });
    expect(await s.gate.call('m', 'grep', { pattern: 'needle' })).toMatchObject({ ok: false, error: { code: 'TOO_DEEP' } });
  });
});
