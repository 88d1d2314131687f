/**
 * `MemoryContentStore`: the `ContentStore` port (content-store.ts) in a Map, for the memory host
 * and tests. Bytes are copied in and out, so a caller changing its array changes nothing stored.
 */
import { type ContentStore, ContentStoreError, contentIdOf, isContentId } from './content-store.js';

/** Blobs in a Map from content id to bytes. */
export class MemoryContentStore implements ContentStore {
  private readonly objects = new Map<string, Uint8Array>();

  async put(bytes: Uint8Array): Promise<string> {
    const id = contentIdOf(bytes);
    if (!this.objects.has(id)) this.objects.set(id, Uint8Array.from(bytes));
    return id;
  }

  async get(id: string): Promise<Uint8Array> {
    const bytes = isContentId(id) ? this.objects.get(id) : undefined;
    if (!bytes) throw new ContentStoreError(id);
    return Uint8Array.from(bytes);
  }

  has(id: string): boolean {
    return this.objects.has(id);
  }

  sizeOf(id: string): number {
    return this.objects.get(id)?.length ?? 0;
  }

  async flush(): Promise<void> {
    // Nothing to make durable in memory.
  }

  remove(ids: readonly string[]): void {
    for (const id of ids) this.objects.delete(id);
  }
}
