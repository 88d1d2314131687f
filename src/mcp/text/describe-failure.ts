/**
 * One line describing a thrown value for a person: `CODE: message` when the error carries a
 * code (a gatefs `CodedError`, or a foreign code such as Node's `EADDRINUSE`: `codeOf`),
 * otherwise its message. Used by the CLI and the HTTP server so every failure reads the same way.
 */
import { codeOf } from '../../../vfs/index.js';
import { ManifestError } from '../../manifest/manifest-error.js';

/** Formats `e` as one line, never a stack trace. */
export function describeFailure(e: unknown): string {
  if (e instanceof Error) {
    const code = codeOf(e);
    const keyPath = e instanceof ManifestError ? e.keyPath : '';
    const first = e.message.split('\n')[0];
    const where = keyPath && !first.includes(keyPath) ? ` (at ${keyPath})` : '';
    return code !== undefined && !first.startsWith(code) ? `${code}: ${first}${where}` : `${first}${where}`;
  }
  return String(e);
}
