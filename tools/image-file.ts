/**
 * Which files read returns as images: PNG, JPEG, GIF and WebP, recognised by their first bytes
 * (never by the name alone: a `.png` holding text is text), with their pixel size when the
 * header gives it. These are the formats MCP clients and model APIs take as image content.
 */

/** An image format read returns as MCP image content. */
interface ImageKind {
  mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  /** Pixels, when the header says (undefined for a header cut short). */
  width?: number;
  height?: number;
}

/** Largest image read returns (3.75 MiB: 5 MiB once base64-encoded, the common API limit). */
export const IMAGE_MAX_BYTES = 3.75 * 1024 * 1024;

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The image format of `bytes` by their signature, or undefined when they are not one of the four. */
export function imageKind(bytes: Uint8Array): ImageKind | undefined {
  // Every signature starts with one of these bytes; a text file is told apart at once.
  const first = bytes[0];
  if (first !== 0x89 && first !== 0xff && first !== 0x47 && first !== 0x52) return undefined;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 8 && PNG.every((v, i) => b[i] === v)) {
    // The IHDR chunk comes first: width and height, big-endian, at 16 and 20.
    return b.length >= 24 && b.toString('latin1', 12, 16) === 'IHDR'
      ? { mimeType: 'image/png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) }
      : { mimeType: 'image/png' };
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { mimeType: 'image/jpeg', ...jpegSize(b) };
  if (b.length >= 6 && (b.toString('latin1', 0, 6) === 'GIF87a' || b.toString('latin1', 0, 6) === 'GIF89a')) {
    return b.length >= 10 ? { mimeType: 'image/gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) } : { mimeType: 'image/gif' };
  }
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    return { mimeType: 'image/webp', ...webpSize(b) };
  }
  return undefined;
}

/** A JPEG's size from its first start-of-frame marker (SOF0–SOF15 except DHT, JPG, DAC). */
function jpegSize(b: Buffer): { width?: number; height?: number } {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return {};
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return {};
}

/** A WebP's size from its VP8, VP8L or VP8X chunk. */
function webpSize(b: Buffer): { width?: number; height?: number } {
  if (b.length < 30) return {};
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  return {};
}
