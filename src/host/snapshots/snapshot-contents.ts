/**
 * What a snapshot holds, written and read back: a stored snapshot's manifest (one JSON object in
 * the content store listing every entry), and a worktree snapshot's commit, whose tree holds the
 * files and links and whose message carries what a git tree cannot (`gatefs-snapshot:` line):
 * empty folders, folders whose mode is not 0755, and files whose mode is neither 0644 nor 0755.
 * `loadSnapshot` gives either as the same sorted `SnapshotEntry` list.
 */
import type { GitContext } from '../../git/index.js';
import type { SnapshotRow } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { SnapshotEntry } from './snapshot-entries.js';
import type { SnapshotParts } from './snapshot-parts.js';

/** The manifest's format version. */
const MANIFEST_VERSION = 2;
/** The line of a snapshot commit's message that carries its metadata. */
const META_PREFIX = 'gatefs-snapshot: ';

type ManifestEntry = ['d', string, number] | ['f', string, number, number, string] | ['l', string, string];

/** The content store a manifest is written to and read from. */
type Store = SnapshotParts['platform']['contentStore'];

/**
 * Writes a stored snapshot's manifest: one object per folder listing the entries directly in it
 * (so a folder nothing changed in is the same object as last time, stored once), and the root
 * object listing every folder with its object. `keep` stores bytes and answers their id.
 * Result: the root object's id.
 */
export async function writeManifest(entries: readonly SnapshotEntry[], keep: (bytes: Uint8Array) => Promise<string>): Promise<string> {
  const byFolder = new Map<string, ManifestEntry[]>([['', []]]);
  for (const e of entries) {
    const slash = e.path.lastIndexOf('/');
    const folder = slash < 0 ? '' : e.path.slice(0, slash);
    let list = byFolder.get(folder);
    if (!list) byFolder.set(folder, (list = []));
    list.push(
      e.kind === 'dir' ? ['d', e.path, e.mode] : e.kind === 'file' ? ['f', e.path, e.mode, e.size, e.oid] : ['l', e.path, e.target],
    );
  }
  const folders: [string, string][] = [];
  for (const [folder, list] of byFolder) folders.push([folder, await keep(encoded({ v: MANIFEST_VERSION, entries: list }))]);
  return keep(encoded({ v: MANIFEST_VERSION, folders }));
}

function encoded(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

/** Reads a stored object as JSON. Throws `WorkspaceError` `SNAPSHOT_NOT_FOUND` when it is missing or not JSON. */
async function objectOf(store: Store, id: string, what: string): Promise<{ v?: unknown; entries?: unknown; folders?: unknown }> {
  try {
    return JSON.parse(new TextDecoder().decode(await store.get(id))) as { v?: unknown };
  } catch {
    throw damaged(what);
  }
}

/** The entries of a manifest, sorted by path, and the ids of the objects it is made of (for removal). */
async function readManifest(store: Store, id: string, what: string): Promise<{ entries: SnapshotEntry[]; parts: string[] }> {
  const root = await objectOf(store, id, what);
  if (root.v !== MANIFEST_VERSION || !Array.isArray(root.folders)) throw damaged(what);
  const entries: SnapshotEntry[] = [];
  const parts = [id];
  for (const [, chunk] of root.folders as [string, string][]) {
    parts.push(chunk);
    const list = await objectOf(store, chunk, what);
    if (!Array.isArray(list.entries)) throw damaged(what);
    for (const e of list.entries as ManifestEntry[])
      entries.push(
        e[0] === 'd'
          ? { path: e[1], kind: 'dir', mode: e[2] }
          : e[0] === 'f'
            ? { path: e[1], kind: 'file', mode: e[2], size: e[3], oid: e[4] }
            : { path: e[1], kind: 'link', target: e[2] },
      );
  }
  return { entries: entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), parts };
}

function damaged(what: string): WorkspaceError {
  return new WorkspaceError('SNAPSHOT_NOT_FOUND', `snapshot ${what} is damaged: its manifest cannot be read`, { snapshot: what });
}

/** The metadata line of a worktree snapshot's message (see the file comment). */
export function snapshotMeta(entries: readonly SnapshotEntry[]): string {
  const nonEmpty = new Set<string>();
  for (const e of entries) {
    const slash = e.path.lastIndexOf('/');
    if (slash > 0) nonEmpty.add(e.path.slice(0, slash));
  }
  const folders: [string, number][] = [];
  const modes: [string, number][] = [];
  for (const e of entries) {
    if (e.kind === 'dir' && (!nonEmpty.has(e.path) || e.mode !== 0o755)) folders.push([e.path, e.mode]);
    if (e.kind === 'file' && e.mode !== 0o644 && e.mode !== 0o755) modes.push([e.path, e.mode]);
  }
  return `${META_PREFIX}${JSON.stringify({ v: MANIFEST_VERSION, folders, modes })}`;
}

/** The git mode a file is kept with (git knows only these two). */
export function isExecutable(mode: number): boolean {
  return (mode & 0o100) !== 0;
}

/** Every entry of `row`, sorted by path. Throws `WorkspaceError` `SNAPSHOT_NOT_FOUND` when its objects are gone. */
export async function loadSnapshot(
  parts: Pick<SnapshotParts, 'platform'>,
  row: SnapshotRow,
  context: GitContext,
): Promise<SnapshotEntry[]> {
  const what = `${row.n} of '${row.conversation}'`;
  if (row.manifest !== null) return (await readManifest(parts.platform.contentStore, row.manifest, what)).entries;
  if (row.commit === null) throw damaged(what);
  const git = parts.platform.snapshotGit;
  const repo = parts.platform.repo;
  const [tree, message] = await Promise.all([git.listTree(repo, row.commit, context), git.message(repo, row.commit, context)]);
  const meta = parseMeta(message);
  const links = tree.filter((t) => t.mode === '120000').map((t) => t.oid);
  const targets = links.length > 0 ? await git.readBlobs(repo, links, context) : new Map<string, Uint8Array>();
  const entries = new Map<string, SnapshotEntry>();
  const addFolders = (path: string) => {
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) {
      const folder = path.slice(0, i);
      if (!entries.has(folder)) entries.set(folder, { path: folder, kind: 'dir', mode: 0o755 });
    }
  };
  for (const t of tree) {
    addFolders(t.path);
    if (t.mode === '120000') {
      entries.set(t.path, { path: t.path, kind: 'link', target: new TextDecoder().decode(targets.get(t.oid) ?? new Uint8Array()) });
    } else {
      entries.set(t.path, {
        path: t.path,
        kind: 'file',
        mode: meta.modes.get(t.path) ?? (t.mode === '100755' ? 0o755 : 0o644),
        size: -1,
        oid: t.oid,
      });
    }
  }
  for (const [path, mode] of meta.folders) {
    addFolders(path);
    entries.set(path, { path, kind: 'dir', mode });
  }
  return [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The metadata of a snapshot commit's message (none: nothing beyond the tree). */
function parseMeta(message: string): { folders: Map<string, number>; modes: Map<string, number> } {
  // The last line of its kind: the title (which holds the label) comes first.
  const line = message
    .split('\n')
    .filter((l) => l.startsWith(META_PREFIX))
    .at(-1);
  const value = line ? (JSON.parse(line.slice(META_PREFIX.length)) as { folders?: [string, number][]; modes?: [string, number][] }) : {};
  return { folders: new Map(value.folders ?? []), modes: new Map(value.modes ?? []) };
}

/** Every object id a manifest holds: its own objects and its files'; none when it cannot be read (already gone). */
export async function manifestObjectIds(store: Store, id: string): Promise<string[]> {
  try {
    const { entries, parts } = await readManifest(store, id, id);
    return [...parts, ...entries.flatMap((e) => (e.kind === 'file' ? [e.oid] : []))];
  } catch {
    return [];
  }
}
