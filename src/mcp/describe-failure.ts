/**
 * One line describing a thrown value for a person: `CODE: message` when the error carries a
 * string `code` (ManifestError, WorkspaceError, VfsError, …), otherwise its message. Used by
 * the CLI and the HTTP server so every failure reads the same way.
 */

/** Formats `e` as one line, never a stack trace. */
export function describeFailure(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    const keyPath = (e as { keyPath?: unknown }).keyPath;
    const first = e.message.split('\n')[0];
    const where = typeof keyPath === 'string' && keyPath && !first.includes(keyPath) ? ` (at ${keyPath})` : '';
    return typeof code === 'string' && !first.startsWith(code) ? `${code}: ${first}${where}` : `${first}${where}`;
  }
  return String(e);
}
