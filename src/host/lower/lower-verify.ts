/**
 * `verifyCheckout`: proves that a folder git checked a commit out into holds exactly that
 * commit's tree, and repairs what git's checkout legitimately changed, so the lower folder of a
 * `copy` workspace serves byte for byte what the git-tree layer serves.
 *
 * Compared, entry by entry, with the commit's listing (`TreeCheckout.listTree`): every name is
 * there and nothing else (walked through the folder's confined host layer, links never
 * followed), each with its type; files with their executable bit and their blob id (`git
 * hash-object --no-filters`: the bytes as stored, whatever `.gitattributes` made checkout write);
 * links with the blob id of their target text (a target that is not UTF-8 cannot be compared:
 * the layers refuse to read it, so it is a mismatch).
 *
 * Repaired: a file whose bytes or executable bit differ (an `eol=crlf`, `ident` or
 * `working-tree-encoding` attribute, a mode the file system did not keep) is written again from
 * the blob itself, read from git objects; a submodule (checked out as an empty folder, or not at
 * all) becomes a FIFO, which the layers report as `other`, as a git tree does. Anything else — a
 * missing or extra entry (a name git refused, a case-insensitive clash), a link whose target
 * differs, a type git could not keep — throws `LowerMismatch`: the commit cannot be served from
 * a folder here, and the caller keeps serving it from git objects.
 */
import { createHash } from 'node:crypto';
import { isVfsError } from '../../../vfs/index.js';
import type { GitObjectReader } from '../../../vfs/index.js';
import type { LinkReadingLayer, WritableLayer } from '../../../vfs/index.js';
import { CodedError } from '../../../vfs/index.js';
import { childPath, walkLayer } from '../../../vfs/index.js';
import type { GitContext } from '../../git/index.js';
import type { TreeCheckout, TreeListingEntry } from '../../git/index.js';

/** How a checkout differs from the commit's tree. */
type LowerMismatchReason = 'MISSING_ENTRY' | 'EXTRA_ENTRY' | 'WRONG_TYPE' | 'LINK_TARGET';

/** Why a checkout cannot be served as the commit's tree (see the file comment); `code` says how it differs. */
export class LowerMismatch extends CodedError<LowerMismatchReason, { path: string }> {
  override readonly name = 'LowerMismatch';

  constructor(reason: LowerMismatchReason, path: string) {
    super(reason, `${reason} at '${path}'`, { path });
  }

  /** How it differs (the code). */
  get reason(): LowerMismatchReason {
    return this.code;
  }

  /** The path that differs. */
  get path(): string {
    return this.data.path;
  }
}

/** What the verification found and repaired. */
export interface VerifyReport {
  files: number;
  links: number;
  submodules: number;
  /** Files written again from their blob (bytes or executable bit differed). */
  rewritten: number;
}

/** The ports the verification uses. */
interface VerifyPorts {
  checkout: TreeCheckout;
  objects: GitObjectReader;
  context: GitContext;
  signal: AbortSignal;
}

type Kind = 'directory' | 'file' | 'executable' | 'symlink' | 'submodule';

function kindOf(mode: string): Kind | null {
  switch (mode) {
    case '040000':
      return 'directory';
    case '100644':
      return 'file';
    case '100755':
      return 'executable';
    case '120000':
      return 'symlink';
    case '160000':
      return 'submodule';
    default:
      return null;
  }
}

/**
 * Verifies (and repairs) the checkout in `folder`, opened as `layer`, against `listing` (see the
 * file comment). Throws `LowerMismatch`, what the ports throw, or an `AbortError`-like
 * `GitError` when `ports.signal` aborts.
 */
export async function verifyCheckout(
  folder: string,
  layer: WritableLayer & LinkReadingLayer,
  listing: readonly TreeListingEntry[],
  ports: VerifyPorts,
): Promise<VerifyReport> {
  const expected = expectedEntries(listing);
  const found = await walkCheckout(layer, expected, ports.signal);
  const missingSubmodules = missingSubmodulesOf(expected, found.seen);
  await findChangedFiles(folder, layer, found, ports);
  await checkLinkTargets(layer, found.links);
  await rewriteFiles(layer, found, ports);
  await removeEmptySubmodules(layer, found.emptySubmodules);
  await ports.checkout.makeFifos(folder, [...found.emptySubmodules, ...missingSubmodules], ports.context, ports.signal);
  return {
    files: found.files.length,
    links: found.links.length,
    submodules: found.emptySubmodules.length + missingSubmodules.length,
    rewritten: found.rewrite.size,
  };
}

/** What the commit's listing says is at each path. */
type Expected = Map<string, { kind: Kind; oid: string }>;

/** What the walk of the checkout found, and the files to write again. */
interface Found {
  seen: Set<string>;
  files: { path: string; oid: string; executable: boolean }[];
  links: { path: string; oid: string }[];
  emptySubmodules: string[];
  rewrite: Set<string>;
}

/** The listing by path. Throws `LowerMismatch` `WRONG_TYPE` for a mode no folder can hold. */
function expectedEntries(listing: readonly TreeListingEntry[]): Expected {
  const expected: Expected = new Map();
  for (const e of listing) {
    const kind = kindOf(e.mode);
    if (kind === null) throw new LowerMismatch('WRONG_TYPE', e.path);
    expected.set(e.path, { kind, oid: e.oid });
  }
  return expected;
}

/**
 * Walks the checkout (descending only into folders the listing has), matching every entry
 * with its expected type; a file whose executable bit differs is marked for rewriting. Throws
 * `LowerMismatch` `EXTRA_ENTRY` or `WRONG_TYPE`.
 */
async function walkCheckout(layer: WritableLayer, expected: Expected, signal: AbortSignal): Promise<Found> {
  const found: Found = { seen: new Set(), files: [], links: [], emptySubmodules: [], rewrite: new Set() };
  const enter = (p: string) => expected.get(p)?.kind === 'directory';
  for await (const w of walkLayer(layer, '', { descend: enter })) {
    signal.throwIfAborted();
    for (const entry of w.entries) {
      const path = childPath(w.path, entry.name);
      const want = expected.get(path);
      if (!want) throw new LowerMismatch('EXTRA_ENTRY', path);
      found.seen.add(path);
      if (want.kind === 'submodule') {
        if (entry.type === 'directory') found.emptySubmodules.push(path);
        else if (entry.type !== 'other') throw new LowerMismatch('WRONG_TYPE', path);
        continue;
      }
      const type = want.kind === 'executable' ? 'file' : want.kind;
      if (entry.type !== type) throw new LowerMismatch('WRONG_TYPE', path);
      if (type === 'symlink') found.links.push({ path, oid: want.oid });
      if (type !== 'file') continue;
      const executable = want.kind === 'executable';
      found.files.push({ path, oid: want.oid, executable });
      const mode = w.files ? w.files.stat(entry.name).mode : (await layer.stat(path)).mode;
      if (Boolean(mode & 0o100) !== executable) found.rewrite.add(path);
    }
  }
  return found;
}

/** The submodules git did not check out at all. Throws `LowerMismatch` `MISSING_ENTRY` for anything else missing. */
function missingSubmodulesOf(expected: Expected, seen: ReadonlySet<string>): string[] {
  const missing: string[] = [];
  for (const [path, want] of expected) {
    if (seen.has(path)) continue;
    if (want.kind !== 'submodule') throw new LowerMismatch('MISSING_ENTRY', path);
    missing.push(path);
  }
  return missing;
}

/** Marks for rewriting every file whose blob id differs from the listing's (git hashes them; a name holding a newline is hashed here). */
async function findChangedFiles(folder: string, layer: WritableLayer, found: Found, ports: VerifyPorts): Promise<void> {
  // git reads one name a line: the rare name holding a newline is hashed here instead.
  const byGit = found.files.filter((f) => !f.path.includes('\n'));
  const oids = await ports.checkout.hashFiles(
    folder,
    byGit.map((f) => f.path),
    ports.context,
    ports.signal,
  );
  byGit.forEach((f, i) => {
    if (oids[i] !== f.oid) found.rewrite.add(f.path);
  });
  for (const f of found.files) {
    if (f.path.includes('\n') && blobId(await layer.readFile(f.path), f.oid) !== f.oid) found.rewrite.add(f.path);
  }
}

/** Throws `LowerMismatch` `LINK_TARGET` for a link whose target text is not the listing's blob. */
async function checkLinkTargets(layer: LinkReadingLayer, links: Found['links']): Promise<void> {
  for (const link of links) {
    // A target that is not UTF-8 text is refused by readLink (SYMLINK_ESCAPE), as by the git-tree layer.
    const target = await layer.readLink(link.path).catch((e: unknown) => (isVfsError(e, 'SYMLINK_ESCAPE') ? null : Promise.reject(e)));
    if (target === null || blobId(new TextEncoder().encode(target), link.oid) !== link.oid) {
      throw new LowerMismatch('LINK_TARGET', link.path);
    }
  }
}

/** Writes every file marked for rewriting again from its blob, with the listing's executable bit. */
async function rewriteFiles(layer: WritableLayer, found: Found, ports: VerifyPorts): Promise<void> {
  for (const f of found.files) {
    if (!found.rewrite.has(f.path)) continue;
    ports.signal.throwIfAborted();
    const bytes = await ports.objects.readBlob(f.oid);
    await layer.remove(f.path);
    await layer.writeFile(f.path, bytes, { exclusive: true, mode: f.executable ? 0o755 : 0o644, durable: false });
  }
}

/** Removes the empty folders git made for submodules. Throws `LowerMismatch` `EXTRA_ENTRY` for one that is not empty. */
async function removeEmptySubmodules(layer: WritableLayer, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    try {
      await layer.remove(path);
    } catch (e) {
      if (isVfsError(e, 'NOT_EMPTY')) throw new LowerMismatch('EXTRA_ENTRY', path);
      throw e;
    }
  }
}

/** The git blob id of `bytes`, with the hash `like` (40 hex digits: SHA-1, 64: SHA-256) uses. */
function blobId(bytes: Uint8Array, like: string): string {
  const hash = createHash(like.length === 64 ? 'sha256' : 'sha1');
  hash.update(`blob ${bytes.byteLength}\0`);
  hash.update(bytes);
  return hash.digest('hex');
}
