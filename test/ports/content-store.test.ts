/**
 * The `ContentStore` port, one suite over the disk store (`<stateDir>/snapshots/objects` in a temp
 * folder) and the memory one: round trips, idempotent puts, malformed ids, removal and sizes; and,
 * on disk, where objects live and that a temp file left by a crash is never taken for an object.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ContentStore, ContentStoreError } from '../../src/ports/content-store.js';
import { ContentStoreDir } from '../../src/ports/content-store-dir.js';
import { MemoryContentStore } from '../../src/ports/memory-content-store.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gatefs-store-'));
  dirs.push(d);
  return d;
}

const bytesOf = (s: string) => new Uint8Array(Buffer.from(s));
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function codeOf(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ContentStoreError);
  return (e as ContentStoreError).code;
}

describe.each([
  ['disk', () => new ContentStoreDir(stateDir()) as ContentStore],
  ['memory', () => new MemoryContentStore() as ContentStore],
])('ContentStore (%s)', (_name, make) => {
  it('returns the sha256 of the bytes and gives the same bytes back', async () => {
    const store = make();
    const id = await store.put(bytesOf('hello'));
    expect(id).toBe(sha('hello'));
    expect(Buffer.from(await store.get(id)).toString()).toBe('hello');
    expect(store.has(id)).toBe(true);
    expect(store.sizeOf(id)).toBe(5);
    const empty = await store.put(new Uint8Array());
    expect(await store.get(empty)).toEqual(new Uint8Array());
  });

  it('keeps what was stored when the caller changes its array afterwards', async () => {
    const store = make();
    const bytes = bytesOf('abc');
    const id = await store.put(bytes);
    bytes[0] = 0x7a;
    const back = await store.get(id);
    back[1] = 0x7a;
    expect(Buffer.from(await store.get(id)).toString()).toBe('abc');
  });

  it('answers SNAPSHOT_NOT_FOUND for a missing or malformed id', async () => {
    const store = make();
    expect(await codeOf(store.get(sha('never stored')))).toBe('SNAPSHOT_NOT_FOUND');
    for (const bad of ['../x', '', sha('x').slice(0, 63), `${sha('x')}0`, sha('x').toUpperCase(), `../${sha('x').slice(3)}`]) {
      expect(await codeOf(store.get(bad))).toBe('SNAPSHOT_NOT_FOUND');
      expect(store.has(bad)).toBe(false);
      expect(store.sizeOf(bad)).toBe(0);
    }
    store.remove(['../x', sha('never stored')]);
  });

  it('removes objects, leaving the others', async () => {
    const store = make();
    const a = await store.put(bytesOf('a'));
    const b = await store.put(bytesOf('b'));
    store.remove([a, a]);
    expect(store.has(a)).toBe(false);
    expect(store.sizeOf(a)).toBe(0);
    expect(await codeOf(store.get(a))).toBe('SNAPSHOT_NOT_FOUND');
    expect(Buffer.from(await store.get(b)).toString()).toBe('b');
  });
});

describe('ContentStoreDir on disk', () => {
  it('stores objects at snapshots/objects/<2 hex>/<62 hex> and does not rewrite one already there', async () => {
    const dir = stateDir();
    const store = new ContentStoreDir(dir);
    const id = await store.put(bytesOf('same'));
    const file = join(dir, 'snapshots', 'objects', id.slice(0, 2), id.slice(2));
    expect(statSync(file).size).toBe(4);
    const before = statSync(file, { bigint: true });
    expect(await store.put(bytesOf('same'))).toBe(id);
    const after = statSync(file, { bigint: true });
    expect([after.ino, after.mtimeNs, after.ctimeNs]).toEqual([before.ino, before.mtimeNs, before.ctimeNs]);
    expect(readdirSync(join(dir, 'snapshots', 'objects', id.slice(0, 2)))).toEqual([id.slice(2)]);
  });

  it('ignores a temp file a crash left, and writes the object under its name', async () => {
    const dir = stateDir();
    const store = new ContentStoreDir(dir);
    const id = sha('whole');
    const folder = join(dir, 'snapshots', 'objects', id.slice(0, 2));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, '.tmp-0123456789abcdef'), 'who');
    expect(store.has(id)).toBe(false);
    expect(await codeOf(store.get(id))).toBe('SNAPSHOT_NOT_FOUND');
    expect(await store.put(bytesOf('whole'))).toBe(id);
    expect(Buffer.from(await store.get(id)).toString()).toBe('whole');
    expect(existsSync(join(folder, id.slice(2)))).toBe(true);
  });
});
