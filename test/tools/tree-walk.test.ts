/**
 * The walk under list and grep (tools/tree-walk.ts, tools/walk-folder.ts): the same answers
 * whichever route a read or stat takes, the held-folder route kept through `readOnly()`, and
 * grep's in-walk reads handing larger files and failed reads on to its own read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { VfsError } from '../../vfs/errors.js';
import { openHostLayer, type HostLayer, type HostSeamEvent } from '../../vfs/host-layer.js';
import type { Layer } from '../../vfs/layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { addWorkspace, errorOf, setupGate, valueOf } from './workspace-fixture.js';

const dirs: string[] = [];
const layers: HostLayer[] = [];
afterEach(() => {
  for (const l of layers.splice(0)) l.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A host folder with `files`; `events` gets every read or stat step the layer takes (its layer path). */
function hostTree(files: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-walk-'));
  dirs.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  const events: string[] = [];
  const seen = ({ op, path: p }: HostSeamEvent) => {
    if (op === 'read' || op === 'stat') events.push(p);
  };
  const layer = openHostLayer(dir, { seams: { beforeStep: seen } });
  layers.push(layer);
  return { dir, layer, events };
}

function treeHash(dir: string): string {
  const h = createHash('sha256');
  const visit = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      h.update(`${path.relative(dir, p)}\0`);
      if (fs.lstatSync(p).isDirectory()) visit(p);
      else h.update(fs.readFileSync(p));
    }
  };
  visit(dir);
  return h.digest('hex');
}

const FILES = {
  'README.md': 'needle at the top\n',
  'src/a.ts': 'const needle = 1;\n',
  'src/b.ts': 'nothing\n',
  'src/deep/c.ts': 'needle below\n',
};
const FOLDERS = ['src', 'src/deep'];

describe('the walk over a read-only host mount', () => {
  it('lists and greps as over the writable layer, reaching each file through the folder the walk holds', async () => {
    const writable = hostTree(FILES);
    const ro = hostTree(FILES);
    const s = setupGate();
    addWorkspace(s, 'rw', { layer: writable.layer });
    addWorkspace(s, 'ro', { layer: readOnly(ro.layer) });
    for (const [tool, args] of [
      ['list', { pattern: '**' }],
      ['list', { path: 'src' }],
      ['grep', { pattern: 'needle' }],
      ['grep', { pattern: 'needle', output: 'count' }],
    ] as const) {
      ro.events.length = 0;
      const answer = valueOf(await s.gate.call('ro', tool, args));
      expect(answer).toEqual(valueOf(await s.gate.call('rw', tool, args)));
      // Each file was reached by name inside its folder: no walk from the mount root per file,
      // which would step through 'src' and 'src/deep' again for every file below them.
      expect(ro.events.length).toBeGreaterThan(0);
      expect(ro.events.filter((p) => FOLDERS.includes(p))).toEqual([]);
    }
    expect(valueOf(await s.gate.call('ro', 'grep', { pattern: 'needle' })).files).toEqual(['README.md', 'src/a.ts', 'src/deep/c.ts']);
    // Content output searches the matching files again after the walk (by path), for their lines.
    const content = { pattern: 'needle', output: 'content' };
    expect(valueOf(await s.gate.call('ro', 'grep', content))).toEqual(valueOf(await s.gate.call('rw', 'grep', content)));
  });

  it('still refuses every write, and nothing on disk changes', async () => {
    const ro = hostTree(FILES);
    const before = treeHash(ro.dir);
    const s = setupGate();
    addWorkspace(s, 'ro', { layer: readOnly(ro.layer) });
    expect(valueOf(await s.gate.call('ro', 'grep', { pattern: 'needle' })).files).toHaveLength(3);
    expect(errorOf(await s.gate.call('ro', 'write', { path: 'src/a.ts', content: 'x' })).code).toBe('READ_ONLY');
    expect(errorOf(await s.gate.call('ro', 'edit', { path: 'src/a.ts', oldString: 'needle', newString: 'x' })).code).toBe('READ_ONLY');
    expect(treeHash(ro.dir)).toBe(before);
  });
});

describe('the .gitignore files above a folder the agent names', () => {
  it('apply to a list or grep that starts deep inside, read in one descent: each folder above is stepped through at most twice per call (not once per .gitignore below it, 39 times at the top of a 40-deep chain)', async () => {
    const depth = 40;
    const chain = Array.from({ length: depth }, (_, i) => `f${i}`);
    const deep = chain.join('/');
    const files: Record<string, string> = { '.gitignore': '*.log\n', [`${deep}/keep.ts`]: 'needle\n', [`${deep}/drop.log`]: 'needle\n' };
    files[`${chain.slice(0, 10).join('/')}/.gitignore`] = 'secret-*\n';
    files[`${chain.slice(0, 30).join('/')}/.gitignore`] = '!important.log\n';
    files[`${deep}/secret-x.ts`] = 'needle\n';
    files[`${deep}/important.log`] = 'needle\n';
    const tree = hostTree(files);
    const s = setupGate();
    addWorkspace(s, 'deep', { layer: tree.layer });
    for (const [tool, args] of [
      ['list', { path: deep }],
      ['grep', { pattern: 'needle', path: deep }],
    ] as const) {
      tree.events.length = 0;
      const answer = valueOf(await s.gate.call('deep', tool, args));
      const paths = 'entries' in answer ? answer.entries.map((e: { path: string }) => e.path) : answer.files;
      expect({ tool, paths }).toEqual({ tool, paths: [`${deep}/important.log`, `${deep}/keep.ts`] });
      const steps = new Map<string, number>();
      for (const p of tree.events) steps.set(p, (steps.get(p) ?? 0) + 1);
      const ancestors = chain.slice(0, -1).map((_, i) => chain.slice(0, i + 1).join('/'));
      // The rules are gathered in one descent; the search then reaches the folder once more.
      expect({ tool, stepped: ancestors.filter((a) => (steps.get(a) ?? 0) > 2) }).toEqual({ tool, stepped: [] });
    }
  });
});

describe('grep reads through the walk', () => {
  it('finds a match at the end of a file too large to be read inside the walk, in tree order', async () => {
    const big = `${`${'x'.repeat(80)}\n`.repeat(30_000)}needle at the end\n`; // 2.4 MB
    const { layer } = hostTree({ 'a.txt': 'needle\n', 'b/big.txt': big, 'b/small.txt': 'needle\n', 'c.txt': 'needle\n' });
    const s = setupGate();
    addWorkspace(s, 'a', { layer });
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'needle' })).files).toEqual(['a.txt', 'b/big.txt', 'b/small.txt', 'c.txt']);
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'needle', path: 'b', output: 'content' })).matches).toEqual([
      { path: 'b/big.txt', line: 30_001, text: 'needle at the end' },
      { path: 'b/small.txt', line: 1, text: 'needle' },
    ]);
  });

  it("ends the call with the layer's error when a file cannot be read for another reason than being gone", async () => {
    const inner = new MemoryLayer({ files: { 'a.txt': 'needle\n', 'b.txt': 'needle\n', 'c.txt': 'needle\n' } });
    const failing = (code: 'INTERNAL' | 'NOT_FOUND'): Layer => ({
      kind: 'faulty',
      stat: (p) => inner.stat(p),
      readdir: (p) => inner.readdir(p),
      readFile: async (p, o) => {
        if (p === 'b.txt') throw new VfsError(code, 'read', p);
        return inner.readFile(p, o);
      },
    });
    const s = setupGate();
    addWorkspace(s, 'broken', { layer: failing('INTERNAL') });
    addWorkspace(s, 'gone', { layer: failing('NOT_FOUND') });
    expect(errorOf(await s.gate.call('broken', 'grep', { pattern: 'needle' })).code).toBe('INTERNAL');
    // A file that vanished between the listing and the read is simply not a match.
    expect(valueOf(await s.gate.call('gone', 'grep', { pattern: 'needle' })).files).toEqual(['a.txt', 'c.txt']);
  });
});

describe('one folder of more entries than a slice of the walk (tools/sliced-work.ts)', () => {
  /** 7,000 files (a few hold the needle, some ignored), `.GIT` and a sub-folder; the same over memory. */
  function bigFiles(): Record<string, string> {
    const files: Record<string, string> = { 'big/.gitignore': '*.log\n', 'big/.GIT/config': 'needle\n', 'big/sub/inner.txt': 'needle\n' };
    for (let i = 0; i < 7000; i++) {
      const name = `f${String((i * 7919) % 7000).padStart(4, '0')}`;
      files[`big/${name}${i % 10 === 0 ? '.log' : '.txt'}`] = i % 1000 === 1 ? 'a needle here\n' : 'x\n';
    }
    return files;
  }

  it('lists and greps exactly as the plain passes would: sorted, .GIT hidden, ignored files left out, the mount point merged in', async () => {
    const files = bigFiles();
    const host = hostTree(files);
    const s = setupGate();
    const mounted = () => [{ path: '', layer: new MemoryLayer({ files: { 'inside.txt': 'needle\n' } }), writable: false }];
    addWorkspace(s, 'host', { layer: host.layer, mounts: mounted().map((m) => ({ ...m, path: '/worktrees/host/big/m-mount' })) });
    addWorkspace(s, 'mem', { files, mounts: mounted().map((m) => ({ ...m, path: '/worktrees/mem/big/m-mount' })) });
    const shown = Object.keys(files)
      .filter((p) => !p.endsWith('.log') && !p.includes('.GIT'))
      .map((p) => p.slice('big/'.length).split('/')[0]);
    const names = [...new Set([...shown, 'm-mount'])].sort();
    for (const id of ['host', 'mem']) {
      const listed = valueOf(await s.gate.call(id, 'list', { path: 'big', maxResults: 100_000 }));
      expect(listed.entries.map((e: { path: string }) => e.path)).toEqual(names.map((n) => `big/${n}`));
      expect(listed.ignored).toBe(700);
      const all = valueOf(await s.gate.call(id, 'list', { path: 'big', pattern: '**', maxResults: 100_000 }));
      const expected = names.flatMap((n) =>
        n === 'sub' ? ['sub', 'sub/inner.txt'] : n === 'm-mount' ? ['m-mount', 'm-mount/inside.txt'] : [n],
      );
      expect(all.entries.map((e: { path: string }) => e.path)).toEqual(expected.map((n) => `big/${n}`));
      const needles = ['0919', '1919', '2919', '3919', '4919', '5919', '6919'].map((n) => `big/f${n}.txt`);
      const hits = Object.keys(files)
        .filter((p) => p.endsWith('.txt') && files[p].includes('needle') && !p.includes('/sub/'))
        .sort();
      expect(hits).toEqual(needles);
      const wanted = [...needles, 'big/m-mount/inside.txt', 'big/sub/inner.txt'].sort();
      for (const pattern of ['needle', 'ne+dle']) {
        const found = valueOf(await s.gate.call(id, 'grep', { pattern, path: 'big' }));
        expect({ id, pattern, files: found.files, searched: found.filesSearched }).toEqual({ id, pattern, files: wanted, searched: 6303 }); // the .txt files and .gitignore
      }
      const newest = valueOf(await s.gate.call(id, 'list', { path: 'big', sort: 'mtime', maxResults: 100_000 }));
      expect(newest.entries.map((e: { path: string }) => e.path).sort()).toEqual(names.map((n) => `big/${n}`));
    }
  });
});
