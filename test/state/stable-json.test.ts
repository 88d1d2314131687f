/** `stableStringify`: equal values give equal bytes, and the bytes parse back like JSON. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stableStringify } from '../../src/state/index.js';

/** The same object with its keys inserted in reverse order, at every depth. */
function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reversedKeys(x)]),
    );
  }
  return v;
}

describe('stableStringify', () => {
  it('parses back to what JSON.stringify would have produced', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(JSON.parse(stableStringify(v))).toEqual(JSON.parse(JSON.stringify(v) ?? 'null'));
      }),
      { numRuns: 100 },
    );
  });

  it('does not depend on key insertion order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (v) => {
        expect(stableStringify(reversedKeys(v))).toBe(stableStringify(v));
      }),
      { numRuns: 100 },
    );
  });

  it('writes keys sorted at every depth', () => {
    expect(stableStringify({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });
});
