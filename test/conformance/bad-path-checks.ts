/**
 * The bad-path step of the conformance suite (after Go fstest's `checkBadPath`): every layer,
 * on its own and whatever sits above it, refuses a path that is not a layer path — `..` and
 * `.` segments, empty names (`a//b`, a leading or trailing '/'), NUL, lone surrogates, names
 * over 255 bytes and paths over 4096 — with `BAD_NAME` / `NAME_TOO_LONG` (vfs/layer-path.ts),
 * for every operation, with nothing read and nothing changed. The climbing paths point at the
 * sentinel tree each setup plants beside the layer's root, so a layer that walked them would
 * hand back its bytes. The root '' is a valid path: every change to it is refused.
 */
import { expect, it } from 'vitest';
import { isVfsError, type VfsCode } from '../../vfs/errors.js';
import type { Layer, WritableLayer } from '../../vfs/layer.js';
import { isWritableLayer, walkLayer } from '../../vfs/layer.js';
import { hashLayer } from './fixture.js';
import type { LayerUnderTest } from './layer-suite.js';

/** Every bad path tried, with the code it must answer. */
export const BAD_PATHS: readonly (readonly [string, VfsCode])[] = [
  ['..', 'BAD_NAME'],
  ['../outside/secret.txt', 'BAD_NAME'],
  ['src/../../outside/secret.txt', 'BAD_NAME'],
  ['src/../README.md', 'BAD_NAME'],
  ['.', 'BAD_NAME'],
  ['./README.md', 'BAD_NAME'],
  ['src/./a.ts', 'BAD_NAME'],
  ['src//a.ts', 'BAD_NAME'],
  ['/README.md', 'BAD_NAME'],
  ['/outside/secret.txt', 'BAD_NAME'],
  ['src/', 'BAD_NAME'],
  ['README.md/', 'BAD_NAME'],
  ['src/a.ts\u0000.png', 'BAD_NAME'],
  ['\u0000', 'BAD_NAME'],
  ['src/x\uD800y.ts', 'BAD_NAME'],
  ['n'.repeat(256), 'NAME_TOO_LONG'],
  [`src/${'\u00e9'.repeat(128)}`, 'NAME_TOO_LONG'],
  [`src/${'n'.repeat(256)}/a.ts`, 'NAME_TOO_LONG'],
  [`${'d/'.repeat(2048)}f`, 'NAME_TOO_LONG'],
];

const X = new TextEncoder().encode('x');

/** Every operation of a layer, by name, applied to one path. */
function operations(layer: Layer): [string, (path: string) => Promise<unknown>][] {
  const ops: [string, (path: string) => Promise<unknown>][] = [
    ['stat', (p) => layer.stat(p)],
    ['readFile', (p) => layer.readFile(p)],
    ['readdir', (p) => layer.readdir(p)],
    [
      'walk',
      async (p) => {
        for await (const folder of walkLayer(layer, p)) return folder;
      },
    ],
  ];
  if (!isWritableLayer(layer)) return ops;
  const w: WritableLayer = layer;
  return [
    ...ops,
    ['writeFile', (p) => w.writeFile(p, X)],
    ['writeFile exclusive', (p) => w.writeFile(p, X, { exclusive: true })],
    ['writeFile ifMatch', (p) => w.writeFile(p, X, { ifMatch: X })],
    ['mkdir', (p) => w.mkdir(p)],
    ['remove', (p) => w.remove(p)],
  ];
}

/** What a call gave: the error code, or 'ok' (a refusal that is not a VfsError shows its text). */
async function outcomeOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'ok';
  } catch (e) {
    return isVfsError(e) ? e.code : `not a VfsError: ${String(e)}`;
  }
}

/** Registers the bad-path checks for the layer under test (fresh per test). */
export function badPathChecks(current: () => LayerUnderTest): void {
  it('refuses every bad path for every operation with BAD_NAME / NAME_TOO_LONG, reading and changing nothing', async () => {
    const t = current();
    const backing = t.backingHash ?? (() => hashLayer(t.layer));
    const before = [await hashLayer(t.layer), await backing(), await t.symlinks?.outsideHash()];
    const wrong: string[] = [];
    for (const [name, call] of operations(t.layer)) {
      for (const [path, code] of BAD_PATHS) {
        const got = await outcomeOf(() => call(path));
        const shown = JSON.stringify(path.length > 40 ? `${path.slice(0, 40)}…` : path);
        if (got !== code) wrong.push(`${name}(${shown}) → ${got}, expected ${code}`);
      }
    }
    expect(wrong).toEqual([]);
    expect([await hashLayer(t.layer), await backing(), await t.symlinks?.outsideHash()]).toEqual(before);
  });

  it("refuses every change to the root '' (IS_DIRECTORY, ALREADY_EXISTS, READ_ONLY) and changes nothing", async () => {
    const t = current();
    if (!isWritableLayer(t.layer)) throw new Error('every layer under test offers the write methods');
    const layer = t.layer;
    const backing = t.backingHash ?? (() => hashLayer(layer));
    const before = [await hashLayer(layer), await backing()];
    expect(await outcomeOf(() => layer.writeFile('', X))).toBeOneOf(['IS_DIRECTORY', 'READ_ONLY']);
    expect(await outcomeOf(() => layer.writeFile('', X, { exclusive: true }))).toBeOneOf(['IS_DIRECTORY', 'ALREADY_EXISTS', 'READ_ONLY']);
    expect(await outcomeOf(() => layer.mkdir(''))).toBeOneOf(['ALREADY_EXISTS', 'READ_ONLY']);
    expect(await outcomeOf(() => layer.remove(''))).toBe('READ_ONLY');
    expect((await layer.stat('')).type).toBe('directory');
    expect([await hashLayer(layer), await backing()]).toEqual(before);
  });
}
