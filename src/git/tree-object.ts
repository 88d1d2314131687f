/**
 * `parseTreeObject`: the entries of a git tree object from its raw content
 * (`<mode> SP <name> NUL <20-byte oid>`, repeated), every name as the tree stores it.
 *
 * Mirrors isomorphic-git's tree parser with one difference: it refuses no name. isomorphic-git
 * throws for the whole tree when one entry is named like `.git` under git's NTFS/HFS rules
 * (`.GIT`, `git~1`, `.git.`, `.g\u200cit`) or holds a `:` or a backslash, so a pinned tree holding
 * one made every read of a copy workspace fail. Here each entry is kept; the namespace hides and
 * protects the `.git`-like ones (vfs/dot-git-name.ts), as in the other backends, and the rest of
 * the tree reads normally. Modes are normalised as git and isomorphic-git do (`40000` is
 * `040000`, a legacy `100664` is `100644`). Throws `GitError` `OBJECT_MISSING` for bytes that
 * are not a tree (a truncated entry, a mode git does not know). SHA-1 object names only.
 */
import type { TreeEntry } from '../../vfs/index.js';
import { GitError } from './git-port.js';

const SPACE = 0x20;
const NUL = 0;
const OID_BYTES = 20;
const decoder = new TextDecoder('utf-8');

/** The entries of the tree whose raw content is `bytes` (`oid` names it in errors), in stored order. */
export function parseTreeObject(bytes: Uint8Array, oid: string): TreeEntry[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < buffer.length) {
    const space = buffer.indexOf(SPACE, at);
    const nul = space === -1 ? -1 : buffer.indexOf(NUL, space + 1);
    if (space === -1 || nul === -1 || nul + 1 + OID_BYTES > buffer.length) throw malformed(oid, at);
    const mode = modeOf(buffer.toString('latin1', at, space));
    if (mode === undefined) throw malformed(oid, at);
    entries.push({
      name: decoder.decode(buffer.subarray(space + 1, nul)),
      mode,
      type: mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob',
      oid: buffer.toString('hex', nul + 1, nul + 1 + OID_BYTES),
    });
    at = nul + 1 + OID_BYTES;
  }
  return entries;
}

/** The mode as git normalises it (isomorphic-git's `limitModeToAllowed`), or undefined. */
function modeOf(text: string): TreeEntry['mode'] | undefined {
  if (!/^[0-7]{5,6}$/.test(text)) return undefined;
  if (/^0?4/.test(text)) return '040000';
  if (text.startsWith('1006')) return '100644';
  if (text.startsWith('1007')) return '100755';
  if (text.startsWith('120')) return '120000';
  if (text.startsWith('160')) return '160000';
  return undefined;
}

function malformed(oid: string, at: number): GitError {
  return new GitError('OBJECT_MISSING', 'read-tree', `tree ${oid} is malformed at byte ${at}`);
}
