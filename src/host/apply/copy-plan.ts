/**
 * `planApply`: what applying a `copy` workspace to its source folder would do, path by path,
 * decided against what the source holds now and what it held when the copy started (the base).
 *
 * The copy's changes are read from its overlay: every entry of the upper folder (files, links,
 * folders; the reserved record folder left out) and every whiteout, which stands for the source's
 * entries at and below it that the upper does not replace. For each path:
 * - the source already holds the copy's version (bytes and mode): `unchanged`, nothing to do;
 * - the source holds the base (or, after an interrupted apply, the version the journal gave it):
 *   `apply`;
 * - anything else: `conflict`. A path the source cannot be reached at without following a link is
 *   a conflict with the layer's code; a protected path (`.git`, the state directory, the
 *   manifest) and a link are `skipped`.
 *
 * Without a base for a path (a plain-folder copy prepared before applies kept one), only a path
 * the source lacks can be applied. Limits: a folder replaced by a file or a file by a folder is
 * applied as a removal and a creation, each checked; links are reported, never made.
 */
import { childPath, codeOf, walkLayer, type EntryType } from '../../../vfs/index.js';
import { RECORD_FOLDER, readWhiteouts, type BaseRecord, type Digest, type Journal } from './apply-records.js';
import type { CopyOverlay } from './apply-types.js';
import { digestOf } from './digest-of.js';
import type { SourceFolder } from './source-folder.js';

/** One planned path. */
export interface Step {
  readonly path: string;
  readonly kind: 'file' | 'link' | 'folder';
  readonly op: 'write' | 'remove' | 'mkdir' | 'rmdir';
  /** What the source should hold after the step. */
  readonly want: Digest;
  /** The file's permission bits to write (`write` only). */
  readonly mode: number;
  /** What the source holds now. */
  readonly have: Digest;
  readonly status: 'apply' | 'unchanged' | 'conflict' | 'skipped';
  readonly code?: string;
  readonly reason?: string;
}

/** What planning reads. */
export interface PlanInputs {
  readonly overlay: CopyOverlay;
  readonly source: SourceFolder;
  readonly base: BaseRecord | undefined;
  /** True when the overlay's lower is the pinned commit (a git checkout), the base of paths the record lacks. */
  readonly lowerIsBase: boolean;
  /** An interrupted apply's journal: the version it gave each path counts as a base too. */
  readonly journal: Journal | undefined;
}

/** Plans the apply (see the file comment); steps in the order they must run. */
export async function planApply(inputs: PlanInputs): Promise<Step[]> {
  const { overlay, source } = inputs;
  const upper = await upperEntries(overlay);
  const journaled = new Map((inputs.journal?.entries ?? []).map((e) => [e.path, e.new]));
  const removals = new Map<string, EntryType>();
  const refusedRemovals: Step[] = [];
  for (const w of await readWhiteouts(overlay.upper)) {
    try {
      for (const [path, type] of await sourceTree(source, w)) {
        const replaced = upper.get(path);
        const merged = replaced === 'directory' && type === 'directory';
        const overwritten = replaced === 'file' && (type === 'file' || type === 'symlink');
        if (!merged && !overwritten) removals.set(path, type);
      }
    } catch (e) {
      refusedRemovals.push(refused(w, 'folder', 'rmdir', '-', e));
    }
  }
  const decide = async (path: string, kind: Step['kind'], op: Step['op'], want: Digest, mode: number): Promise<Step> => {
    let have: { digest: Digest; mode: number };
    try {
      have = await source.digest(path);
    } catch (e) {
      return refused(path, kind, op, want, e);
    }
    const step = { path, kind, op, want, mode, have: have.digest };
    if (have.digest === want && (op !== 'write' || have.mode === mode)) return { ...step, status: 'unchanged' };
    if (op === 'rmdir' || (op === 'mkdir' && (have.digest === '-' || removals.has(path)))) return { ...step, status: 'apply' };
    if (op === 'write' && removals.get(path) === 'directory') return { ...step, status: 'apply' };
    if (op === 'mkdir')
      return { ...step, status: 'conflict', code: 'CONFLICT', reason: 'the source holds something else than a folder there' };
    const base = await baseOf(inputs, path);
    const allowed = new Set([base, journaled.get(path), ...(op === 'write' ? [want] : [])]);
    if (allowed.has(have.digest) || (base === undefined && have.digest === '-')) return { ...step, status: 'apply' };
    return {
      ...step,
      status: 'conflict',
      code: 'CONFLICT',
      reason:
        base === undefined
          ? 'the source holds this path and there is no record of what it held when the copy started'
          : 'the source changed since the copy started',
    };
  };
  const steps: Step[] = [...refusedRemovals];
  const byDepth = (a: string, b: string) => depth(b) - depth(a) || (a < b ? -1 : 1);
  for (const path of [...removals.keys()].filter((p) => removals.get(p) !== 'directory').sort(byDepth))
    steps.push(await decide(path, removals.get(path) === 'symlink' ? 'link' : 'file', 'remove', '-', 0));
  for (const path of [...removals.keys()].filter((p) => removals.get(p) === 'directory').sort(byDepth)) {
    const blocked = steps.find((s) => s.path.startsWith(`${path}/`) && s.status !== 'apply' && s.status !== 'unchanged');
    steps.push(
      blocked
        ? {
            path,
            kind: 'folder',
            op: 'rmdir',
            want: '-',
            mode: 0,
            have: 'd',
            status: 'conflict',
            code: 'CONFLICT',
            reason: `'${blocked.path}' below it is not removed`,
          }
        : await decide(path, 'folder', 'rmdir', '-', 0),
    );
  }
  for (const [path, type] of [...upper].sort(([a], [b]) => depth(a) - depth(b) || (a < b ? -1 : 1))) {
    if (type === 'directory') steps.push(await decide(path, 'folder', 'mkdir', 'd', 0));
    else if (type === 'file') {
      const { digest, mode } = await digestOf(overlay.upper, path);
      steps.push(await decide(path, 'file', 'write', digest, mode));
    } else {
      const target = await digestOf(overlay.upper, path);
      const have = await source.digest(path).catch(() => ({ digest: '?' }));
      steps.push({
        path,
        kind: 'link',
        op: 'write',
        want: target.digest,
        mode: 0,
        have: have.digest,
        status: have.digest === target.digest ? 'unchanged' : 'skipped',
        reason: type === 'symlink' ? 'links are not applied: make it in the source by hand' : 'not a regular file',
      });
    }
  }
  return steps;
}

/** The base digest of `path`: the record's, else the pinned commit's (a git checkout), else undefined. */
async function baseOf(inputs: PlanInputs, path: string): Promise<Digest | undefined> {
  const recorded = inputs.base?.paths.get(path);
  if (recorded !== undefined) return recorded;
  if (inputs.base?.complete) return '-';
  if (inputs.lowerIsBase) return (await digestOf(inputs.overlay.lower, path)).digest;
  return undefined;
}

/** Every entry of the copy's upper folder (root-relative path → type), the record folder left out. */
export async function upperEntries(overlay: CopyOverlay): Promise<Map<string, EntryType>> {
  const out = new Map<string, EntryType>();
  for await (const folder of walkLayer(overlay.upper, '', { descend: (p) => p !== RECORD_FOLDER })) {
    for (const e of folder.entries) {
      const path = childPath(folder.path, e.name);
      if (path !== RECORD_FOLDER) out.set(path, e.type);
    }
  }
  return out;
}

/** The source's entries at and below `path` (none when it has nothing there), links not descended. */
async function sourceTree(source: SourceFolder, path: string): Promise<Map<string, EntryType>> {
  const out = new Map<string, EntryType>();
  const top = (await source.digest(path)).digest;
  if (top === '-') return out;
  if (top !== 'd') {
    out.set(path, top.startsWith('l:') ? 'symlink' : top.startsWith('f:') ? 'file' : 'other');
    return out;
  }
  const pending = [path];
  out.set(path, 'directory');
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const e of await source.list(dir)) {
      const child = childPath(dir, e.name);
      out.set(child, e.type as EntryType);
      if (e.type === 'directory') pending.push(child);
    }
  }
  return out;
}

/** A step the source refused to look at: `skipped` for a protected path, else a `conflict` with the code. */
function refused(path: string, kind: Step['kind'], op: Step['op'], want: Digest, e: unknown): Step {
  const code = codeOf(e) ?? 'INTERNAL';
  const reason =
    code === 'PROTECTED_PATH'
      ? 'a protected path (.git, the state directory, an authority file) is never applied'
      : code === 'SYMLINK_ESCAPE'
        ? 'a link on the way in the source: nothing is written through it'
        : 'the source cannot be read there';
  return { path, kind, op, want, mode: 0, have: '?', status: code === 'PROTECTED_PATH' ? 'skipped' : 'conflict', code, reason };
}

function depth(path: string): number {
  return path.split('/').length;
}
