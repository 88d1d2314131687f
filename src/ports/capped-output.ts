/**
 * The two ways `NodeHostExec` keeps a stream's bytes under a cap: `HeadBuffer` keeps the first
 * bytes (git's output, parsed from the top), `TailBuffer` the last (a check's output, where
 * the failure is printed at the end). Both remember whether anything was dropped.
 */

/** A stream collector with a byte cap. */
export interface CappedOutput {
  /** Adds a chunk, dropping what does not fit under the cap. */
  push(chunk: Buffer): void;
  /** The kept bytes as UTF-8 text. */
  text(): string;
  /** True once any byte was dropped. */
  readonly truncated: boolean;
}

/** Keeps the first `cap` bytes of a stream. Limit: a cut inside a UTF-8 character decodes as U+FFFD. */
export class HeadBuffer implements CappedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (room <= 0) {
      if (chunk.length > 0) this.truncated = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks, this.size).toString('utf8');
  }
}

/**
 * Keeps the last `cap` bytes of a stream: whole chunks are dropped from the front as new ones
 * arrive, and the oldest kept chunk is cut to fit, so memory stays near `cap` however long the
 * stream is. When bytes were dropped, `text()` skips UTF-8 continuation bytes at the front so
 * the tail never starts with half a character.
 */
export class TailBuffer implements CappedOutput {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (chunk.length >= this.cap) {
      this.truncated ||= this.size > 0 || chunk.length > this.cap;
      this.chunks = [chunk.subarray(chunk.length - this.cap)];
      this.size = this.cap;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    let first = 0;
    while (this.size - this.chunks[first].length >= this.cap) {
      this.size -= this.chunks[first].length;
      first++;
    }
    if (first > 0) {
      this.chunks = this.chunks.slice(first);
      this.truncated = true;
    }
    if (this.size > this.cap) {
      this.chunks[0] = this.chunks[0].subarray(this.size - this.cap);
      this.size = this.cap;
      this.truncated = true;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks, this.size);
    let start = 0;
    if (this.truncated) while (start < all.length && start < 3 && (all[start] & 0xc0) === 0x80) start++;
    return all.subarray(start).toString('utf8');
  }
}
