/**
 * `withPathRules(inner, rules)`: `inner` with two name-based rules a workspace folder may need.
 *
 * - `hidden`: one folder (the state directory when it lies inside the checkout a `shared` or
 *   plain-folder `copy` workspace serves) is absent from listings, `NOT_FOUND` to reads, and
 *   `PROTECTED_PATH` to any change at or below it.
 * - `readOnly`: writes at or below these paths are `READ_ONLY` — where a read-only mount's
 *   folder lies inside a writable workspace folder (a read-only `/repo/docs` mount under a
 *   `shared` checkout of `/repo`). Reads pass through.
 *
 * Everything else passes through unchanged. Limit: these rules name paths, not inodes; on disk
 * the host layer's identity guard is what stops a write reaching the same folder by another
 * route (a bind mount, a hard-linked folder). The name rules also cover layers without
 * identities (memory) and are checked first.
 */
import { VfsError } from '../../vfs/errors.js';
import type { DirEntry, Layer, ReadOptions, Stat, WalkEntries, WalkOptions, WritableLayer, WriteOptions, WriteResult } from '../../vfs/layer.js';
import { baseName, isWritableLayer, parentPath, walkLayer } from '../../vfs/layer.js';
import { lockKeyOf, type LockKey, type LockableLayer } from '../../vfs/lock-key.js';

export interface PathRules {
  /** Layer path of a folder to hide and protect. */
  hidden?: string;
  /** Layer paths at or below which writes are refused. */
  readOnly?: readonly string[];
}

/** A pass-through layer applying `PathRules` (see the file comment). */
export class PathRulesLayer implements WritableLayer, LockableLayer {
  readonly kind: string;
  private readonly hidden?: string;
  private readonly readOnly: readonly string[];

  constructor(private readonly inner: Layer, rules: PathRules) {
    this.kind = inner.kind;
    this.hidden = rules.hidden;
    this.readOnly = rules.readOnly ?? [];
  }

  stat(path: string): Promise<Stat> {
    this.checkVisible(path, 'stat');
    return this.inner.stat(path);
  }

  readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    this.checkVisible(path, 'read');
    return this.inner.readFile(path, options);
  }

  async readdir(path: string): Promise<DirEntry[]> {
    this.checkVisible(path, 'readdir');
    const entries = await this.inner.readdir(path);
    const hidden = this.hidden;
    return hidden !== undefined && path === parentPath(hidden) ? entries.filter((e) => e.name !== baseName(hidden)) : entries;
  }

  /**
   * The inner layer's walk (its fast path when it has one) without the hidden folder: never
   * descended, left out of its parent's entries, and that parent's held-folder access is not
   * passed on (it could reach the hidden name), so reads there go through `readFile` above.
   */
  async *walkTree(path: string, options: WalkOptions = {}): AsyncGenerator<WalkEntries> {
    this.checkVisible(path, 'walk');
    const hidden = this.hidden;
    if (hidden === undefined) {
      yield* walkLayer(this.inner, path, options);
      return;
    }
    const descend = (p: string) => !this.isHidden(p) && (options.descend?.(p) ?? true);
    for await (const folder of walkLayer(this.inner, path, { descend })) {
      if (folder.path !== parentPath(hidden)) yield folder;
      else yield { path: folder.path, entries: folder.entries.filter((e) => e.name !== baseName(hidden)) };
    }
  }

  writeFile(path: string, data: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    return this.writable(path, 'write').writeFile(path, data, options);
  }

  /** The inner layer's lock key: the rules refuse, they never move a write (vfs/lock-key.ts). */
  lockKey(path: string): LockKey {
    return lockKeyOf(this.inner, path);
  }

  mkdir(path: string): Promise<void> {
    return this.writable(path, 'mkdir').mkdir(path);
  }

  remove(path: string): Promise<void> {
    return this.writable(path, 'remove').remove(path);
  }

  rename(from: string, to: string): Promise<void> {
    this.writable(to, 'rename');
    return this.writable(from, 'rename').rename(from, to);
  }

  /** True when `path` is the hidden folder or lies below it. */
  isHidden(path: string): boolean {
    return this.hidden !== undefined && isAtOrBelow(path, this.hidden);
  }

  /** True when `path` is at or below one of the read-only paths. */
  isReadOnly(path: string): boolean {
    return this.readOnly.some((p) => isAtOrBelow(path, p));
  }

  private checkVisible(path: string, op: string): void {
    if (this.isHidden(path)) throw new VfsError('NOT_FOUND', op, path);
  }

  private writable(path: string, op: string): WritableLayer {
    if (this.isHidden(path)) throw new VfsError('PROTECTED_PATH', op, path);
    if (this.isReadOnly(path) || !isWritableLayer(this.inner)) throw new VfsError('READ_ONLY', op, path);
    return this.inner;
  }
}

function isAtOrBelow(path: string, top: string): boolean {
  return top === '' || path === top || path.startsWith(`${top}/`);
}

/** `inner` with `rules` applied; `inner` itself when there is no rule to apply. */
export function withPathRules<L extends Layer>(inner: L, rules: PathRules): L | PathRulesLayer {
  return rules.hidden === undefined && (rules.readOnly?.length ?? 0) === 0 ? inner : new PathRulesLayer(inner, rules);
}
