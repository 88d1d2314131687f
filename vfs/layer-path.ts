/**
 * `checkLayerPath`: the one check every layer runs on a layer-relative path before it touches
 * anything, so that a layer holds on its own and never relies on the namespace having run the
 * grammar first (after Go's `fs.ValidPath`, which every `io/fs` implementation calls).
 *
 * A layer path is '' (the layer root) or names joined by '/': no leading, trailing or double
 * '/', no '.' or '..' segment, no NUL, no lone surrogate (Node would turn it into U+FFFD and
 * reach another name), each name at most 255 UTF-8 bytes and the whole path at most 4096
 * (vfs/path.ts `MAX_NAME_BYTES`, `MAX_PATH_BYTES`). Unlike the agent grammar (vfs/path.ts), a
 * backslash is an ordinary name character here, as it is on Linux: the grammar keeps it out of
 * agent input, and a file named so by someone else must still be listable and readable.
 */
import { VfsError } from './errors.js';
import { MAX_NAME_BYTES, MAX_PATH_BYTES, utf8Length } from './path.js';

/**
 * Throws unless `path` is a layer path (see the file comment): `BAD_NAME` for a non-string,
 * an empty, '.' or '..' segment, a NUL or a lone surrogate; `NAME_TOO_LONG` for a name over 255
 * bytes or a path over 4096. The error names `op` and the path as given (NUL shown as `\0`,
 * cut at 300 characters). O(length of the path); allocates nothing for a valid path.
 */
export function checkLayerPath(path: string, op: string): void {
  if (typeof path !== 'string') throw new VfsError('BAD_NAME', op, '', `the path is a ${typeof path}, not a string`);
  if (path === '') return;
  if (path.includes('\0')) throw bad(op, path, 'paths may not contain NUL');
  if (!path.isWellFormed()) throw bad(op, path, 'the path is not well-formed Unicode (lone surrogate)');
  let start = 0;
  while (start <= path.length) {
    let end = path.indexOf('/', start);
    if (end < 0) end = path.length;
    const length = end - start;
    if (length === 0) throw bad(op, path, "an empty name (a leading, trailing or doubled '/')");
    if (path.charCodeAt(start) === 0x2e && (length === 1 || (length === 2 && path.charCodeAt(start + 1) === 0x2e))) {
      throw bad(op, path, `'${path.slice(start, end)}' is not a file name in a layer path`);
    }
    // A UTF-16 unit is at most 3 UTF-8 bytes, so only long names need counting.
    if (length * 3 > MAX_NAME_BYTES && utf8Length(path.slice(start, end)) > MAX_NAME_BYTES) {
      throw new VfsError('NAME_TOO_LONG', op, shown(path));
    }
    start = end + 1;
  }
  if (path.length * 3 > MAX_PATH_BYTES && utf8Length(path) > MAX_PATH_BYTES) throw new VfsError('NAME_TOO_LONG', op, shown(path));
}

function bad(op: string, path: string, detail: string): VfsError {
  return new VfsError('BAD_NAME', op, shown(path), detail);
}

/** The path for an error message: NUL made visible, cut at 300 characters. */
function shown(path: string): string {
  const visible = path.replace(/\0/g, '\\0');
  return visible.length > 300 ? `${visible.slice(0, 300)}…` : visible;
}
