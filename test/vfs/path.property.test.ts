/**
 * Property tests for the path grammar (fast-check): for any string an agent could send —
 * arbitrary Unicode, runs of '..', slashes, NUL, backslash, lone surrogates, over-long names —
 * resolution either lands inside the namespace or is refused with a grammar code, is idempotent
 * on its own output, agrees with POSIX normalization where no rule applies, and no layer is
 * ever asked for a path outside its mount.
 */
import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isVfsError } from '../../vfs/errors.js';
import type { Layer } from '../../vfs/layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { MountTable } from '../../vfs/mount-table.js';
import { Namespace } from '../../vfs/namespace.js';
import { MAX_NAME_BYTES, MAX_PATH_BYTES, resolveNamespacePath, utf8Length } from '../../vfs/path.js';

const ROOT = '/worktrees/a';
const MOUNTS = [ROOT, `${ROOT}/.campaign`, '/worktrees/ab', '/docs', '/docs-extra', '/data/out/deep'];
const GRAMMAR_CODES = ['PATH_ESCAPE', 'BAD_NAME', 'NAME_TOO_LONG'];
const RUNS = { numRuns: 800 };

const piece = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '..',
      '.',
      '',
      '/',
      '//',
      '\\',
      '\u0000',
      'worktrees',
      'a',
      'ab',
      'docs',
      'docs-extra',
      '.campaign',
      'data',
      'out',
      '~',
      '$HOME',
      '%2e%2e',
      '\u00e9',
      'e\u0301',
      '\ud800',
      '\udc00',
      '\ud83d\ude00',
      '\u2024\u2024',
      'x'.repeat(254),
      '\u20ac'.repeat(86),
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);
/** Hostile strings: pieces glued together, or joined as segments, relative or absolute. */
const hostile = fc.oneof(
  fc.array(piece, { maxLength: 24 }).map((parts) => parts.join('')),
  fc.tuple(fc.boolean(), fc.array(piece, { maxLength: 24 })).map(([abs, parts]) => (abs ? '/' : '') + parts.join('/')),
  fc.string({ unit: 'binary', maxLength: 64 }),
);

function isNormalized(p: string): boolean {
  if (!p.startsWith('/')) return false;
  if (p === '/') return true;
  const segs = p.slice(1).split('/');
  return (
    utf8Length(p) <= MAX_PATH_BYTES &&
    p.isWellFormed() &&
    segs.every((s) => s !== '' && s !== '.' && s !== '..' && !/[\u0000\\]/.test(s) && utf8Length(s) <= MAX_NAME_BYTES)
  );
}

function grammarOutcome(input: string, table: MountTable): { path: string } | { code: string } {
  try {
    return { path: resolveNamespacePath(input, ROOT, (p) => table.isInside(p)) };
  } catch (e) {
    if (!isVfsError(e)) throw e;
    return { code: e.code };
  }
}

/** A layer that records every path it is asked for (and serves nothing). */
function spyLayer(asked: string[]): Layer {
  const inner = new MemoryLayer({ files: { 'f.txt': 'f' } });
  const record = <T>(p: string, run: () => Promise<T>) => (asked.push(p), run());
  return {
    kind: 'spy',
    stat: (p) => record(p, () => inner.stat(p)),
    readFile: (p) => record(p, () => inner.readFile(p)),
    readdir: (p) => record(p, () => inner.readdir(p)),
  };
}

describe('path grammar properties', () => {
  const table = new MountTable(MOUNTS.map((path) => ({ path, layer: new MemoryLayer(), writable: true })));

  it('returns a normalized path or refuses with a grammar code; relative input always lands inside', () => {
    fc.assert(
      fc.property(hostile, (input) => {
        const out = grammarOutcome(input, table);
        if ('code' in out) {
          expect(GRAMMAR_CODES).toContain(out.code);
          return;
        }
        expect(isNormalized(out.path)).toBe(true);
        if (!input.startsWith('/')) expect(table.isInside(out.path)).toBe(true);
      }),
      RUNS,
    );
  });

  it('is idempotent on its own output', () => {
    fc.assert(
      fc.property(hostile, (input) => {
        const out = grammarOutcome(input, table);
        if ('path' in out) expect(grammarOutcome(out.path, table)).toEqual(out);
      }),
      RUNS,
    );
  });

  it('agrees with POSIX normalization when no rule applies', () => {
    const plain = fc.array(fc.oneof(fc.constantFrom('.', '', 'src', 'a b', '\u00e9', '...'), fc.stringMatching(/^[a-z0-9._-]{1,12}$/)), {
      maxLength: 12,
    });
    fc.assert(
      fc.property(fc.boolean(), plain, (abs, parts) => {
        const input = (abs ? `${ROOT}/` : '') + parts.join('/');
        fc.pre(input !== '' && !parts.includes('..'));
        const out = grammarOutcome(input, table);
        expect(out).toEqual({ path: posix.resolve(ROOT, input) });
      }),
      RUNS,
    );
  });

  it('a refused ".." is refused however the rest of the path looks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 8 }), hostile, (ups, rest) => {
        const input = `${'../'.repeat(ups)}${rest}`;
        expect(grammarOutcome(input, table)).toMatchObject({ code: expect.toBeOneOf(['PATH_ESCAPE', 'BAD_NAME', 'NAME_TOO_LONG']) });
      }),
      RUNS,
    );
  });
});

describe('namespace properties', () => {
  it('Namespace.resolve yields the longest whole-segment mount, or a typed refusal', () => {
    const ns = new Namespace({ root: ROOT, mounts: MOUNTS.map((path) => ({ path, layer: new MemoryLayer(), writable: true })) });
    fc.assert(
      fc.property(hostile, (input) => {
        let r;
        try {
          r = ns.resolve(input);
        } catch (e) {
          expect(isVfsError(e) && [...GRAMMAR_CODES, 'OUTSIDE_MOUNTS'].includes(e.code)).toBe(true);
          return;
        }
        if (r.mount.layer.kind === 'mount-points') {
          // A folder that only leads to mount points: an ancestor of some mount, never inside one.
          expect(r.rel).toBe('');
          expect(MOUNTS.some((m) => r.path === '/' || m.startsWith(`${r.path}/`))).toBe(true);
          expect(MOUNTS.some((m) => r.path === m || r.path.startsWith(`${m}/`))).toBe(false);
          return;
        }
        expect(MOUNTS).toContain(r.mount.path);
        expect(r.rel === '' ? r.mount.path : `${r.mount.path}/${r.rel}`).toBe(r.path);
        const covering = MOUNTS.filter((m) => r.path === m || r.path.startsWith(`${m}/`));
        expect(r.mount.path).toBe(covering.sort((x, y) => y.length - x.length)[0]);
        if (!input.startsWith('/')) expect(r.path === ROOT || r.path.startsWith(`${ROOT}/`)).toBe(true);
      }),
      RUNS,
    );
  });

  it('never asks a layer for a path outside its mount, and fails only with VfsErrors', async () => {
    const asked: string[] = [];
    const ns = new Namespace({ root: ROOT, mounts: MOUNTS.map((path) => ({ path, layer: spyLayer(asked), writable: false })) });
    await fc.assert(
      fc.asyncProperty(hostile, async (input) => {
        for (const call of [() => ns.stat(input), () => ns.readFile(input), () => ns.readdir(input)]) {
          await call().catch((e: unknown) => {
            if (!isVfsError(e)) throw e;
          });
        }
      }),
      { numRuns: 300 },
    );
    expect(asked.length).toBeGreaterThan(100);
    for (const rel of asked) expect(rel === '' || isNormalized(`/${rel}`)).toBe(true);
  });
});
