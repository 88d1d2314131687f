/**
 * `patchOf`: the unified diff of a folder's changes (from `folderChanges`), as `git diff`
 * prints it, cut at a byte cap. A typechange prints as git prints it: the old file deleted,
 * then the new one added. The cut falls at a line end, so the patch never ends mid-line or
 * mid-character; files after the cut are not read.
 */
import type { Volume } from 'memfs';
import type { GitObjectReader } from '../../vfs/index.js';
import { diskBytes, type FolderChange } from './memory-changes.js';
import { type PatchSide, unifiedFilePatch } from './unified-diff.js';

type Vol = InstanceType<typeof Volume>;

/**
 * The patch for `changes` of the folder `dir` (their tree side read from `objects`), at most
 * `maxBytes` UTF-8 bytes; `truncated` when something was left out.
 */
export async function patchOf(
  volume: Vol,
  objects: GitObjectReader,
  dir: string,
  changes: readonly FolderChange[],
  maxBytes: number,
): Promise<{ patch: string; truncated: boolean }> {
  let patch = '';
  let size = 0;
  for (const change of changes) {
    const before: PatchSide | null = change.before ? { ...change.before, bytes: await objects.readBlob(change.before.oid) } : null;
    const after: PatchSide | null = change.after ? { ...change.after, bytes: diskBytes(volume, `${dir}/${change.path}`) } : null;
    const text =
      change.status === 'typechange'
        ? unifiedFilePatch(change.path, before, null) + unifiedFilePatch(change.path, null, after)
        : unifiedFilePatch(change.path, before, after);
    const bytes = Buffer.byteLength(text);
    if (size + bytes > maxBytes) return { patch: patch + wholeLines(text, maxBytes - size), truncated: true };
    patch += text;
    size += bytes;
  }
  return { patch, truncated: false };
}

/** The longest prefix of `text` made of whole lines that fits in `room` UTF-8 bytes. */
function wholeLines(text: string, room: number): string {
  if (room <= 0) return '';
  const cut = Buffer.from(text).subarray(0, room);
  const end = cut.lastIndexOf(0x0a);
  return end < 0 ? '' : cut.subarray(0, end + 1).toString('utf8');
}
