/**
 * `withPathRules(inner, rules)`: `inner` with two name-based rules a workspace folder may need.
 *
 * - `hidden`: one folder (the state directory, wherever a workspace folder or mount holds it)
 *   is absent from listings, `NOT_FOUND` to reads, and `PROTECTED_PATH` to any change at or
 *   below it, and to removing a folder above it. Names are
 *   compared after `foldName` (vfs/fold-name.ts), so `.GATEFS`, one folder with `.gatefs` on a
 *   case-insensitive volume, is hidden too.
 * - `readOnly`: writes at or below these paths are `READ_ONLY` — where a read-only mount's
 *   folder lies inside a writable workspace folder (a read-only `/repo/docs` mount under a
 *   `shared` checkout of `/repo`). Reads pass through.
 * - a rename is a change at both ends, and a folder renamed carries everything in it: moving a
 *   folder that holds the hidden folder is `PROTECTED_PATH`, one that holds a read-only path
 *   `READ_ONLY`, as removing it would be.
 *
 * Everything else passes through unchanged, after the layer-path check (vfs/layer-path.ts:
 * `BAD_NAME`, `NAME_TOO_LONG`), which runs before any rule is asked. Limit: these rules name paths, not inodes; on disk
 * the host layer's identity guard is what stops a write reaching the same folder by another
 * route (a bind mount, a hard-linked folder). The name rules also cover layers without
 * identities (memory) and are checked first.
 */
import { VfsError } from './errors.js';
import { checkLayerPath } from './layer-path.js';
import type {
  DirEntry,
  Layer,
  LinkReadingLayer,
  ReadOptions,
  RemoveOptions,
  RenameOptions,
  Stat,
  WalkEntries,
  WalkOptions,
  WritableLayer,
  WriteOptions,
  WriteResult,
} from './layer.js';
import { baseName, isLinkReadingLayer, isWritableLayer, parentPath, walkLayer } from './layer.js';
import { FoldedPath, foldName } from './fold-name.js';
import { lockKeyOf, type LockKey, type LockableLayer } from './lock-key.js';

interface PathRules {
  /** Layer path of a folder to hide and protect. */
  hidden?: string;
  /** Layer paths at or below which writes are refused. */
  readOnly?: readonly string[];
}

/** A pass-through layer applying `PathRules` (see the file comment). */
class PathRulesLayer implements WritableLayer, LinkReadingLayer, LockableLayer {
  readonly kind: string;
  private readonly hidden?: string;
  /** The hidden folder and its parent, folded once for comparisons. */
  private readonly hiddenFolded?: { self: FoldedPath; parent: FoldedPath; name: string };
  private readonly readOnly: readonly string[];

  constructor(
    private readonly inner: Layer,
    rules: PathRules,
  ) {
    this.kind = inner.kind;
    this.hidden = rules.hidden;
    this.readOnly = rules.readOnly ?? [];
    if (rules.hidden !== undefined) {
      this.hiddenFolded = {
        self: new FoldedPath(rules.hidden),
        parent: new FoldedPath(parentPath(rules.hidden)),
        name: foldName(baseName(rules.hidden)),
      };
    }
  }

  async stat(path: string): Promise<Stat> {
    this.checkVisible(path, 'stat');
    return this.inner.stat(path);
  }

  async readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    this.checkVisible(path, 'read');
    return this.inner.readFile(path, options);
  }

  /** The inner layer's link target (`NOT_FOUND` for the hidden folder, `NOT_SYMLINK` when the inner layer reads none). */
  async readLink(path: string): Promise<string> {
    this.checkVisible(path, 'readlink');
    if (!isLinkReadingLayer(this.inner)) throw new VfsError('NOT_SYMLINK', 'readlink', path, 'this layer reads no link targets');
    return this.inner.readLink(path);
  }

  async readdir(path: string): Promise<DirEntry[]> {
    this.checkVisible(path, 'readdir');
    return this.withoutHidden(path, await this.inner.readdir(path));
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
    for await (const folder of walkLayer(this.inner, path, { descend, only: options.only })) {
      if (this.hiddenFolded!.parent.relation(folder.path) !== 'same') yield folder;
      else yield { path: folder.path, entries: this.withoutHidden(folder.path, folder.entries) };
    }
  }

  async writeFile(path: string, data: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    return this.writable(path, 'write').writeFile(path, data, options);
  }

  /** The inner layer's lock key: the rules refuse, they never move a write (vfs/lock-key.ts). */
  lockKey(path: string): LockKey {
    return lockKeyOf(this.inner, path);
  }

  async mkdir(path: string): Promise<void> {
    return this.writable(path, 'mkdir').mkdir(path);
  }

  async remove(path: string, options?: RemoveOptions): Promise<void> {
    checkLayerPath(path, 'remove');
    this.checkNotAboveHidden(path, 'remove');
    return this.writable(path, 'remove').remove(path, options);
  }

  /** The inner rename once both ends pass the rules, and `from` carries no hidden or read-only folder. */
  async rename(from: string, to: string, options?: RenameOptions): Promise<void> {
    checkLayerPath(from, 'rename');
    checkLayerPath(to, 'rename');
    const inner = this.writable(from, 'rename');
    this.writable(to, 'rename');
    this.checkNotAboveHidden(from, 'rename');
    const carried = this.readOnly.find((p) => p !== '' && p.startsWith(`${from}/`));
    if (carried !== undefined) throw new VfsError('READ_ONLY', 'rename', from, 'the folder holds a read-only folder');
    return inner.rename(from, to, options);
  }

  /** True when `path` is the hidden folder or lies below it (names folded). */
  isHidden(path: string): boolean {
    if (this.hiddenFolded === undefined) return false;
    const relation = this.hiddenFolded.self.relation(path);
    return relation === 'same' || relation === 'below';
  }

  /** True when `path` is at or below one of the read-only paths. */
  isReadOnly(path: string): boolean {
    return this.readOnly.some((p) => isAtOrBelow(path, p));
  }

  /** The entries of the folder `path` without the hidden folder's name (folded) when it holds it. */
  private withoutHidden(path: string, entries: DirEntry[]): DirEntry[] {
    const hidden = this.hiddenFolded;
    if (hidden === undefined || hidden.parent.relation(path) !== 'same') return entries;
    return entries.filter((e) => foldName(e.name) !== hidden.name);
  }

  /** `PROTECTED_PATH` for a folder above the hidden one: removing it would remove that one too. */
  private checkNotAboveHidden(path: string, op: string): void {
    if (this.hiddenFolded !== undefined && path !== '' && this.hiddenFolded.self.relation(path) === 'above') {
      throw new VfsError('PROTECTED_PATH', op, path, 'the folder holds a protected folder');
    }
  }

  private checkVisible(path: string, op: string): void {
    checkLayerPath(path, op);
    if (this.isHidden(path)) throw new VfsError('NOT_FOUND', op, path);
  }

  private writable(path: string, op: string): WritableLayer {
    checkLayerPath(path, op);
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
