/**
 * `HeldFolderStack`: the folders a depth-first host walk is inside, holding a bounded number of
 * descriptors whatever the depth (docs/ARCHITECTURE.md § The held-handle walk; § Trust boundary,
 * "Resources").
 *
 * A walk needs each ancestor folder again when it comes back up to visit the next sibling.
 * Holding one handle per level let a 2,000-deep chain use 2,000 descriptors per walk (twelve
 * walks at once: `EMFILE`). Here only these stay open:
 * - the folder the walk started from;
 * - a checkpoint every `CHECKPOINT_EVERY` levels below it;
 * - the deepest `WINDOW` other folders.
 * With the grammar's depth limit (vfs/path.ts `MAX_PATH_SEGMENTS`) that is at most
 * `1 + 2048 / CHECKPOINT_EVERY + WINDOW` = 33 handles per walk.
 *
 * An ancestor whose handle was closed is reopened when the walk returns to it with siblings
 * left to visit: from the nearest held ancestor (at most `CHECKPOINT_EVERY` levels up), one
 * component at a time without following links (`ConfinedWalk.openDir`), and its `(dev, ino)`,
 * recorded before its handle was closed, must match. A folder that vanished, turned into a link
 * or was replaced by another folder meanwhile is skipped with everything still to visit below
 * it, as a folder that vanishes mid-walk always was; nothing is read from its replacement.
 */
import { VfsError } from './errors.js';
import { closeHeldDir, type ConfinedWalk, type HeldDir } from './host-walk.js';
import { sameIdentity, type HostIdentity } from './host-hooks.js';

/** Open handles kept for the deepest folders of a walk (besides the start and the checkpoints). */
export const WINDOW = 16;
/** Every this many levels below the start, a folder's handle is kept until the walk leaves it. */
export const CHECKPOINT_EVERY = 128;

/** One folder on the stack: its handle (undefined while closed), name, identity, and the sub-folders left to visit. */
export interface Frame {
  dir: HeldDir | undefined;
  /** Its name in its parent ('' for the start folder). */
  readonly name: string;
  /** Its `(dev, ino)`, recorded before the handle is closed. */
  id?: HostIdentity;
  /** Sub-folder names to visit, in order. */
  names: string[];
  next: number;
  /** Held until popped: the start folder and the checkpoints. */
  readonly pinned: boolean;
}

/** The stack of folders of one depth-first walk (see the file comment). Not shared between walks. */
export class HeldFolderStack {
  private readonly frames: Frame[] = [];
  /** The unpinned frames whose handle is open, shallowest first (always the deepest ones). */
  private readonly window: Frame[] = [];

  /** `window` and `checkpointEvery` default to `WINDOW` and `CHECKPOINT_EVERY` (both at least 1). */
  constructor(
    private readonly walk: ConfinedWalk,
    private readonly windowSize = WINDOW,
    private readonly checkpointEvery = CHECKPOINT_EVERY,
  ) {}

  /** How many folders the walk is inside (the start folder counts one). */
  get depth(): number {
    return this.frames.length;
  }

  /** The deepest frame, or undefined when the walk is done. */
  top(): Frame | undefined {
    return this.frames[this.frames.length - 1];
  }

  /** Pushes a folder just opened (its handle owned by the stack from now on); may close a shallower one. */
  push(dir: HeldDir, name: string): Frame {
    const index = this.frames.length;
    const frame: Frame = { dir, name, names: [], next: 0, pinned: index % this.checkpointEvery === 0 };
    this.frames.push(frame);
    if (!frame.pinned) {
      this.window.push(frame);
      if (this.window.length > this.windowSize) this.park(this.window.shift()!);
    }
    return frame;
  }

  /** Pops the deepest frame and closes its handle. */
  pop(): void {
    const frame = this.frames.pop();
    if (!frame) return;
    if (this.window[this.window.length - 1] === frame) this.window.pop();
    this.close(frame);
  }

  /**
   * The handle of the deepest frame, reopened from the nearest held ancestor when it was closed.
   * Undefined when it (or an ancestor on the way) vanished, became a link or another folder:
   * those frames are then marked done, so the walk pops them. Other errors (`BUSY`) are thrown.
   */
  open(): HeldDir | undefined {
    const i = this.frames.length - 1;
    const target = this.frames[i];
    if (target.dir) return target.dir;
    let j = i - 1;
    while (!this.frames[j].dir) j--;
    const keepFrom = i - this.windowSize + 1;
    for (let k = j + 1; k <= i; k++) {
      const frame = this.frames[k];
      const parent = this.frames[k - 1];
      let dir: HeldDir;
      try {
        dir = this.walk.openDir(parent.dir!, frame.name, 'walk', true);
      } catch (e) {
        if (!isGone(e)) throw e;
        this.abandon(k, j);
        return undefined;
      }
      if (!frame.id || !sameIdentity(dir.id!, frame.id)) {
        closeHeldDir(dir); // just opened: no read in another thread holds it
        this.abandon(k, j);
        return undefined;
      }
      frame.dir = dir;
      // The parent was opened only to reach this one, unless it is kept.
      if (k - 1 > j && !parent.pinned && k - 1 < keepFrom) this.close(parent);
      if (!frame.pinned && k >= keepFrom) this.window.push(frame);
    }
    return target.dir;
  }

  /** Closes every handle still open (the walk ended or was abandoned). Never throws. */
  closeAll(): void {
    for (const frame of this.frames) this.close(frame);
    this.frames.length = 0;
    this.window.length = 0;
  }

  /** Records a frame's identity and closes its handle until the walk comes back to it. */
  private park(frame: Frame): void {
    frame.id = this.walk.identity(frame.dir!, 'walk');
    this.close(frame);
  }

  /**
   * Frames from `k` down changed under the walk (`open` was reopening from `j`): nothing more
   * is visited in them. Their parent, opened on the way, is now the deepest open frame: it
   * joins the window unless it is pinned or already there.
   */
  private abandon(k: number, j: number): void {
    for (let m = k; m < this.frames.length; m++) {
      this.close(this.frames[m]);
      this.frames[m].next = this.frames[m].names.length;
    }
    const parent = this.frames[k - 1];
    if (k - 1 > j && !parent.pinned && !this.window.includes(parent)) this.window.push(parent);
  }

  /** Closes a frame's handle (once reads in other threads holding it end: `closeHeldDir`). */
  private close(frame: Frame): void {
    if (!frame.dir || frame.dir === this.walk.root) {
      frame.dir = undefined;
      return;
    }
    closeHeldDir(frame.dir);
    frame.dir = undefined;
  }
}

function isGone(e: unknown): boolean {
  return e instanceof VfsError && (e.code === 'NOT_FOUND' || e.code === 'NOT_DIRECTORY' || e.code === 'SYMLINK_ESCAPE');
}
