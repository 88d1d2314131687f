/**
 * `finishApply`: the steps after an apply's changes are in the source, each safe to repeat (a
 * run that finds the journal in `resetting` does them again):
 *
 * 1. the base record follows: each path applied (or already there) now has the copy's version
 *    as its base, so the next apply checks against what this one wrote;
 * 2. for a plain folder (the overlay's lower is the source itself), the overlay is reset: each
 *    upper file or link that the source now holds the same is removed from the upper, each
 *    whiteout whose paths are all settled is dropped, and upper folders the source has are
 *    removed when empty. The workspace then shows the same bytes, now read from the source.
 *    For a git checkout the lower is the pinned commit, so the upper keeps its files (the
 *    workspace would otherwise show the commit's) and the next apply finds them already there.
 *
 * Result: true when the overlay was reset to nothing (no upper entry and no whiteout left).
 */
import { isVfsError } from '../../../vfs/index.js';
import { readBase, readWhiteouts, removeWhiteouts, writeBase, writeWhiteouts, type JournalEntry } from './apply-records.js';
import type { ApplyParts } from './apply-copy.js';
import type { ApplySavePoint } from './apply-types.js';
import { upperEntries } from './copy-plan.js';
import { digestOf } from './digest-of.js';
import type { SourceFolder } from './source-folder.js';

/** See the file comment. */
export async function finishApply(
  parts: Pick<ApplyParts, 'overlay' | 'pinned'>,
  source: SourceFolder,
  entries: readonly JournalEntry[],
  save: (point: ApplySavePoint, path: string | null) => void,
): Promise<boolean> {
  const upper = parts.overlay.upper;
  const base = (await readBase(upper)) ?? { complete: !parts.pinned, paths: new Map<string, string>() };
  const paths = new Map(base.paths);
  for (const e of entries) {
    if (e.new === 'd') {
      if (base.complete) paths.delete(e.path);
      continue;
    }
    if (e.new === '-' && base.complete) paths.delete(e.path);
    else paths.set(e.path, e.new);
  }
  await writeBase(upper, { complete: base.complete, paths });
  save('apply.based', null);
  if (parts.pinned) return false;

  // A path may have two entries (a file removed, then a folder made there): the last one is what it holds now.
  const final = [...new Map(entries.map((e) => [e.path, e])).values()];
  const settled = async (e: JournalEntry) => (await source.digest(e.path).catch(() => ({ digest: '?' }))).digest === e.new;
  for (const e of final) {
    if (e.new === '-' || e.new === 'd') continue;
    if ((await digestOf(upper, e.path)).digest === e.new && (await settled(e))) await removeIfThere(() => upper.remove(e.path));
  }
  const whiteouts = await readWhiteouts(upper);
  const kept: string[] = [];
  for (const w of whiteouts) {
    const below = final.filter((e) => e.path === w || e.path.startsWith(`${w}/`));
    const gone = (await source.digest(w).catch(() => ({ digest: '?' }))).digest === '-';
    let allSettled = below.length > 0;
    for (const e of below) if (!(await settled(e))) allSettled = false;
    if (!gone && !allSettled) kept.push(w);
  }
  if (kept.length === 0 && whiteouts.length > 0) await removeWhiteouts(upper);
  else if (kept.length !== whiteouts.length) await writeWhiteouts(upper, kept);
  const folders = [...(await upperEntries(parts.overlay))].filter(([, type]) => type === 'directory').map(([path]) => path);
  folders.sort((a, b) => b.split('/').length - a.split('/').length);
  for (const dir of folders) {
    if ((await source.digest(dir).catch(() => ({ digest: '?' }))).digest !== 'd') continue;
    await upper
      .remove(dir)
      .catch((e: unknown) => (isVfsError(e, 'NOT_EMPTY') || isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
  }
  save('apply.reset', null);
  return kept.length === 0 && (await upperEntries(parts.overlay)).size === 0;
}

async function removeIfThere(remove: () => Promise<void>): Promise<void> {
  await remove().catch((e: unknown) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
}
