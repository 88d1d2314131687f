/**
 * `readLargeWindow`: read's window of a file over 10 MiB, found in one streaming pass that
 * never holds the file: every slice is hashed (the sha256 of the whole file) and scanned for
 * line breaks; only the lines of the window are decoded, each kept to what the window can show
 * (tools/read-window.ts). Memory stays at one slice plus the window, whatever the file's size.
 * Layers that cannot stream (memory, git objects) hand over the bytes whole
 * (vfs/layer.ts `ReadOptions.onChunk`), which this scans in the same slices.
 *
 * Limits: up to `READ_LARGE_MAX_BYTES` (`TOO_LARGE` above); the pass reads the whole file even
 * for a window at its start (`totalLines` and `sha256` need it), yielding between slices, so a
 * call on a 1 GiB file takes seconds without blocking the event loop. Binary files are refused
 * as in read (NUL in the first 8 KiB); an image this large is `TOO_LARGE`.
 */
import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Namespace } from '../vfs/index.js';
import type { Resolved } from '../vfs/index.js';
import { ToolFailure } from './result.js';
import { BINARY_SNIFF_BYTES } from './text/index.js';
import { imageKind, IMAGE_MAX_BYTES } from './image-file.js';
import { LINE_CUT_CHARS } from './text/index.js';
import { LineWindow, READ_MAX_CONTENT_CHARS, type WindowResult } from './read-window.js';

/** Bytes scanned between two yields to the event loop when a layer hands the file over whole. */
const READ_SLICE_BYTES = 1 << 20;

/** Largest file read pages through (1 GiB). */
const READ_LARGE_MAX_BYTES = 1024 * 1024 * 1024;

/** A window of a large file, with the totals of the whole file. */
interface LargeWindow extends WindowResult {
  totalLines: number;
  sha256: string;
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The window of `limit` lines from line `offset` of the file `target`. `TOO_LARGE`,
 * `BINARY_FILE`, `INVALID_INPUT` (offset past the end) and the layer's codes.
 */
export async function readLargeWindow(ns: Namespace, target: Resolved, shown: string, offset: number, limit: number): Promise<LargeWindow> {
  const hash = createHash('sha256');
  const window = new LineWindow(offset, limit);
  // Bytes a window line keeps: enough for what the window can show of it.
  const keepBytes = (limit > 1 ? LINE_CUT_CHARS : READ_MAX_CONTENT_CHARS + 1) * 4;
  let line = 1; // the line being scanned
  let kept: Buffer[] = [];
  let keptBytes = 0;
  let units = 0; // UTF-16 length of the line being scanned (only counted inside the window)
  let sniffed = false;
  let lastByte = -1;
  let refusal: ToolFailure | undefined;

  let lineLastByte = -1; // the last byte of the line being scanned (to tell '\r\n' from '\n')

  const inWindow = () => line >= offset && window.wants;
  const finishLine = (terminator: '\n' | '') => {
    if (inWindow()) {
      let body = decoder.decode(Buffer.concat(kept, keptBytes));
      let ending: string = terminator;
      if (terminator === '\n' && lineLastByte === 13) {
        ending = '\r\n';
        units--;
        if (body.endsWith('\r')) body = body.slice(0, -1);
      }
      window.offer(line, body, ending, Math.max(units, body.length));
    }
    kept = [];
    keptBytes = 0;
    units = 0;
    lineLastByte = -1;
    line++;
  };
  const take = (chunk: Uint8Array, from: number, to: number) => {
    if (from >= to) return;
    lineLastByte = chunk[to - 1];
    if (!inWindow()) return;
    units += utf16Length(chunk, from, to);
    const room = keepBytes - keptBytes;
    if (room > 0) {
      const piece = Buffer.from(chunk.subarray(from, Math.min(to, from + room)));
      kept.push(piece);
      keptBytes += piece.length;
    }
  };
  const onChunk = (chunk: Uint8Array): boolean | undefined => {
    if (!sniffed) {
      sniffed = true;
      if (imageKind(chunk)) {
        refusal = new ToolFailure('TOO_LARGE', `'${shown}' is an image larger than the ${IMAGE_MAX_BYTES} bytes read returns`, shown);
        return false;
      }
      if (chunk.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1) {
        refusal = new ToolFailure('BINARY_FILE', `'${shown}' looks binary (a NUL byte in its first 8 KiB)`, shown);
        return false;
      }
    }
    hash.update(chunk);
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      take(chunk, from, nl);
      finishLine('\n');
      from = nl + 1;
    }
    take(chunk, from, chunk.length);
    if (chunk.length > 0) lastByte = chunk[chunk.length - 1];
    return undefined;
  };

  const rest = await ns.readFile(target, { maxBytes: READ_LARGE_MAX_BYTES, onChunk });
  // A layer that does not stream handed the bytes over whole: scan them a slice at a time too.
  for (let at = 0; at < rest.length && !refusal; at += READ_SLICE_BYTES) {
    if (at > 0) await yieldToLoop();
    onChunk(rest.subarray(at, Math.min(rest.length, at + READ_SLICE_BYTES)));
  }
  if (refusal) throw refusal;
  if (lastByte !== -1 && lastByte !== 10) finishLine('');
  const totalLines = line - 1;
  if (offset > Math.max(totalLines, 1)) {
    throw new ToolFailure(
      'INVALID_INPUT',
      `offset: the file has ${totalLines} line${totalLines === 1 ? '' : 's'}; offset ${offset} is past its end`,
      shown,
    );
  }
  return { ...window.result(), totalLines, sha256: hash.digest('hex') };
}

/** UTF-16 code units of the UTF-8 bytes `[from, to)`: one per lead byte, two for a 4-byte sequence. */
function utf16Length(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const b = bytes[i];
    if ((b & 0xc0) !== 0x80) n += b >= 0xf0 ? 2 : 1;
  }
  return n;
}
