/**
 * `decodeStrictUtf8`: the text of a message's bytes, or `null` when they are not UTF-8. JSON
 * exchanged between systems must be UTF-8 (RFC 8259 § 8.1); decoding leniently, as
 * `Buffer.toString` does, turns each bad byte into U+FFFD, so a `write` of Latin-1 or binary
 * bytes would report ok for content the client never sent. Both transports refuse such a
 * message with a parse error instead.
 */

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes `bytes` as UTF-8; `null` when any sequence is invalid (a lone surrogate's encoding included). */
export function decodeStrictUtf8(bytes: Uint8Array): string | null {
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/** The error message for a message that is not UTF-8, the same on both transports. */
export const NOT_UTF8_MESSAGE = 'parse error: the message is not valid UTF-8 (JSON text must be UTF-8); nothing was done';
