/**
 * Lock keys: which file a write really changes, so that every writer of one file — whatever
 * conversation, layer object, mount or host it came through — queues on one lock.
 *
 * A `LockKey` is an identity inside a scope. Host files share one scope, `HOST_FILES`, and are
 * named by the `(dev, ino)` of the folder holding them plus the name (vfs/host-lock-key.ts), so
 * the same file reached through a `shared` checkout and through an absolute mount of one of its
 * sub-folders gets one key, and two processes compute the same key for it. A memory layer keys
 * by its volume object and the volume path. A layer with no notion of identity is keyed by
 * itself and the layer path (`lockKeyOf`), which is what every wrapper falls back to.
 *
 * The optional extension `LockableLayer.lockKey` is found by a type check, like the other fast
 * paths of vfs/layer.ts. Every wrapper that passes writes through to an inner layer at the same
 * path forwards it (read-only, sparse, disclosure hints, path rules); the overlay forwards to its
 * upper, where every change lands. A key never reaches an agent.
 */
import type { Layer } from './layer.js';

/** The identity of the file a write would change (see the file comment). */
export interface LockKey {
  /**
   * What `id` is unique in: `HOST_FILES` for files on this machine's disks (the gate then also
   * takes the cross-process lock for compare-and-swap calls), else the object owning the file
   * (a memory volume, or a layer without identities).
   */
  readonly scope: object;
  /** The file's identity inside `scope`. Never shown to an agent (it may hold host numbers). */
  readonly id: string;
}

/** The scope of every host file: one per process, shared by all host layers and hosts. */
export const HOST_FILES: object = Object.freeze({ scope: 'host files' });

/**
 * Optional extension: the lock key of the file at a layer path, found by `isLockableLayer`.
 * It must name the file any other route to it would name, without creating or changing
 * anything; the file itself need not exist (a write may create it). Synchronous. It may throw
 * `VfsError` (`INTERNAL` for a closed layer, `BUSY` when out of descriptors) with a layer path.
 */
export interface LockableLayer extends Layer {
  lockKey(path: string): LockKey;
}

/** True when the layer computes its own lock keys. */
function isLockableLayer(layer: Layer): layer is LockableLayer {
  return typeof (layer as Partial<LockableLayer>).lockKey === 'function';
}

/** The lock key of `path` in `layer`: the layer's own when it has one, else (the layer, the path). */
export function lockKeyOf(layer: Layer, path: string): LockKey {
  return isLockableLayer(layer) ? layer.lockKey(path) : { scope: layer, id: path };
}
