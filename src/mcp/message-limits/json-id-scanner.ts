/**
 * `JsonIdScanner`: finds the top-level `"id"` of a JSON-RPC message that is too large to keep,
 * while its bytes stream past, in constant memory. A transport that refuses an oversized message
 * feeds it the bytes it drops, so the error it answers carries the request's id (the SDK client
 * can then fail that one call instead of waiting for a reply that never comes).
 *
 * It is a byte-level JSON lexer that tracks only what it needs: string/escape state, nesting
 * depth, and the keys of the outermost object. Multi-byte UTF-8 needs no care: no byte of a
 * multi-byte sequence equals `"`, `\`, `{`, `}`, `[`, `]`, `,` or `:`. Keys are compared as
 * written: an id key spelled with escapes (`"\u0069d"`) is not recognised, and the answer then
 * carries `id: null`, as it does for a message whose id cannot be found at all.
 */

/** What the scanner recovered: a request id, `null` (none could be found), or not yet known. */
export type ScannedId = string | number | null;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]
const LONGEST_ID_TEXT = 512;

/** Streams bytes of one JSON text and reports its top-level `id` member. */
export class JsonIdScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectingKey = false;
  /** The current depth-1 key while it is read (`null` once it cannot be "id"). */
  private key: number[] | null = null;
  private lastKey = '';
  /** Raw text of the id value while it is read. */
  private idText: number[] | null = null;
  private outcome: ScannedId | undefined;

  /** True once the id is known (found, or known to be missing): more bytes change nothing. */
  get done(): boolean {
    return this.outcome !== undefined;
  }

  /** The id found so far: a string or number, or `null` when there is none (yet). */
  get id(): ScannedId {
    return this.outcome ?? null;
  }

  /**
   * Feeds the next bytes of the message. Inside a string that cannot matter (not a key, not the
   * id) it jumps to the next `"` or `\` with the native `indexOf`, so a long content string
   * costs little more than a copy.
   */
  push(bytes: Uint8Array): void {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let nextQuote = -2; // -2: not looked up yet; -1: none in the rest of this chunk
    let nextBackslash = -2;
    for (let i = 0; i < buffer.length && this.outcome === undefined; i++) {
      if (this.inString && !this.escaped && this.key === null && this.idText === null) {
        if (nextQuote !== -1 && nextQuote < i) nextQuote = buffer.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = buffer.indexOf(BACKSLASH, i);
        const stop = nextQuote === -1 ? nextBackslash : nextBackslash === -1 ? nextQuote : Math.min(nextQuote, nextBackslash);
        if (stop === -1) return;
        i = stop;
      }
      this.step(buffer[i]);
    }
  }

  private step(b: number): void {
    if (this.idText) return this.stepId(b);
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) this.escaped = true;
      else if (b === QUOTE) return this.endString();
      if (this.key) {
        this.key.push(b);
        if (this.key.length > 2) this.key = null; // longer than "id"
      }
      return;
    }
    if (b === QUOTE) {
      this.inString = true;
      this.key = this.depth === 1 && this.expectingKey ? [] : null;
      return;
    }
    if (OPEN.has(b)) {
      if (this.depth === 0 && b !== 0x7b) this.outcome = null; // a batch or a bare array: no single id
      this.depth++;
      if (this.depth === 1) this.expectingKey = true;
      return;
    }
    if (CLOSE.has(b)) {
      this.depth--;
      if (this.depth <= 0) this.outcome = null; // the object ended without an id
      return;
    }
    if (this.depth !== 1) return;
    if (b === COMMA) {
      this.expectingKey = true;
      this.lastKey = '';
    } else if (b === COLON && this.lastKey === 'id') {
      this.idText = [];
    }
  }

  private endString(): void {
    this.inString = false;
    if (this.depth === 1 && this.expectingKey) {
      this.lastKey = this.key ? String.fromCharCode(...this.key) : '';
      this.expectingKey = false;
    }
    this.key = null;
  }

  /** Collects the raw id value up to the `,` or `}` that ends it, then parses it. */
  private stepId(b: number): void {
    const text = this.idText!;
    if (this.inString) {
      text.push(b);
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) this.escaped = true;
      else if (b === QUOTE) this.inString = false;
    } else if (b === COMMA || CLOSE.has(b) || OPEN.has(b)) {
      return this.finishId(OPEN.has(b) ? null : text);
    } else {
      if (b === QUOTE) this.inString = true;
      text.push(b);
    }
    if (text.length > LONGEST_ID_TEXT) this.finishId(null);
  }

  private finishId(text: number[] | null): void {
    this.idText = null;
    if (!text) return void (this.outcome = null);
    try {
      const value: unknown = JSON.parse(Buffer.from(text).toString('utf8'));
      this.outcome = typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : null;
    } catch {
      this.outcome = null;
    }
  }
}
