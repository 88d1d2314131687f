/**
 * `CappedLineReader`: splits a byte stream into newline-delimited messages (the MCP stdio
 * framing) and keeps at most `maxBytes` of any one line, with at most `maxTokens` structural
 * JSON tokens (`JsonTokenMeter`). A line past either limit is not kept: its bytes pass a
 * `JsonIdScanner` on their way out and the reader reports it with its id when the line ends,
 * then goes on with the next line. Memory stays bounded by the cap whatever arrives.
 */
import { JsonIdScanner, type ScannedId, JsonTokenMeter } from '../message-limits/index.js';

/** Where the reader delivers lines. */
interface LineSink {
  /** A complete line within the limits, without its `\n` (a trailing `\r` removed). */
  line(bytes: Buffer): void;
  /** A line longer than `maxBytes` ended: its size in bytes and the id found in it (or `null`). */
  oversized(bytes: number, id: ScannedId): void;
  /** A line of more than `maxTokens` tokens (and at most `maxBytes` bytes) ended: the id found in it. */
  tooComplex(id: ScannedId): void;
}

/** The limits of one line. */
interface LineLimits {
  maxBytes: number;
  maxTokens: number;
}

const NEWLINE = 0x0a;

/** Newline framing with per-line limits (see the module comment). */
export class CappedLineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private meter = new JsonTokenMeter();
  private scanner: JsonIdScanner | null = null;

  constructor(
    private readonly limits: LineLimits,
    private readonly sink: LineSink,
  ) {}

  /** Bytes of the line not finished yet (0 between lines). */
  get pending(): number {
    return this.size;
  }

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
    if (this.size <= this.limits.maxBytes) {
      this.meter.push(piece);
      if (this.meter.tokens <= this.limits.maxTokens) {
        this.parts.push(piece);
        return;
      }
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
    this.meter = new JsonTokenMeter();
    this.scanner = null;
    if (scanner) return size > this.limits.maxBytes ? this.sink.oversized(size, scanner.id) : this.sink.tooComplex(scanner.id);
    if (size === 0) return;
    let bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
    if (bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length > 0) this.sink.line(bytes);
  }
}
