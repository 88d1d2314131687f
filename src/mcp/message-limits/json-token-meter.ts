/**
 * `JsonTokenMeter`: counts the structural tokens of a JSON text while its bytes stream past, in
 * constant memory, so a transport can refuse a message whose structure is too large before it
 * hands it to `JSON.parse`. Parsing costs time per value: a 120 MiB body of `[{},{},…]` keeps
 * `JSON.parse` (and with it the whole server, every conversation) busy for minutes, and deep
 * nesting grows worse than linearly, while a string of the same size parses in a second.
 *
 * A token is one of the bytes `{`, `[`, `,`, `:` outside a string, or the `"` that opens a
 * string. Every JSON value but a lone scalar adds at least one, so the count bounds the number of
 * values and the nesting depth; `maxJsonTokens` (json-token-bound.ts) gives the most a
 * schema-valid value can have. Multi-byte UTF-8 needs no care: no byte of a multi-byte sequence
 * equals `"` or `\`. The text is not validated: that is `JSON.parse`'s job, on what passes.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** `{`, `[`, `,` and `:`: the structural bytes counted outside strings. */
const STRUCTURAL = new Set([0x7b, 0x5b, 0x2c, 0x3a]);

/** Streams bytes of one JSON text and counts its structural tokens (see the module comment). */
export class JsonTokenMeter {
  private inString = false;
  private escaped = false;
  private count = 0;

  /** Tokens seen so far. */
  get tokens(): number {
    return this.count;
  }

  /**
   * Feeds the next bytes of the text. Inside a string it jumps to the next `"` or `\` with the
   * native `indexOf`, so a long string costs little more than a copy.
   */
  push(bytes: Uint8Array): void {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // Positions of the next `"` and `\` at or after i (-2: not looked up yet, -1: none left), kept
    // across steps so a string full of escapes is searched once, not once per escape.
    let nextQuote = -2;
    let nextBackslash = -2;
    let i = 0;
    while (i < buffer.length) {
      if (this.escaped) {
        this.escaped = false;
        i++;
        continue;
      }
      if (this.inString) {
        if (nextQuote !== -1 && nextQuote < i) nextQuote = buffer.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = buffer.indexOf(BACKSLASH, i);
        const stop = nextQuote === -1 ? nextBackslash : nextBackslash === -1 ? nextQuote : Math.min(nextQuote, nextBackslash);
        if (stop === -1) return;
        if (stop === nextBackslash) this.escaped = true;
        else this.inString = false;
        i = stop + 1;
        continue;
      }
      const b = buffer[i++];
      if (b === QUOTE) {
        this.inString = true;
        this.count++;
      } else if (STRUCTURAL.has(b)) this.count++;
    }
  }
}
