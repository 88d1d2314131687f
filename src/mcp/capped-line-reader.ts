/**
 * `CappedLineReader`: splits a byte stream into newline-delimited messages (the MCP stdio
 * framing) and keeps at most `maxBytes` of any one line. A longer line is not kept: its bytes
 * pass a `JsonIdScanner` on their way out and the reader reports its size and id when the line
 * ends, then goes on with the next line. Memory stays bounded by the cap whatever arrives.
 */
import { JsonIdScanner, type ScannedId } from './json-id-scanner.js';

/** Where the reader delivers lines. */
export interface LineSink {
  /** A complete line of at most `maxBytes` bytes, without its `\n` (a trailing `\r` removed). */
  line(bytes: Buffer): void;
  /** A line longer than the cap ended: its size in bytes and the id found in it (or `null`). */
  oversized(bytes: number, id: ScannedId): void;
}

const NEWLINE = 0x0a;

/** Newline framing with a per-line cap (see the module comment). */
export class CappedLineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private scanner: JsonIdScanner | null = null;

  constructor(private readonly maxBytes: number, private readonly sink: LineSink) {}

  /** Feeds the next chunk; delivers every line it completes, in order. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (end > start) this.take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.finishLine();
      start = newline + 1;
    }
  }

  private take(piece: Buffer): void {
    this.size += piece.length;
    if (this.scanner) {
      if (!this.scanner.done) this.scanner.push(piece);
      return;
    }
    if (this.size <= this.maxBytes) {
      this.parts.push(piece);
      return;
    }
    this.scanner = new JsonIdScanner();
    for (const kept of this.parts) this.scanner.push(kept);
    this.scanner.push(piece);
    this.parts = [];
  }

  private finishLine(): void {
    const { parts, size, scanner } = this;
    this.parts = [];
    this.size = 0;
    this.scanner = null;
    if (scanner) return this.sink.oversized(size, scanner.id);
    if (size === 0) return;
    let bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
    if (bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length > 0) this.sink.line(bytes);
  }
}
