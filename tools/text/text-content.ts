/**
 * How the file tools look at file bytes: the sha256 they report, the binary heuristic, strict
 * UTF-8 decoding for edits, and the line model shared by read, edit and grep.
 *
 * Binary heuristic (git's, also ripgrep's first check): a file is binary when a NUL byte occurs
 * in its first 8 KiB. Text in other encodings without NULs is read as UTF-8 with replacement
 * characters; edit refuses it (`BINARY_FILE`) because re-encoding would change bytes it did
 * not touch.
 */
import { createHash, hash } from 'node:crypto';

/** Bytes inspected by the binary heuristic. */
export const BINARY_SNIFF_BYTES = 8192;
/** Largest file read and edit accept (`TOO_LARGE` above), 10 MiB. */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** Lower-case hex sha256 of the bytes. */
export function sha256Hex(bytes: Uint8Array): string {
  // One-shot `crypto.hash` (Node ≥ 20.12) skips the Hash object: ~20% faster on small files.
  return typeof hash === 'function' ? hash('sha256', bytes, 'hex') : createHash('sha256').update(bytes).digest('hex');
}

/** True when a NUL byte occurs in the first 8 KiB (see the module comment). */
export function looksBinary(bytes: Uint8Array): boolean {
  // Buffer's indexOf is a native byte scan (memchr); a Uint8Array's is a JavaScript loop, several times slower.
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, BINARY_SNIFF_BYTES)).indexOf(0) !== -1;
}

const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** UTF-8 text of the bytes, invalid sequences replaced by U+FFFD; a BOM is kept as U+FEFF. */
export function decodeText(bytes: Uint8Array): string {
  return lenient.decode(bytes);
}

/** UTF-8 text of the bytes, or undefined when they are not valid UTF-8 (a BOM is kept). */
export function decodeStrict(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/** UTF-8 bytes of a string. */
export function encodeText(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

/**
 * Offsets where each line starts. A line ends after its '\n'; a final newline does not start
 * a new line, so '' has 0 lines, 'a' and 'a\n' have 1, 'a\nb' has 2.
 */
export function lineStarts(text: string): number[] {
  const starts: number[] = [];
  if (text.length === 0) return starts;
  starts.push(0);
  let at = text.indexOf('\n');
  while (at !== -1 && at + 1 < text.length) {
    starts.push(at + 1);
    at = text.indexOf('\n', at + 1);
  }
  return starts;
}

/** True when the text's line breaks are CRLF (it has '\r\n' and no bare '\n'). */
export function usesCrlf(text: string): boolean {
  const crlf = text.split('\r\n').length - 1;
  if (crlf === 0) return false;
  const lf = text.split('\n').length - 1;
  return lf === crlf;
}
