/**
 * Reads an HTTP request body as JSON with a size cap, without trusting Content-Length alone.
 */
import type { IncomingMessage } from 'node:http';

/** Default body cap of `gatefs serve --http`: 4 MiB (a write of a large file fits; a flood does not). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The outcome of reading a body: the parsed value, or why there is none. */
export type BodyOutcome =
  | { kind: 'json'; value: unknown }
  | { kind: 'too-large'; limit: number }
  | { kind: 'invalid-json'; reason: string }
  | { kind: 'aborted' };

/**
 * Reads and parses `req`'s body. Stops reading once `maxBytes` is exceeded (declared or
 * actual) and answers `too-large`; the caller should reply 413 and close the connection.
 */
export function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.pause();
    return Promise.resolve({ kind: 'too-large', limit: maxBytes });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: BodyOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        settle({ kind: 'too-large', limit: maxBytes });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
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
