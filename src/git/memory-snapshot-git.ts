/**
 * `MemorySnapshotGit`: the snapshot port (snapshot-git.ts) on isomorphic-git over the memory
 * host's memfs volume, held to what `CliSnapshotGit` does with the git program (the same
 * behaviour suite runs on both: test/git/snapshot-git.test.ts). `repo` is the main checkout in
 * the volume; its git dir is `<repo>/.git`.
 *
 * A snapshot's tree is the parent's tree with the changes applied in order, rebuilt only along
 * the changed paths (untouched subtrees keep their oid; a folder left empty disappears, as
 * fast-import drops it); blobs are written from the bytes given, one file at a time. The ref is
 * created with a synchronous compare-and-swap (memory-refs.ts), so a ref that exists is refused
 * atomically. Deterministic: no clock, no randomness; the same inputs give the same shas.
 */
import git, { type FsClient } from 'isomorphic-git';
import type { Volume } from 'memfs';
import { isMissingPath } from '../ports/index.js';
import { GitError, type GitContext } from './git-port.js';
import { assertFullRef, assertSha } from './landing-names.js';
import { MemoryCheckouts } from './memory-checkouts.js';
import { memorySnapshotPatch } from './memory-snapshot-patch.js';
import { readRefSync, swapRefSync } from './memory-refs.js';
import {
  SNAPSHOT_IDENTITY,
  assertSnapshotPath,
  assertSnapshotTime,
  byPath,
  finalOids,
  refUnder,
  snapshotMessage,
  type SnapshotGit,
  type SnapshotPatch,
  type SnapshotPatchRequest,
  type SnapshotTreeEntry,
  type SnapshotWrite,
} from './snapshot-git.js';

type Vol = InstanceType<typeof Volume>;

interface MemorySnapshotGitOptions {
  volume: Vol;
}

/** A tree entry as isomorphic-git writes it. */
interface Entry {
  mode: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

/** A folder being rebuilt: its entries, and the sub-folders opened for change (written first). */
interface Folder {
  entries: Map<string, Entry>;
  open: Map<string, Folder>;
}

/** The snapshot port on isomorphic-git over memfs (see the file comment). */
export class MemorySnapshotGit implements SnapshotGit {
  private readonly volume: Vol;

  constructor(options: MemorySnapshotGitOptions) {
    this.volume = options.volume;
  }

  async writeSnapshot(repo: string, o: SnapshotWrite, _context: GitContext): Promise<{ commit: string; oids: Map<string, string> }> {
    assertFullRef(o.ref, 'fast-import');
    if (o.parent !== null) assertSha(o.parent, 'fast-import');
    assertSnapshotTime(o.time, 'fast-import');
    for (const c of o.changes) assertSnapshotPath(c.path, 'fast-import');
    const r = this.checkouts(repo, 'fast-import');
    const { fs, gitdir } = r;
    if (readRefSync(this.volume, gitdir, o.ref) !== null) throw exists(o.ref);
    const root: Folder = { entries: new Map(), open: new Map() };
    if (o.parent !== null) await this.load(r, root, await r.objects.commitTree(o.parent));
    const written = new Map<number, string>();
    for (const [i, c] of o.changes.entries()) {
      const parts = c.path.split('/');
      const name = parts.pop()!;
      if (c.kind === 'delete') {
        const folder = await this.reach(r, root, parts, false);
        folder?.entries.delete(name);
        folder?.open.delete(name);
        continue;
      }
      const bytes = c.kind === 'file' ? await c.bytes() : Buffer.from(c.target, 'utf8');
      const oid = await git.writeBlob({ fs, gitdir, blob: bytes });
      written.set(i, oid);
      const folder = (await this.reach(r, root, parts, true))!;
      folder.open.delete(name);
      folder.entries.set(name, { mode: c.kind === 'link' ? '120000' : c.executable ? '100755' : '100644', oid, type: 'blob' });
    }
    const tree = (await this.write(r, root)) ?? (await writeTree(r, new Map()));
    const who = { ...SNAPSHOT_IDENTITY, timestamp: o.time, timezoneOffset: 0 };
    const commit = await git.writeCommit({
      fs,
      gitdir,
      commit: { message: snapshotMessage(o.message), tree, parent: o.parent === null ? [] : [o.parent], author: who, committer: who },
    });
    if (swapRefSync(this.volume, gitdir, o.ref, null, commit) !== null) throw exists(o.ref);
    return { commit, oids: finalOids(o.changes, (i) => written.get(i)) };
  }

  async listTree(repo: string, commit: string, _context: GitContext): Promise<SnapshotTreeEntry[]> {
    assertSha(commit, 'ls-tree');
    const r = this.checkouts(repo, 'ls-tree');
    const entries: SnapshotTreeEntry[] = [];
    const walk = async (tree: string, prefix: string): Promise<void> => {
      for (const [name, e] of await readTree(r, tree)) {
        if (e.type === 'tree') await walk(e.oid, `${prefix}${name}/`);
        else if (e.type === 'blob') entries.push({ path: prefix + name, mode: e.mode as SnapshotTreeEntry['mode'], oid: e.oid });
      }
    };
    await walk(await r.objects.commitTree(commit), '');
    return entries.sort(byPath);
  }

  async readBlobs(repo: string, oids: readonly string[], _context: GitContext): Promise<Map<string, Uint8Array>> {
    const r = this.checkouts(repo, 'cat-file');
    const blobs = new Map<string, Uint8Array>();
    for (const oid of oids) {
      assertSha(oid, 'cat-file');
      if (blobs.has(oid)) continue;
      try {
        blobs.set(oid, (await git.readBlob({ fs: r.fs, gitdir: r.gitdir, oid })).blob);
      } catch (e) {
        throw new GitError('OBJECT_MISSING', 'cat-file', `blob ${oid} is not in the repository`, { cause: e });
      }
    }
    return blobs;
  }

  async message(repo: string, commit: string, _context: GitContext): Promise<string> {
    assertSha(commit, 'cat-file');
    const r = this.checkouts(repo, 'cat-file');
    try {
      return (await git.readCommit({ fs: r.fs, gitdir: r.gitdir, oid: commit })).commit.message;
    } catch (e) {
      throw new GitError('BAD_REF', 'cat-file', `${commit} is not a commit of the repository`, { cause: e });
    }
  }

  async listRefs(repo: string, prefix: string, _context: GitContext): Promise<{ ref: string; sha: string }[]> {
    assertFullRef(prefix.replace(/\/$/, ''), 'for-each-ref');
    const r = this.checkouts(repo, 'for-each-ref');
    const found: { ref: string; sha: string }[] = [];
    const walk = (ref: string): void => {
      const sha = readRefSync(this.volume, r.gitdir, ref);
      if (sha !== null) {
        if (refUnder(ref, prefix)) found.push({ ref, sha });
        return;
      }
      for (const name of this.names(`${r.gitdir}/${ref}`)) walk(`${ref}/${name}`);
    };
    walk(prefix.replace(/\/$/, ''));
    return found.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  }

  snapshotPatch(repo: string, o: SnapshotPatchRequest, context: GitContext): Promise<SnapshotPatch> {
    return memorySnapshotPatch(this.checkouts(repo, 'diff-tree'), o, context);
  }

  async deleteRefs(repo: string, refs: readonly string[], _context: GitContext): Promise<void> {
    for (const ref of refs) assertFullRef(ref, 'update-ref');
    const r = this.checkouts(repo, 'update-ref');
    for (const ref of refs) {
      const sha = readRefSync(this.volume, r.gitdir, ref);
      if (sha !== null) swapRefSync(this.volume, r.gitdir, ref, sha, null);
      this.removeEmptyParents(r.gitdir, ref);
    }
  }

  /** The repository at `repo`; `NOT_A_GIT_REPOSITORY` for `operation` when it has none. */
  private checkouts(repo: string, operation: string): MemoryCheckouts {
    const r = new MemoryCheckouts(this.volume, repo);
    r.assertRepository(operation);
    return r;
  }

  /** Fills `folder` with the entries of `tree`. */
  private async load(r: MemoryCheckouts, folder: Folder, tree: string): Promise<void> {
    for (const [name, e] of await readTree(r, tree)) folder.entries.set(name, e);
  }

  /**
   * The folder at `parts` below `root`, opened for change. With `make`, a missing folder is made
   * and a file on the way is replaced by one; without, a missing one (or a file) gives null.
   */
  private async reach(r: MemoryCheckouts, root: Folder, parts: readonly string[], make: boolean): Promise<Folder | null> {
    let folder = root;
    for (const name of parts) {
      let next = folder.open.get(name);
      if (!next) {
        const entry = folder.entries.get(name);
        if (entry?.type !== 'tree' && !make) return null;
        next = { entries: new Map(), open: new Map() };
        if (entry?.type === 'tree') await this.load(r, next, entry.oid);
        folder.open.set(name, next);
        folder.entries.set(name, { mode: '040000', oid: '', type: 'tree' });
      }
      folder = next;
    }
    return folder;
  }

  /** Writes `folder` (its opened sub-folders first); null when it ends up empty. */
  private async write(r: MemoryCheckouts, folder: Folder): Promise<string | null> {
    for (const [name, sub] of folder.open) {
      const oid = await this.write(r, sub);
      if (oid === null) folder.entries.delete(name);
      else folder.entries.set(name, { mode: '040000', oid, type: 'tree' });
    }
    if (folder.entries.size === 0) return null;
    return writeTree(r, folder.entries);
  }

  /** The names in a folder of the volume ([] when it is missing or not a folder). */
  private names(path: string): string[] {
    try {
      if (!this.volume.lstatSync(path).isDirectory()) return [];
      return (this.volume.readdirSync(path) as string[]).map(String);
    } catch (e) {
      if (isMissingPath(e)) return [];
      throw e;
    }
  }

  /** Removes the folders above a deleted loose ref that it left empty, up to `refs/` (as git does). */
  private removeEmptyParents(gitdir: string, ref: string): void {
    const parts = ref.split('/');
    for (let n = parts.length - 1; n > 1; n--) {
      const folder = `${gitdir}/${parts.slice(0, n).join('/')}`;
      if (this.names(folder).length > 0) return;
      try {
        this.volume.rmdirSync(folder);
      } catch (e) {
        if (!isMissingPath(e)) throw e;
        return;
      }
    }
  }
}

function exists(ref: string): GitError {
  return new GitError('COMMAND_FAILED', 'fast-import', `'${ref}' exists: a snapshot ref is never moved`);
}

/*
 * Trees are encoded and parsed here, not by isomorphic-git's `writeTree`/`readTree`: those refuse
 * names git stores (a backslash, `.git` below the root), and a snapshot keeps every name a
 * workspace holds, as fast-import does.
 */

/** Writes a tree object of `entries` (git's order: by name, a folder's name read with a '/' after it). */
async function writeTree(r: MemoryCheckouts, entries: ReadonlyMap<string, Entry>): Promise<string> {
  const keyed = [...entries].map(([name, e]) => ({ key: Buffer.from(e.type === 'tree' ? `${name}/` : name, 'utf8'), name, e }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const parts: Uint8Array[] = [];
  for (const { name, e } of keyed) {
    parts.push(Buffer.from(`${e.mode === '040000' ? '40000' : e.mode} ${name}\0`, 'utf8'), Buffer.from(e.oid, 'hex'));
  }
  return git.writeObject({ fs: r.fs as FsClient, gitdir: r.gitdir, type: 'tree', format: 'content', object: Buffer.concat(parts) });
}

/** The entries of tree object `oid`, by name. `BAD_REF` when it is not a tree of the repository. */
async function readTree(r: MemoryCheckouts, oid: string): Promise<Map<string, Entry>> {
  let object: Uint8Array;
  try {
    const read = await git.readObject({ fs: r.fs as FsClient, gitdir: r.gitdir, oid, format: 'content' });
    if (read.type !== 'tree') throw new Error(`a ${read.type}`);
    object = read.object as Uint8Array;
  } catch (e) {
    throw new GitError('BAD_REF', 'ls-tree', `${oid} is not a tree of the repository`, { cause: e });
  }
  const buffer = Buffer.from(object.buffer, object.byteOffset, object.byteLength);
  const entries = new Map<string, Entry>();
  for (let at = 0; at < buffer.length; ) {
    const space = buffer.indexOf(0x20, at);
    const nul = buffer.indexOf(0, space);
    const mode = buffer.toString('latin1', at, space).padStart(6, '0');
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    entries.set(buffer.toString('utf8', space + 1, nul), { mode, oid: buffer.toString('hex', nul + 1, nul + 21), type });
    at = nul + 21;
  }
  return entries;
}
