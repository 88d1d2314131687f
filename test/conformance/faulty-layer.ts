/**
 * Fault injection for the conformance suite: `faultyLayer(inner, plan)` and
 * `faultyObjects(reader, plan)` pass every call through to the real layer or git object
 * reader, counting it on a shared `FaultPlan`; the call the plan is armed for throws once,
 * before reaching the inner one, as a failing disk or object store would. Several wrappers
 * share one plan, so "the N-th call" counts across every store under a stack (an overlay's
 * upper and lower, a projection's inner layer and the pinned commit's objects).
 */
import { VfsError, fromErrno, type VfsCode } from '../../vfs/errors.js';
import type {
  DirEntry,
  Layer,
  ReadOptions,
  RemoveOptions,
  RenameOptions,
  Stat,
  WritableLayer,
  WriteOptions,
  WriteResult,
} from '../../vfs/layer.js';
import { isLinkReadingLayer, isWritableLayer } from '../../vfs/layer.js';
import type { GitObjectReader, TreeEntry } from '../../vfs/git-object-reader.js';

/** The kinds of fault injected: the code a caller must see, and how it is made. */
export type FaultKind = 'INTERNAL' | 'EIO' | 'BUSY';

/** Every fault kind, each run at every call index. */
export const FAULT_KINDS: readonly FaultKind[] = ['INTERNAL', 'EIO', 'BUSY'];

/** The VfsError code a fault of `kind` carries (what the failing operation must answer). */
export function codeOf(kind: FaultKind): VfsCode {
  return kind === 'BUSY' ? 'BUSY' : 'INTERNAL';
}

/** Counts calls and throws once at the armed index. Unarmed (the default) it only counts. */
export class FaultPlan {
  calls = 0;
  private failAt = -1;
  private kind: FaultKind = 'INTERNAL';

  /** Restarts the count and makes call number `index` (0-based) throw a `kind` fault. */
  arm(index: number, kind: FaultKind): void {
    this.calls = 0;
    this.failAt = index;
    this.kind = kind;
  }

  /** Restarts the count with no fault armed. */
  disarm(): void {
    this.calls = 0;
    this.failAt = -1;
  }

  /** Counts one call; throws the fault when it is the armed one. */
  step(op: string, path: string): void {
    if (this.calls++ !== this.failAt) return;
    this.failAt = -1;
    throw faultError(this.kind, op, path);
  }
}

function faultError(kind: FaultKind, op: string, path: string): VfsError {
  // EIO and EMFILE go through the same errno mapping a real layer uses (INTERNAL, BUSY).
  if (kind === 'EIO') return fromErrno({ code: 'EIO' }, op, path);
  if (kind === 'BUSY') return fromErrno({ code: 'EMFILE' }, op, path);
  return new VfsError('INTERNAL', op, path, 'injected fault');
}

/** `inner` with every call counted on `plan` (writable exactly when `inner` is). */
export function faultyLayer(inner: Layer, plan: FaultPlan): Layer {
  const reads: Layer = {
    kind: `faulty(${inner.kind})`,
    async stat(path: string): Promise<Stat> {
      plan.step('stat', path);
      return inner.stat(path);
    },
    async readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
      plan.step('read', path);
      return inner.readFile(path, options);
    },
    async readdir(path: string): Promise<DirEntry[]> {
      plan.step('readdir', path);
      return inner.readdir(path);
    },
    ...(isLinkReadingLayer(inner)
      ? {
          async readLink(path: string): Promise<string> {
            plan.step('readlink', path);
            return inner.readLink(path);
          },
        }
      : {}),
  };
  if (!isWritableLayer(inner)) return reads;
  const writes: WritableLayer = {
    ...reads,
    async writeFile(path: string, data: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
      plan.step('write', path);
      return inner.writeFile(path, data, options);
    },
    async mkdir(path: string): Promise<void> {
      plan.step('mkdir', path);
      return inner.mkdir(path);
    },
    async remove(path: string, options?: RemoveOptions): Promise<void> {
      plan.step('remove', path);
      return inner.remove(path, options);
    },
    async rename(from: string, to: string, options?: RenameOptions): Promise<void> {
      plan.step('rename', from);
      return inner.rename(from, to, options);
    },
  };
  return writes;
}

/** `reader` with every call counted on `plan` (a failing object store). */
export function faultyObjects(reader: GitObjectReader, plan: FaultPlan): GitObjectReader {
  return {
    async commitTree(commit: string): Promise<string> {
      plan.step('read-commit', '');
      return reader.commitTree(commit);
    },
    async readTree(tree: string): Promise<TreeEntry[]> {
      plan.step('read-tree', '');
      return reader.readTree(tree);
    },
    async readBlob(blob: string): Promise<Uint8Array> {
      plan.step('read-blob', '');
      return reader.readBlob(blob);
    },
  };
}
