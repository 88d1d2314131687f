/**
 * The grammar shared by manifest paths (mount paths and disclosure paths): a literal path,
 * split into segments, with every character and segment rule checked. What each kind of path
 * may additionally be (absolute or not, reserved places) is decided by its own file.
 */
import { MAX_NAME_BYTES, MAX_PATH_BYTES, utf8Length } from '../../vfs/index.js';
import { ManifestError } from './manifest-error.js';

/** A path split into segments; `absolute` when it started with '/'. */
interface LiteralPath {
  absolute: boolean;
  segments: string[];
  /** The normalized spelling: one trailing '/' removed, otherwise as written. */
  text: string;
}

function invalid(keyPath: string, detail: string): ManifestError {
  return new ManifestError('INVALID_VALUE', keyPath, detail);
}

/**
 * Splits `raw` into segments. A single trailing '/' is accepted and dropped ('src/schema/').
 * Throws `ManifestError` `INVALID_VALUE` at `keyPath` for: an empty path, NUL or backslash,
 * a lone surrogate, an empty segment ('a//b'), a '.' or '..' segment, a name over 255 UTF-8
 * bytes or a path over 4096. The root '/' alone is returned with no segments.
 */
export function splitLiteralPath(raw: string, keyPath: string): LiteralPath {
  if (raw.length === 0) throw invalid(keyPath, 'the path is empty');
  if (/[\u0000\\]/.test(raw)) throw invalid(keyPath, 'the path contains NUL or a backslash; use / as the separator');
  if (!raw.isWellFormed()) throw invalid(keyPath, 'the path is not well-formed Unicode (lone surrogate)');
  if (utf8Length(raw) > MAX_PATH_BYTES) throw invalid(keyPath, `the path is longer than ${MAX_PATH_BYTES} bytes`);
  const absolute = raw.startsWith('/');
  const text = raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw;
  const body = absolute ? text.slice(1) : text;
  const segments = body === '' ? [] : body.split('/');
  for (const seg of segments) {
    if (seg === '') throw invalid(keyPath, `'${raw}' has an empty segment ('//')`);
    if (seg === '.') throw invalid(keyPath, `'${raw}' has a '.' segment; write the path without it`);
    if (seg === '..') throw invalid(keyPath, `'${raw}' contains '..'; paths may not climb (traversal)`);
    if (utf8Length(seg) > MAX_NAME_BYTES) throw invalid(keyPath, `a name in '${raw}' is longer than ${MAX_NAME_BYTES} bytes`);
  }
  return { absolute, segments, text };
}

/** True when the first segment is '.git' (compared without case: case-insensitive file systems). */
export function isUnderGitDir(path: LiteralPath): boolean {
  return !path.absolute && path.segments.length > 0 && path.segments[0]!.toLowerCase() === '.git';
}
