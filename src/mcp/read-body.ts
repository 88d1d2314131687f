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
import { JsonIdScanner, type ScannedId } from './json-id-scanner.js';
import { JsonTokenMeter } from './json-token-meter.js';
import { decodeStrictUtf8 } from './strict-utf8.js';
import { LARGE_BODY_BYTES, type BodySlots } from './body-slots.js';

/** The limits `readJsonBody` applies: bytes, structural tokens (`JsonTokenMeter`), and the slots large bodies share. */
export interface BodyLimits {
  maxBytes: number;
  maxTokens: number;
  largeBodies?: BodySlots;
}

/** The outcome of reading a body: the parsed value, or why there is none. */
export type BodyOutcome =
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
export function readJsonBody(req: IncomingMessage, { maxBytes, maxTokens, largeBodies }: BodyLimits): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const meter = new JsonTokenMeter();
    let scanner: JsonIdScanner | null = null;
    let tooComplex = false;
    let settled = false;
    let slot: 'none' | 'waiting' | (() => void) = 'none';
    const giveBack = () => {
      if (typeof slot === 'function') slot();
      slot = 'none';
    };
    const settle = (outcome: BodyOutcome) => {
      if (settled) return;
      settled = true;
      chunks = [];
      giveBack();
      resolve(outcome);
    };
    const drop = (chunk: Buffer) => {
      scanner = new JsonIdScanner();
      for (const kept of chunks) scanner.push(kept);
      scanner.push(chunk);
      chunks = [];
      giveBack(); // nothing more is kept
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (scanner) {
        if (!scanner.done) scanner.push(chunk);
        return;
      }
      if (size > maxBytes) return drop(chunk);
      if (largeBodies && slot === 'none' && size > LARGE_BODY_BYTES) {
        slot = 'waiting';
        req.pause();
        void largeBodies.acquire().then((release) => {
          if (settled || slot !== 'waiting') return release();
          slot = release;
          req.resume();
        });
      }
      meter.push(chunk);
      if (meter.tokens > maxTokens) {
        tooComplex = true;
        return drop(chunk);
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const dropped = scanner as JsonIdScanner | null;
      if (dropped) {
        if (size > maxBytes) return settle({ kind: 'too-large', limit: maxBytes, bytes: size, id: dropped.id });
        if (tooComplex) return settle({ kind: 'too-complex', limit: maxTokens, id: dropped.id });
      }
      const bytes = Buffer.concat(chunks);
      chunks = [];
      const text = decodeStrictUtf8(bytes);
      if (text === null) {
        const scanner = new JsonIdScanner();
        scanner.push(bytes);
        return settle({ kind: 'not-utf8', id: scanner.id });
      }
      try {
        settle({ kind: 'json', value: JSON.parse(text) });
      } catch (e) {
        settle({ kind: 'invalid-json', reason: (e as Error).message });
      }
    });
    req.on('error', () => settle({ kind: 'aborted' }));
    req.on('close', () => settle({ kind: 'aborted' }));
  });
}
