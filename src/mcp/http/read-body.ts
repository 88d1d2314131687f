/**
 * Reads an HTTP request body as JSON within the message limits, without trusting
 * Content-Length alone. The bytes are counted and metered (`JsonTokenMeter`) as they arrive; a
 * body past either limit is read to its end but not kept: its bytes only pass a
 * `JsonIdScanner`, so the answer can carry the request's id and the client gets a clean reply on
 * an intact connection instead of a reset mid-upload. Only a body within both is parsed. A body
 * kept past `LARGE_BODY_BYTES` first takes one of the server's `BodySlots` (the request is
 * paused until one is free) and gives it back once it is parsed, dropped or aborted.
 */
import type { IncomingMessage } from 'node:http';
import { JsonIdScanner, type ScannedId, JsonTokenMeter, decodeStrictUtf8 } from '../message-limits/index.js';
import { LARGE_BODY_BYTES, type BodySlots } from './body-slots.js';

/** The limits `readJsonBody` applies: bytes, structural tokens (`JsonTokenMeter`), and the slots large bodies share. */
export interface BodyLimits {
  maxBytes: number;
  maxTokens: number;
  largeBodies?: BodySlots;
}

/** The outcome of reading a body: the parsed value, or why there is none. */
type BodyOutcome =
  | { kind: 'json'; value: unknown }
  | { kind: 'too-large'; limit: number; bytes: number; id: ScannedId }
  | { kind: 'too-complex'; limit: number; id: ScannedId }
  | { kind: 'not-utf8'; id: ScannedId }
  | { kind: 'invalid-json'; reason: string }
  | { kind: 'aborted' };

/**
 * Reads and parses `req`'s body. Keeps at most `maxBytes`; past them it answers `too-large` with
 * the body's size and the id found in it (or `null`) once the body ended, and past `maxTokens`
 * `too-complex` the same way (before anything was parsed). A body that is not UTF-8 answers
 * `not-utf8` with its id (`decodeStrictUtf8`). `aborted` when the client went away first.
 */
export function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const reader = new BodyReader(req, limits, resolve);
    req.on('data', (chunk: Buffer) => reader.data(chunk));
    req.on('end', () => reader.end());
    req.on('error', () => reader.settle({ kind: 'aborted' }));
    req.on('close', () => reader.settle({ kind: 'aborted' }));
  });
}

/** One body being read: what is kept, what is counted, and the large-body slot it holds. */
class BodyReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly meter = new JsonTokenMeter();
  /** Set once the body is past a limit: nothing more is kept, the rest only passes this scanner (for the id). */
  private scanner: JsonIdScanner | null = null;
  private tooComplex = false;
  private settled = false;
  /** No slot, waiting for one (the request is paused), or the function that gives it back. */
  private slot: 'none' | 'waiting' | (() => void) = 'none';

  constructor(
    private readonly req: IncomingMessage,
    private readonly limits: BodyLimits,
    private readonly resolve: (outcome: BodyOutcome) => void,
  ) {}

  /** Counts a chunk; keeps it while the body is within both limits, else only scans it. */
  data(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.scanner) {
      if (!this.scanner.done) this.scanner.push(chunk);
      return;
    }
    if (this.size > this.limits.maxBytes) return this.drop(chunk);
    if (this.size > LARGE_BODY_BYTES) this.holdSlot();
    this.meter.push(chunk);
    if (this.meter.tokens > this.limits.maxTokens) {
      this.tooComplex = true;
      return this.drop(chunk);
    }
    this.chunks.push(chunk);
  }

  /** The body ended: the refusal of a dropped body, or the parsed one. */
  end(): void {
    if (this.scanner) {
      if (this.size > this.limits.maxBytes)
        return this.settle({ kind: 'too-large', limit: this.limits.maxBytes, bytes: this.size, id: this.scanner.id });
      if (this.tooComplex) return this.settle({ kind: 'too-complex', limit: this.limits.maxTokens, id: this.scanner.id });
    }
    const bytes = Buffer.concat(this.chunks);
    this.chunks = [];
    this.settle(parseBody(bytes));
  }

  /** Resolves with `outcome` once (later calls do nothing) and gives the slot back. */
  settle(outcome: BodyOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.chunks = [];
    this.giveBack();
    this.resolve(outcome);
  }

  /** Stops keeping the body: what was kept and `chunk` go through a scanner, and the slot is given back. */
  private drop(chunk: Buffer): void {
    const scanner = new JsonIdScanner();
    for (const kept of this.chunks) scanner.push(kept);
    scanner.push(chunk);
    this.scanner = scanner;
    this.chunks = [];
    this.giveBack(); // nothing more is kept
  }

  /** Takes a large-body slot once, pausing the request until one is free. */
  private holdSlot(): void {
    const { largeBodies } = this.limits;
    if (!largeBodies || this.slot !== 'none') return;
    this.slot = 'waiting';
    this.req.pause();
    void largeBodies.acquire().then((release) => {
      if (this.settled || this.slot !== 'waiting') return release();
      this.slot = release;
      this.req.resume();
    });
  }

  private giveBack(): void {
    if (typeof this.slot === 'function') this.slot();
    this.slot = 'none';
  }
}

/** A complete kept body: `not-utf8` (with the id found in it), `invalid-json`, or the parsed value. */
function parseBody(bytes: Buffer): BodyOutcome {
  const text = decodeStrictUtf8(bytes);
  if (text === null) {
    const scanner = new JsonIdScanner();
    scanner.push(bytes);
    return { kind: 'not-utf8', id: scanner.id };
  }
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch (e) {
    return { kind: 'invalid-json', reason: (e as Error).message };
  }
}
