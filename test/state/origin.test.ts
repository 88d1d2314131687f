/**
 * The proof of origin as the store keeps it: the `meta` table of schema 2 records one origin
 * (the first writer wins, so two processes creating one database agree), and the origin file's
 * text round-trips and rejects anything malformed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { formatOrigin, parseOrigin, sameOrigin, StateStore, type StateOrigin } from '../../src/state/index.js';

let store: StateStore;
beforeEach(() => {
  store = StateStore.open(':memory:', { clock: new ManualClock() });
});
afterEach(() => store.close());

const origin: StateOrigin = { stateDir: { dev: 2049, ino: 131 }, database: { dev: 2049, ino: 137 }, uid: 1000 };

describe('the origin in the database', () => {
  it('is absent in a new database, recorded once, and the first record wins', () => {
    expect(store.origin.get()).toBeNull();
    expect(store.origin.record(origin)).toEqual(origin);
    const other = { ...origin, database: { dev: 1, ino: 999 } };
    expect(store.origin.record(other)).toEqual(origin);
    expect(store.origin.get()).toEqual(origin);
  });

  it('keeps birth times to the nanosecond', () => {
    const born: StateOrigin = {
      stateDir: { dev: 2049, ino: 131, born: '1796098860739266632' },
      database: { dev: 2049, ino: 137, born: '1796098860739266999' },
      uid: 1000,
    };
    expect(store.origin.record(born)).toEqual(born);
    expect(store.origin.get()).toEqual(born);
  });
});

describe('the origin file text', () => {
  it('round-trips and compares by inodes and uid (not devices)', () => {
    expect(parseOrigin(formatOrigin(origin))).toEqual(origin);
    expect(sameOrigin(origin, { ...origin, stateDir: { dev: 77, ino: 131 } })).toBe(true);
    expect(sameOrigin(origin, { ...origin, database: { dev: 2049, ino: 138 } })).toBe(false);
    expect(sameOrigin(origin, { ...origin, uid: 0 })).toBe(false);
  });

  it('round-trips birth times and compares them too', () => {
    const born = { ...origin, stateDir: { ...origin.stateDir, born: '1796098860739266632' } };
    expect(parseOrigin(formatOrigin(born))).toEqual(born);
    expect(sameOrigin(born, born)).toBe(true);
    expect(sameOrigin(born, origin)).toBe(false);
    expect(sameOrigin(born, { ...born, stateDir: { ...born.stateDir, born: '1796098860739266633' } })).toBe(false);
    expect(
      parseOrigin(JSON.stringify({ version: 1, stateDir: { dev: 1, ino: 2, born: 12 }, database: { dev: 1, ino: 3 }, uid: 1 })),
    ).toBeNull();
  });

  it('rejects anything else', () => {
    for (const text of [
      '',
      'null',
      '{}',
      '[]',
      'not json',
      JSON.stringify({ ...origin, version: 2 }),
      JSON.stringify({ version: 1, stateDir: { dev: 1 }, database: { dev: 1, ino: 2 }, uid: 1 }),
      JSON.stringify({ version: 1, stateDir: { dev: 1, ino: 2 }, database: { dev: 1, ino: 2 }, uid: '1' }),
    ]) {
      expect(parseOrigin(text)).toBeNull();
    }
  });
});
