/**
 * What a host layer shows to the code around it while it works: the `(dev, ino)` identity of
 * host objects, the guard asked on mutating walks, and the test seams that let a test act at
 * an exact moment of an operation. Nothing here touches the disk.
 */
import type { Stats } from 'node:fs';

/** The identity of a folder or file on the host: device and inode numbers. */
export interface HostIdentity {
  readonly dev: number;
  readonly ino: number;
}

/** A test seam event: which operation, at which layer-relative path. */
export interface HostSeamEvent {
  readonly op: string;
  readonly path: string;
}

/**
 * Test seams: synchronous callbacks at exact moments of an operation, so a test can swap a
 * component for a link right there. All absent (no-ops) in production.
 * - `beforeStep`: before each component (a folder on the walk, or the final name) is opened.
 * - `afterCheck`: after the final component was checked (type, existence) and before any I/O.
 * - `beforeCommit`: before the change is made visible (rename, link, unlink, rmdir, mkdir).
 */
export interface HostSeams {
  beforeStep?(event: HostSeamEvent): void;
  afterCheck?(event: HostSeamEvent): void;
  beforeCommit?(event: HostSeamEvent): void;
}

/** Asked for every folder on the walk of a mutating operation: a code refuses it. */
export type HostGuard = (id: HostIdentity, op: string) => 'READ_ONLY' | 'PROTECTED_PATH' | undefined;

/** The identity of an open handle. */
export function identityOf(st: Stats): HostIdentity {
  return { dev: st.dev, ino: st.ino };
}

/** True when two identities name the same host object. */
export function sameIdentity(a: HostIdentity, b: HostIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
