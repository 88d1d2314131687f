/**
 * `OverlayChangeKeeper`: keeps what a command changed in a `copy` workspace (the sandbox's
 * `OverlayChange`s, src/ports/sandbox.ts) by writing each change through the workspace's own
 * namespace, so the file tools see it and every change passes the checks a tool's passes: a
 * change to a protected path (`.git` under any name, `gatefs.yaml`, the overlay's record, the
 * state directory) or to a read-only place is refused with the namespace's code, reported, and
 * never made; nothing below a refused path is tried.
 *
 * Each change makes the workspace hold what the command's view held at that path:
 * - `file`: written when its bytes or executable bit differ (a new file gets 0o755 or 0o644; an
 *   executable bit that changed is a remove and a write, as the namespace keeps a file's mode);
 * - `link`: what was there removed, the parent folders made, then the sandbox places the link in
 *   the workspace's upper folder (the namespace makes no links);
 * - `folder`: made if missing (what was there instead removed); an opaque one loses every entry
 *   the command's list does not name;
 * - `removed`: the entry and everything below it removed (mount points inside are left);
 * - `unkept`: never kept, reported with the port's code (`NOT_REGULAR_FILE`, `BAD_NAME`, `TOO_LARGE`).
 *
 * Changes are kept one command at a time per keeper; files make the `changed` paths (folders are
 * not listed, as for scans). Limits: keeping is not atomic with the command's end, a file tool
 * writing the same path meanwhile is overwritten (or overwrites), and a mode flip leaves the file
 * missing for a moment.
 */
import type { ChangedPath } from '../../../tools/index.js';
import type { SandboxRun } from '../../ports/index.js';
import { CodedError, foreignCodeOf, isCodedError, isVfsError, VfsError, type Namespace, type Stat } from '../../../vfs/index.js';

/** One change of a command's overlay (src/ports/sandbox.ts `OverlayChange`). */
type OverlayChange = NonNullable<SandboxRun['overlayChanges']>[number];

/** A change the namespace refused: its path as the agent names it, the code and the namespace's detail. */
export interface NotKept {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/** What keeping a command's changes did: the files changed (namespace paths, sorted) and the changes refused. */
export interface KeptChanges {
  readonly changed: ChangedPath[];
  readonly notKept: NotKept[];
}

/** Keeps commands' overlay changes in one workspace (see the file comment). */
export class OverlayChangeKeeper {
  private queue: Promise<unknown> = Promise.resolve();

  /** `namespaceOf`: the workspace's namespace now (the view may be reopened between a command's start and its end). */
  constructor(private readonly namespaceOf: () => Namespace | undefined) {}

  /** Keeps `changes` after every earlier call's; never throws (what cannot be kept is in `notKept`). */
  keep(changes: readonly OverlayChange[]): Promise<KeptChanges> {
    const next = this.queue.then(() => this.keepNow(changes));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async keepNow(changes: readonly OverlayChange[]): Promise<KeptChanges> {
    const changed = new Map<string, ChangedPath['status']>();
    const notKept: NotKept[] = [];
    const namespace = this.namespaceOf();
    if (!namespace) {
      if (changes.length > 0)
        notKept.push({ path: '.', code: 'NOT_FOUND', message: 'the workspace was released before the changes could be kept' });
      return { changed: [], notKept };
    }
    const keeping = new Keeping(namespace, changes, changed);
    const refused: string[] = [];
    for (const change of changes) {
      if (refused.some((r) => change.path.startsWith(`${r}/`))) continue;
      try {
        await keeping.apply(change);
      } catch (e) {
        refused.push(change.path);
        notKept.push({ path: namespace.display(change.path), code: codeOf(e), message: messageOf(e) });
      }
    }
    const sorted = [...changed]
      .map(([path, status]) => ({ path, status }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { changed: sorted, notKept };
  }
}

/** One command's changes being kept in one namespace. */
class Keeping {
  /** Folder path → the names the command's list holds in it (what an opaque folder keeps). */
  private readonly named = new Map<string, Set<string>>();

  constructor(
    private readonly ns: Namespace,
    changes: readonly OverlayChange[],
    private readonly changed: Map<string, ChangedPath['status']>,
  ) {
    for (const c of changes) {
      if (c.kind === 'removed') continue;
      const slash = c.path.lastIndexOf('/');
      const parent = c.path.slice(0, slash);
      const names = this.named.get(parent) ?? new Set<string>();
      names.add(c.path.slice(slash + 1));
      this.named.set(parent, names);
    }
  }

  async apply(change: OverlayChange): Promise<void> {
    switch (change.kind) {
      case 'removed':
        return this.removeTree(change.path);
      case 'folder':
        return this.folder(change.path, change.opaque);
      case 'file':
        return this.file(change.path, change.bytes, change.executable);
      case 'link':
        return this.link(change.path, change.target, () => change.place());
      case 'unkept':
        throw new Unkept(change.code, `${change.what} cannot be kept in the workspace`);
    }
  }

  private async folder(path: string, opaque: boolean): Promise<void> {
    let st = await this.statOf(path);
    if (st && st.type !== 'directory') {
      await this.removeTree(path);
      st = undefined;
    }
    if (!st) return this.ns.mkdir(path, { parents: true });
    if (!opaque) return;
    const keep = this.named.get(path) ?? new Set<string>();
    for (const entry of await this.ns.readdir(path)) {
      const child = `${path}/${entry.name}`;
      if (!keep.has(entry.name) && this.isInRoot(child)) await this.removeTree(child);
    }
  }

  private async file(path: string, bytes: Uint8Array, executable: boolean): Promise<void> {
    let st = await this.statOf(path);
    const existed = st !== undefined;
    if (st && st.type !== 'file') {
      await this.removeTree(path);
      st = undefined;
    }
    const mode = executable ? 0o755 : 0o644;
    if (st) {
      const modeChanged = ((st.mode & 0o100) !== 0) !== executable;
      if (!modeChanged && st.size === bytes.byteLength && Buffer.from(await this.ns.readFile(path)).equals(bytes)) return;
      if (modeChanged) {
        await this.ns.remove(path);
        await this.ns.writeFile(path, bytes, { mode });
      } else await this.ns.writeFile(path, bytes);
    } else await this.ns.writeFile(path, bytes, { mode, createParents: true });
    this.changed.set(path, existed ? 'modified' : 'added');
  }

  private async link(path: string, target: string, place: () => Promise<void>): Promise<void> {
    const st = await this.statOf(path);
    if (st?.type === 'symlink' && (await this.linkTarget(path)) === target) return;
    if (st) await this.removeTree(path);
    const parent = path.slice(0, path.lastIndexOf('/'));
    if (parent !== this.ns.root) await this.ns.mkdir(parent, { parents: true });
    const resolved = this.ns.resolve(path, 'link');
    if (resolved.mount.path !== this.ns.root) throw new VfsError('READ_ONLY', 'link', path, 'the path is in another mount');
    this.ns.checkWritable(resolved, 'link');
    await this.ns.checkOwnRepository(resolved, 'link');
    try {
      await place();
    } catch (e) {
      throw new VfsError(foreignCodeOf(e) === 'EEXIST' ? 'ALREADY_EXISTS' : 'INTERNAL', 'link', path, 'the link could not be made');
    }
    this.changed.set(path, st ? 'modified' : 'added');
  }

  /** Removes the entry at `path` (if any) and everything below it in the root mount (files reported `deleted`). */
  private async removeTree(path: string): Promise<void> {
    const st = await this.statOf(path);
    if (!st) return;
    if (st.type === 'directory') {
      for (const entry of await this.ns.readdir(path)) {
        const child = `${path}/${entry.name}`;
        if (this.isInRoot(child)) await this.removeTree(child);
      }
    }
    await this.ns.remove(path);
    if (st.type !== 'directory') this.changed.set(path, 'deleted');
  }

  /** The entry at `path`, or undefined when there is none. */
  private async statOf(path: string): Promise<Stat | undefined> {
    try {
      return await this.ns.stat(path);
    } catch (e) {
      if (isVfsError(e, 'NOT_FOUND') || isVfsError(e, 'NOT_DIRECTORY')) return undefined;
      throw e;
    }
  }

  /** The target of the link at `path`, or undefined when the layer cannot say. */
  private async linkTarget(path: string): Promise<string | undefined> {
    const resolved = this.ns.resolve(path, 'readlink');
    const layer = resolved.mount.layer as { readLink?: (p: string) => Promise<string> };
    return layer.readLink ? layer.readLink(resolved.rel).catch(() => undefined) : undefined;
  }

  /** True when `path` is served by the workspace root's mount (not a mount point of another). */
  private isInRoot(path: string): boolean {
    return this.ns.resolve(path).mount.path === this.ns.root;
  }
}

/** A change the sandbox said cannot be kept, with its code. */
class Unkept extends CodedError<string, Record<string, never>> {
  constructor(code: string, message: string) {
    super(code, message, {});
  }
}

function codeOf(e: unknown): string {
  return e instanceof Unkept || isCodedError(e) ? e.code : 'INTERNAL';
}

/** What the refusal says, without a host path: the namespace's detail, or nothing of a foreign error. */
function messageOf(e: unknown): string {
  if (e instanceof VfsError) return e.detail;
  if (e instanceof Unkept) return e.message;
  return 'the change could not be made';
}

/**
 * `run` with what keeping its overlay changes did: the files changed joined to its scan (so the
 * service reports them as it reports every writable place's), and one line per change not kept
 * appended to its stderr (`gatefs: not kept: <path> (<code>: <detail>)`).
 */
export function withKeptChanges(run: SandboxRun, kept: KeptChanges): SandboxRun {
  const before = new Map(run.scan?.before ?? []);
  const after = new Map(run.scan?.after ?? []);
  const file = (mtime: string) => ({ type: 'f', size: 0, mtime, inode: 0 });
  for (const { path, status } of kept.changed) {
    if (status !== 'added') before.set(path, file('0'));
    if (status !== 'deleted') after.set(path, file(status === 'added' ? '0' : '1'));
  }
  const notes = kept.notKept.map((n) => `gatefs: not kept: ${n.path} (${n.code}: ${n.message})\n`).join('');
  const stderr = notes === '' ? run.stderr : `${run.stderr}${run.stderr === '' || run.stderr.endsWith('\n') ? '' : '\n'}${notes}`;
  return { ...run, scan: { before, after }, stderr };
}
