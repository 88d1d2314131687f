/**
 * Claude Code's LS over the gate's `list`: the folder's whole tree (as Claude Code's LS lists
 * it, recursively, at most `LS_MAX_ENTRIES` entries) printed as its indented tree,
 *
 *     - /worktrees/a/
 *       - src/
 *         - main.ts
 *       - README.md
 *
 * and `ignore` globs as one `list` pattern that leaves them and everything below them out, so
 * the cap counts only what is shown.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ListValue } from '../../../tools/index.js';
import { ToolFailure } from '../../../tools/index.js';
import { answer, ignoredNote } from './claude-code-results.js';
import type { PathView } from './profile-paths.js';

/** Most entries LS shows, as Claude Code's LS. */
export const LS_MAX_ENTRIES = 1000;

/**
 * The `list` pattern of an LS call: every entry below the folder (`**`), or, with `ignore`, every
 * entry that neither matches one of them nor lies below one that does. A glob without '/'
 * (`node_modules`, `*.log`) matches names at any depth, one with '/' the path below the folder.
 */
export function lsPattern(ignore: readonly string[] | undefined): string {
  if (!ignore || ignore.length === 0) return '**';
  const alternatives: string[] = [];
  for (const raw of ignore) {
    let glob = raw;
    while (glob.startsWith('./')) glob = glob.slice(2);
    while (glob.endsWith('/') && glob.length > 1) glob = glob.slice(0, -1);
    if (glob.startsWith('!') || glob.startsWith('/')) {
      throw new ToolFailure(
        'INVALID_INPUT',
        `ignore: ${JSON.stringify(raw.slice(0, 100))} must be a glob relative to path, without '!' or a leading '/'`,
      );
    }
    const at = glob.includes('/') ? glob : `**/${glob}`;
    alternatives.push(at, `${at}/**`);
  }
  return `!{${alternatives.join(',')}}`;
}

/**
 * The answer to an LS call from list's value (entries in tree order, below `folder`). The tree's
 * top is the folder the gate listed: the parent of the first entry (in tree order a child of
 * the folder, whatever '..' or link the argument went through), else `folder` as given.
 */
export function lsAnswer(value: ListValue, folder: string, view: PathView): CallToolResult {
  const first = value.entries[0] === undefined ? undefined : view.absolute(value.entries[0].path);
  const top = first === undefined ? view.absolute(folder) : first.slice(0, first.lastIndexOf('/')) || '/';
  const prefix = top === '/' ? '/' : `${top}/`;
  const lines = [`- ${prefix}`];
  for (const e of value.entries) {
    const path = view.absolute(e.path);
    const rel = path.startsWith(prefix) ? path.slice(prefix.length) : path;
    const depth = rel.split('/').length;
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    const kind = e.type === 'directory' ? '/' : e.type === 'symlink' ? ' (symlink)' : e.type === 'other' ? ' (special file)' : '';
    lines.push(`${'  '.repeat(depth)}- ${name}${kind}`);
  }
  const tree = lines.join('\n');
  const notes: string[] = [];
  if (value.truncated)
    notes.push(`(more than ${LS_MAX_ENTRIES} entries: the first ${value.entries.length} are shown; LS a subfolder, or use Glob or Grep)`);
  if (value.ignored !== undefined) notes.push(ignoredNote(value.ignored));
  const structured: Record<string, unknown> = { path: top, tree, numEntries: value.entries.length, truncated: value.truncated };
  if (value.ignored !== undefined) structured.ignored = value.ignored;
  return answer([tree, ...notes].join('\n'), structured);
}
