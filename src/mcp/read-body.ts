/**
 * Reads an HTTP request body as JSON with a size cap, without trusting Content-Length alone.
 * A body over the cap is read to its end but not kept: its bytes only pass a `JsonIdScanner`,
 * so the answer can carry the request's id and the client gets a clean reply on an intact
 * connection instead of a reset mid-upload.
 */
import type { IncomingMessage } from 'node:http';
import { JsonIdScanner, type ScannedId } from './json-id-scanner.js';

/** The outcome of reading a body: the parsed value, or why there is none. */
export type BodyOutcome =
  | { kind: 'json'; value: unknown }
  | { kind: 'too-large'; limit: number; bytes: number; id: ScannedId }
  | { kind: 'invalid-json'; reason: string }
  | { kind: 'aborted' };

/**
 * Reads and parses `req`'s body. Keeps at most `maxBytes`; past them it answers `too-large` with
 * the body's size and the id found in it (or `null`) once the body ended. `aborted` when the
 * client went away first.
 */
export function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let scanner: JsonIdScanner | null = null;
    let settled = false;
    const settle = (outcome: BodyOutcome) => {
      if (settled) return;
      settled = true;
      chunks = [];
      resolve(outcome);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (scanner) {
        if (!scanner.done) scanner.push(chunk);
        return;
      }
      if (size > maxBytes) {
        scanner = new JsonIdScanner();
        for (const kept of chunks) scanner.push(kept);
        scanner.push(chunk);
        chunks = [];
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (scanner) return settle({ kind: 'too-large', limit: maxBytes, bytes: size, id: scanner.id });
      const text = Buffer.concat(chunks).toString('utf8');
      chunks = [];
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
