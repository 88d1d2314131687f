/**
 * `expectedSha256`, the optimistic-concurrency guard of edit and write: the schema and the
 * check. The agent passes the sha256 a read returned; the tool refuses with `STALE_CONTENT`
 * when the file's bytes changed since.
 */
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/index.js';
import type { Namespace } from '../vfs/index.js';
import type { Resolved } from '../vfs/index.js';
import { ToolFailure } from './result.js';
import { sha256Hex } from './text/index.js';

/** A sha256 in hex (either case). */
export const Sha256Arg = Type.String({
  pattern: '^[0-9a-fA-F]{64}$',
  description: 'sha256 (hex) of the bytes the file must have now, as returned by read.',
});

/**
 * Throws `STALE_CONTENT` unless `bytes` hash to `expected` (case-insensitive hex).
 * `shown` is the path as the agent writes it.
 */
export function checkExpectedSha(bytes: Uint8Array, expected: string, shown: string): void {
  const actual = sha256Hex(bytes);
  if (actual !== expected.toLowerCase()) {
    throw new ToolFailure('STALE_CONTENT', `'${shown}' changed since it was read: its sha256 is now ${actual}; read it again`, shown);
  }
}

/** The file's current bytes, or `STALE_CONTENT` when it no longer exists (an expected hash implies it did). */
export async function readExpected(ns: Namespace, target: Resolved, shown: string, maxBytes: number): Promise<Uint8Array> {
  try {
    return await ns.readFile(target, { maxBytes });
  } catch (e) {
    if (isVfsError(e, 'NOT_FOUND'))
      throw new ToolFailure('STALE_CONTENT', `'${shown}' no longer exists but expectedSha256 was given`, shown);
    throw e;
  }
}
