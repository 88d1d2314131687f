/**
 * `gatefs/testing`: the memory host and what tests built on it use. The memory host is the
 * same host as `createHost`, entirely in memory (a memfs volume, isomorphic-git over it, SQLite
 * `:memory:`, a manual clock and sequential ids): no disk, no processes, the same scenario gives
 * a byte-identical run log. It lives here, not in the package root, so a program that only
 * opens disk hosts never loads memfs (`import { createMemoryHost } from 'gatefs/testing'`).
 */
export { createMemoryHost, type CreateMemoryHostOptions, type MemoryHost } from './host/memory/index.js';
export { createMemoryRemote, rejectNextPushes } from './git/memory-remote.js';
export { ScriptedCheckRunner, type ScriptedCheckResult, type CheckCall } from './ports/index.js';
export { ManualLiveness } from './ports/index.js';
export { ManualClock, type Clock } from './ports/index.js';
export { SequentialIds, type IdSource } from './ports/index.js';
