/**
 * `SwitchableLayer`: a read-only layer that serves whichever layer it currently holds and can
 * be switched to another one (`switchTo`) while calls run. Used as the lower of a `copy`
 * workspace: the pinned commit is served from git objects (`GitTreeLayer`) until the host has
 * checked it out into a folder, then from that folder (`SnapshotFolderLayer`).
 *
 * Each call is served whole by the layer that was current when it started (a walk keeps its
 * layer to the end), so a call never mixes two layers. The switch is only meant between layers
 * that show the same tree with the same metadata, which makes it invisible to every caller;
 * this layer does not check that (the host does, before it switches).
 *
 * `onFirstUse` is called once, on the first call of any kind (the host starts its checkout then,
 * not for workspaces nobody reads). It must not throw; it is called synchronously and should
 * only schedule work.
 */
import { VfsError } from './errors.js';
import type { DirEntry, Layer, LinkReadingLayer, ReadOptions, Stat, WalkEntries, WalkOptions, WalkableLayer } from './layer.js';
import { isLinkReadingLayer, walkLayer } from './layer.js';

/** A read-only layer whose inner layer can be switched (see the file comment). */
export class SwitchableLayer implements LinkReadingLayer, WalkableLayer {
  #current: Layer;
  #onFirstUse: (() => void) | undefined;

  constructor(initial: Layer, onFirstUse?: () => void) {
    this.#current = initial;
    this.#onFirstUse = onFirstUse;
  }

  /** The kind of the layer served now (e.g. `git-tree`, `snapshot-folder(host)`). */
  get kind(): string {
    return this.#current.kind;
  }

  /** The layer served now. */
  get current(): Layer {
    return this.#current;
  }

  /** Serves `next` from the next call on; calls under way finish on the layer they started on. */
  switchTo(next: Layer): void {
    this.#current = next;
  }

  stat(path: string): Promise<Stat> {
    return this.#use().stat(path);
  }

  readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    return this.#use().readFile(path, options);
  }

  readdir(path: string): Promise<DirEntry[]> {
    return this.#use().readdir(path);
  }

  /** The current layer's link target; `NOT_SYMLINK` when it reads no links. */
  async readLink(path: string): Promise<string> {
    const layer = this.#use();
    if (!isLinkReadingLayer(layer)) throw new VfsError('NOT_SYMLINK', 'readlink', path, 'this layer reads no link targets');
    return layer.readLink(path);
  }

  /** The current layer's walk (its fast path when it has one), kept to the end of the walk. */
  walkTree(path: string, options?: WalkOptions): AsyncGenerator<WalkEntries> {
    return walkLayer(this.#use(), path, options);
  }

  #use(): Layer {
    const first = this.#onFirstUse;
    if (first) {
      this.#onFirstUse = undefined;
      first();
    }
    return this.#current;
  }
}
