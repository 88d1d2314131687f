/**
 * `edit` and `write` with `expectedSha256` are compare-and-swaps (tools/swap-file.ts): the new
 * bytes are published only if the file still holds what the call read. The writer here is a
 * program outside gatefs's locks (an editor, git, another install), acting at the exact moment
 * between the read and the rename through the host layer's `beforeCommit` seam. What a user
 * sees: no change reported ok is lost, the other program's bytes are never silently dropped,
 * and the answer is ok, `STALE_CONTENT` or `BUSY`.
 */
import { createHash } from 'node:crypto';
import {
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isVfsError } from '../../vfs/errors.js';
import { openHostLayer, type HostSeams } from '../../vfs/host-layer.js';
import type { Layer } from '../../vfs/layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { sparse } from '../../vfs/sparse-layer.js';
import { SWAP_ATTEMPTS } from '../../tools/swap-file.js';
import { addWorkspace, errorOf, setupGate, valueOf } from './workspace-fixture.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const bytes = (s: string) => Buffer.from(s);

function temp(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatefs-cas-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [p, c] of Object.entries(files)) writeFileSync(join(dir, p), c);
  return dir;
}

/**
 * A gate whose workspace is the host folder `dir`; `meddle(n)` runs as the outside writer right
 * before the n-th publish of a write (1-based) and returns whether it did anything.
 */
function workspace(dir: string, meddle: (n: number) => void, rootLayer?: (seams: HostSeams) => Layer) {
  let publishes = 0;
  const seams: HostSeams = {
    beforeCommit: ({ op }) => {
      if (op === 'write') meddle(++publishes);
    },
  };
  const layer = rootLayer ? rootLayer(seams) : openHostLayer(dir, { seams });
  cleanups.push(() => (layer as { close?: () => void }).close?.());
  const s = setupGate();
  addWorkspace(s, 'a', { layer });
  return { call: (tool: string, args: object) => s.gate.call('a', tool, args), publishes: () => publishes };
}

const at = (dir: string, name = 'f.txt') => join(dir, name);
const read = (dir: string, name = 'f.txt') => readFileSync(at(dir, name), 'utf8');

describe('edit as a compare-and-swap against writers outside gatefs', () => {
  it('a file replaced (new inode) between read and rename: the edit is applied again on the new bytes', async () => {
    const dir = temp({ 'f.txt': 'alpha\nbeta\n' });
    const w = workspace(dir, (n) => {
      if (n === 1) {
        writeFileSync(at(dir, 'next.tmp'), 'alpha\nbeta\ngamma from the editor\n');
        renameSync(at(dir, 'next.tmp'), at(dir));
      }
    });
    valueOf(await w.call('edit', { path: 'f.txt', oldString: 'alpha', newString: 'ALPHA' }));
    expect(read(dir)).toBe('ALPHA\nbeta\ngamma from the editor\n');
    expect(w.publishes()).toBe(2);
  });

  it('an in-place rewrite of the same size (same inode, maybe the same mtime) is caught too: bytes are compared', async () => {
    const dir = temp({ 'f.txt': 'value = 1\n' });
    const w = workspace(dir, (n) => {
      if (n !== 1) return;
      const fd = openSync(at(dir), 'r+');
      writeSync(fd, 'value = 2\n', 0);
      closeSync(fd);
    });
    valueOf(await w.call('edit', { path: 'f.txt', oldString: 'value', newString: 'answer' }));
    expect(read(dir)).toBe('answer = 2\n');
  });

  it('with expectedSha256 the edit is refused with STALE_CONTENT and the other bytes stay', async () => {
    const dir = temp({ 'f.txt': 'v1\n' });
    const w = workspace(dir, (n) => n === 1 && writeFileSync(at(dir), 'v1 changed by hand\n'));
    const e = errorOf(await w.call('edit', { path: 'f.txt', oldString: 'v1', newString: 'v2', expectedSha256: sha('v1\n') }));
    expect(e.code).toBe('STALE_CONTENT');
    expect(read(dir)).toBe('v1 changed by hand\n');
    expect(readdirSync(dir)).toEqual(['f.txt']);
  });

  it(`a file that changes under every attempt: BUSY after ${SWAP_ATTEMPTS} attempts, nothing of the edit written, no temp file left`, async () => {
    const dir = temp({ 'f.txt': 'round 0\n' });
    const w = workspace(dir, (n) => writeFileSync(at(dir), `round ${n}\n`));
    const e = errorOf(await w.call('edit', { path: 'f.txt', oldString: 'round', newString: 'ROUND' }));
    expect(e).toMatchObject({ code: 'BUSY', path: 'f.txt' });
    expect(w.publishes()).toBe(SWAP_ATTEMPTS);
    expect(read(dir)).toBe(`round ${SWAP_ATTEMPTS}\n`);
    expect(readdirSync(dir)).toEqual(['f.txt']);
  });

  it('a file deleted, or swapped for a link to an outside file, between read and rename: typed answer, outside untouched', async () => {
    const dir = temp({ 'f.txt': 'mine\n', 'g.txt': 'mine\n' });
    const outside = temp({ 'secret.txt': 'SECRET\n' });
    const deleted = workspace(dir, (n) => n === 1 && unlinkSync(at(dir)));
    expect(errorOf(await deleted.call('edit', { path: 'f.txt', oldString: 'mine', newString: 'yours' })).code).toBe('NOT_FOUND');
    const linked = workspace(dir, (n) => {
      if (n !== 1) return;
      unlinkSync(at(dir, 'g.txt'));
      symlinkSync(at(outside, 'secret.txt'), at(dir, 'g.txt'));
    });
    expect(errorOf(await linked.call('edit', { path: 'g.txt', oldString: 'mine', newString: 'yours' })).code).toBe('SYMLINK_ESCAPE');
    expect(read(outside, 'secret.txt')).toBe('SECRET\n');
  });
});

describe('write as a compare-and-swap', () => {
  it('with expectedSha256: a change between read and rename makes it STALE_CONTENT and keeps the other bytes', async () => {
    const dir = temp({ 'f.txt': 'v1\n' });
    const w = workspace(dir, (n) => n === 1 && writeFileSync(at(dir), 'someone else\n'));
    expect(errorOf(await w.call('write', { path: 'f.txt', content: 'mine\n', expectedSha256: sha('v1\n') })).code).toBe('STALE_CONTENT');
    expect(read(dir)).toBe('someone else\n');
  });

  it('without expectedSha256 it is a plain replace: no compare, the last writer wins, one publish', async () => {
    const dir = temp({ 'f.txt': 'v1\n' });
    const w = workspace(dir, (n) => n === 1 && writeFileSync(at(dir), 'someone else\n'));
    valueOf(await w.call('write', { path: 'f.txt', content: 'mine\n' }));
    expect(read(dir)).toBe('mine\n');
    expect(w.publishes()).toBe(1);
  });
});

describe('overlay (copy backend): a file still only in the lower', () => {
  it('another writer of the same upper getting there first makes the edit run again on its bytes', async () => {
    const upper = temp({});
    const lower = new MemoryLayer({ files: { 'f.txt': 'lower line\n' } });
    const w = workspace(
      upper,
      (n) => n === 1 && writeFileSync(at(upper), 'lower line\nfrom another process\n'),
      (seams) => overlay(openHostLayer(upper, { seams }), lower),
    );
    valueOf(await w.call('edit', { path: 'f.txt', oldString: 'lower', newString: 'upper' }));
    expect(read(upper)).toBe('upper line\nfrom another process\n');
    expect(String(lower.volume.readFileSync('/f.txt'))).toBe('lower line\n');
  });
});

describe('ifMatch in the layers themselves', () => {
  it('memory: publishes only over the expected bytes; a missing file or other bytes are STALE_CONTENT with nothing changed', async () => {
    const layer = new MemoryLayer({ files: { 'f.txt': 'one' } });
    await layer.writeFile('f.txt', bytes('two'), { ifMatch: bytes('one') });
    await expect(layer.writeFile('f.txt', bytes('three'), { ifMatch: bytes('one') })).rejects.toMatchObject({ code: 'STALE_CONTENT' });
    await expect(layer.writeFile('g.txt', bytes('new'), { ifMatch: bytes('') })).rejects.toMatchObject({ code: 'STALE_CONTENT' });
    expect(String(layer.volume.readFileSync('/f.txt'))).toBe('two');
    expect(() => layer.volume.readFileSync('/g.txt')).toThrow();
  });

  it('host: a longer file with the same prefix, or an empty expectation over a non-empty file, does not match', async () => {
    const dir = temp({ 'f.txt': 'abc', 'e.txt': '' });
    const layer = openHostLayer(dir);
    cleanups.push(() => layer.close());
    await expect(layer.writeFile('f.txt', bytes('x'), { ifMatch: bytes('ab') })).rejects.toMatchObject({ code: 'STALE_CONTENT' });
    await expect(layer.writeFile('f.txt', bytes('x'), { ifMatch: bytes('') })).rejects.toMatchObject({ code: 'STALE_CONTENT' });
    await layer.writeFile('e.txt', bytes('now full'), { ifMatch: bytes('') });
    expect([read(dir), read(dir, 'e.txt')]).toEqual(['abc', 'now full']);
    expect(readdirSync(dir).sort()).toEqual(['e.txt', 'f.txt']);
  });

  it('sparse: a file no longer shown cannot hold what was read through the projection', async () => {
    const inner = new MemoryLayer({ files: { 'shown.txt': 'a', 'hidden.txt': 'b' } });
    const projection = sparse(inner, ['shown.txt']);
    await projection.writeFile('shown.txt', bytes('a2'), { ifMatch: bytes('a') });
    const thrown = await projection.writeFile('hidden.txt', bytes('x'), { ifMatch: bytes('b') }).catch((e: unknown) => e);
    expect(isVfsError(thrown, 'STALE_CONTENT')).toBe(true);
    expect(String(inner.volume.readFileSync('/hidden.txt'))).toBe('b');
  });
});
