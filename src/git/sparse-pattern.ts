/**
 * Sparse-checkout patterns for exact repository paths. gatefs runs git's sparse checkout in
 * non-cone mode, whose patterns follow `.gitignore` syntax: a bare name matches at any depth
 * and `* ? [` are wildcards. `sparsePattern` turns one literal path into a pattern that matches
 * exactly that path: anchored with a leading '/', every wildcard and a trailing space escaped.
 *
 * Limit: a pattern is one line of git's `info/sparse-checkout` file, so a path holding a line
 * break cannot be expressed; `isSparseExpressible` says so, and callers refuse such paths.
 */

const SPECIAL = /[*?[\]\\!#]/g;

/** True when `path` can be written as a sparse-checkout pattern (no CR or LF). */
export function isSparseExpressible(path: string): boolean {
  return !/[\r\n]/.test(path);
}

/**
 * The anchored, escaped pattern matching exactly `path` (repository-relative, '/'-separated).
 * Throws `RangeError` for a path holding a line break (check `isSparseExpressible` first).
 */
function sparsePattern(path: string): string {
  if (!isSparseExpressible(path)) throw new RangeError('a path with a line break cannot be a sparse-checkout pattern');
  const escaped = path.replace(SPECIAL, (c) => `\\${c}`);
  return `/${escaped.endsWith(' ') ? `${escaped.slice(0, -1)}\\ ` : escaped}`;
}

/** The literal path a pattern made by `sparsePattern` stands for (the inverse). */
export function pathOfSparsePattern(pattern: string): string {
  return pattern.replace(/^\//, '').replace(/\\(.)/g, '$1');
}

/** The content of an `info/sparse-checkout` file listing exactly `paths`. */
export function sparseCheckoutFile(paths: Iterable<string>): string {
  let text = '';
  for (const p of paths) text += `${sparsePattern(p)}\n`;
  return text;
}
