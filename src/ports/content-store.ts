/**
 * The `ContentStore` port: content-addressed blobs (the bytes of files kept by `copy` and `empty`
 * snapshots), named by the sha256 of their bytes, so a file unchanged between snapshots is
 * stored once. `ContentStoreDir` (content-store-dir.ts) keeps them under
 * `<stateDir>/snapshots/objects/`; `MemoryContentStore` (memory-content-store.ts) in a Map.
 */
import { createHash } from 'node:crypto';
import { CodedError } from '../../vfs/index.js';

/** Blobs named by the sha256 hex of their bytes (see the file comment). */
export interface ContentStore {
  /** Stores `bytes` and returns their sha256 hex id; idempotent (an object already there costs nothing). */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes of `id`. Throws `ContentStoreError` `SNAPSHOT_NOT_FOUND` when missing or `id` is not 64 lowercase hex. */
  get(id: string): Promise<Uint8Array>;
  /** True when `id` is stored (false for a malformed id). */
  has(id: string): boolean;
  /** Bytes stored for `id` (0 when missing or malformed). */
  sizeOf(id: string): number;
  /** Makes every object put since the last flush durable (a crash after it loses none of them). */
  flush(): Promise<void>;
  /** Removes the objects; missing or malformed ids are fine. */
  remove(ids: readonly string[]): void;
}

/** A blob the store does not hold (`SNAPSHOT_NOT_FOUND`), with the id asked for (cut to 80 characters). */
export class ContentStoreError extends CodedError<'SNAPSHOT_NOT_FOUND', { readonly id: string }> {
  override readonly name = 'ContentStoreError';

  constructor(id: string, options?: { cause?: unknown }) {
    const shown = String(id).slice(0, 80);
    super(
      'SNAPSHOT_NOT_FOUND',
      `no stored object '${shown}': the snapshot that needs it is incomplete or was removed`,
      { id: shown },
      options,
    );
  }
}

/** True when `id` has the form of a content id: 64 lowercase hex digits. */
export function isContentId(id: string): boolean {
  return typeof id === 'string' && /^[0-9a-f]{64}$/.test(id);
}

/** The content id of `bytes` (sha256, lowercase hex). */
export function contentIdOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
