/**
 * `list`: the entries of one folder, or every entry below it matching a glob, like Claude
 * Code's LS and Glob in one tool.
 *
 * Input: `path?` (folder, default '.'), `pattern?` (a glob relative to `path`, e.g. `**\/*.ts`,
 * with picomatch's syntax and hidden names matching `*`: see `glob-matcher.ts`),
 * `maxResults?` (default 1000, at most 100,000). Value: `entries: [{path, type, size}]` in tree order (sorted by name, depth-first),
 * `truncated` when more entries matched than returned.
 *
 * `path` of an entry is relative to the workspace root when inside it, else absolute. `size`
 * is bytes for files and links (the link text), 0 for folders and special files. Symlinks are
 * listed with type `symlink` and never descended; mount points lead into their mounts. `.git`
 * (and every name git treats as `.git`) is never listed (vfs/namespace.ts). A pattern walk
 * prunes folders the pattern cannot reach.
 *
 * Errors: the path codes, `NOT_DIRECTORY` (a file given as `path`), `NOT_FOUND`,
 * `SYMLINK_ESCAPE`, `INVALID_INPUT` (an unusable pattern, braces past the expansion caps, or
 * matching past `MATCH_BUDGET_STEPS`), `TOO_DEEP` (a tree nested deeper than any path can
 * name), `BUSY` (out of file descriptors). Matching is linear and yields to the event loop
 * every `YIELD_STEPS` of work (`match-work.ts`), so no pattern holds the process. Sizes: on a host layer the first
 * `maxResults` matches the walk meets are stat'ed through the folder it holds open (an `lstat`
 * by name inside that folder, no walk from the root); any other returned entry is stat'ed
 * through the namespace after the walk.
 */
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/errors.js';
import { ToolFailure, ok } from './result.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';
import { walkTree, type FolderFiles, type Selection, type TreeEntry } from './tree-walk.js';
import { compileGlob } from './glob-matcher.js';
import { MatchMeter } from './match-work.js';

/** Default `maxResults` of list. */
export const LIST_DEFAULT_MAX_RESULTS = 1000;

const Input = Type.Object(
  {
    path: Type.Optional(PathArg("The folder to list (default '.', the workspace root).")),
    pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "A glob relative to path, e.g. '**/*.ts' or 'src/*.json'. Without it, only the folder's own entries are listed." })),
    maxResults: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Most entries to return (default 1000).' })),
  },
  { additionalProperties: false },
);

const Entry = Type.Object({
  path: Type.String(),
  type: Type.Union([Type.Literal('file'), Type.Literal('directory'), Type.Literal('symlink'), Type.Literal('other')]),
  size: Type.Integer(),
});
const Output = Type.Object({ entries: Type.Array(Entry), truncated: Type.Boolean() });

/** One listed entry. */
export interface ListEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
}
/** The value of a list. */
export interface ListValue {
  entries: ListEntry[];
  truncated: boolean;
}

/** The `list` tool (see the module comment for inputs, value, errors and limits). */
export const listTool = defineTool({
  name: 'list',
  description:
    "List a folder of your workspace (default: its root), or find files by glob with pattern (e.g. '**/*.ts', 'src/**/test_*.py'). " +
    'Returns path, type (file, directory, symlink, other) and size in bytes, sorted. Symlinks are shown but never followed. ' +
    'truncated=true means more entries matched than maxResults (default 1000): narrow the path or pattern.',
  input: Input,
  output: Output,
  annotations: { title: 'List files', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: (input) => [input.path ?? '.'],
  async handler(input, ctx) {
    const [start] = ctx.resolved;
    const ns = ctx.namespace;
    const max = input.maxResults ?? LIST_DEFAULT_MAX_RESULTS;
    let found: TreeEntry[];
    let walkTruncated: boolean;
    // Sizes taken during the walk through the folder it holds open (host layer fast path), for
    // the first `max` matches met; the rest of the shown entries are stat'ed after the walk.
    const sizes = new Map<TreeEntry, number | undefined>();
    let sized = 0;
    const sizeInWalk = (e: TreeEntry, files: FolderFiles) => {
      if (!files.held || sized >= max || (e.type !== 'file' && e.type !== 'symlink')) return;
      const size = sizeOrGone(files, e);
      if (size === 'later') return;
      sized++;
      sizes.set(e, size);
    };
    if (input.pattern === undefined) {
      ({ entries: found, truncated: walkTruncated } = await walkTree(ns, start, {
        select: (_dir, entries, files) => {
          for (const e of entries) sizeInWalk(e, files);
          return { keep: 'all', enter: 'none' };
        },
      }));
    } else {
      const glob = compileGlob(input.pattern, 'pattern');
      const meter = new MatchMeter();
      ({ entries: found, truncated: walkTruncated } = await walkTree(ns, start, {
        select: (_dir, entries, files) => {
          // Sets only for folders that keep or enter something: most folders of a big tree do neither.
          let keep: Set<TreeEntry> | undefined;
          let enter: Set<TreeEntry> | undefined;
          // Matching yields to the event loop every `YIELD_STEPS` of work, even inside one folder.
          const judge = (from: number): Selection | Promise<Selection> => {
            for (let i = from; i < entries.length; i++) {
              const e = entries[i];
              if (glob.matches(e.rel, meter)) {
                (keep ??= new Set()).add(e);
                sizeInWalk(e, files);
              }
              if (e.type === 'directory' && e.name !== '.git' && glob.mayContainMatches(e.rel, meter)) (enter ??= new Set()).add(e);
              if (meter.mustYield) {
                meter.checkBudget('pattern', 'matching this glob over the tree', 'use a simpler pattern or a narrower path');
                return meter.yieldNow().then(() => judge(i + 1));
              }
            }
            return { keep: keep ?? 'none', enter: enter ?? 'none' };
          };
          return judge(0);
        },
      }));
    }
    const shown = found.length > max ? found.slice(0, max) : found;
    // Only the files and links not sized in the walk are stat'ed now (concurrently).
    const late = new Map<TreeEntry, Promise<number | undefined>>();
    for (const e of shown) if (!sizes.has(e) && (e.type === 'file' || e.type === 'symlink')) late.set(e, sizeOf(e));
    const lateSizes = late.size > 0 ? new Map(await Promise.all([...late].map(async ([e, p]) => [e, await p] as const))) : undefined;
    const entries: ListEntry[] = [];
    for (const e of shown) {
      const size = sizes.has(e) ? sizes.get(e) : lateSizes?.has(e) ? lateSizes.get(e) : 0;
      if (size !== undefined) entries.push({ path: ns.display(e.resolved.path), type: e.type, size });
    }
    return ok<ListValue>({ entries, truncated: walkTruncated || found.length > max });

    async function sizeOf(e: TreeEntry): Promise<number | undefined> {
      try {
        return (await ns.stat(e.resolved)).size;
      } catch (err) {
        if (isVfsError(err, 'NOT_FOUND')) return undefined; // removed while listing: not reported
        throw err;
      }
    }
  },
});

/**
 * The size from a synchronous stat, undefined when the entry was removed meanwhile, 'later'
 * when the stat is not synchronous there (a mount point): it is then taken after the walk.
 */
function sizeOrGone(files: FolderFiles, e: TreeEntry): number | undefined | 'later' {
  try {
    const st = files.stat(e);
    if (st instanceof Promise) {
      st.catch(() => undefined);
      return 'later';
    }
    return st.size;
  } catch (err) {
    if (isVfsError(err, 'NOT_FOUND')) return undefined; // removed while listing: not reported
    throw err;
  }
}
