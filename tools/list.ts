/**
 * `list`: the entries of one folder, or every entry below it matching a glob, like Claude
 * Code's LS and Glob in one tool.
 *
 * Input: `path?` (folder, default '.'), `pattern?` (a glob relative to `path`, e.g. `**\/*.ts`,
 * with picomatch's syntax and hidden names matching `*`: see `glob-matcher.ts`; the same matcher
 * as grep's `glob`), `includeIgnored?` (default false: what `.gitignore` files ignore is left
 * out, as grep leaves it out), `sort?` (`name`, the default: tree order, sorted by name,
 * depth-first; `mtime`: newest first, like Claude Code's Glob, ties in tree order), `offset?`
 * (entries passed over first, for paging), `maxResults?` (default 1000, at most 100,000).
 * Value: `entries: [{path, type, size, mtime?}]` (`mtime`, ISO 8601, with `sort: mtime`),
 * `truncated` when more entries matched than returned (or the walk stopped at its entry limit),
 * `nextOffset` where the next page starts when more entries exist, `ignored` (entries left out
 * by `.gitignore`, a folder counted once, when any).
 *
 * `path` of an entry is relative to the workspace root when inside it, else absolute. `size`
 * is bytes for files and links (the link text), 0 for folders and special files. Symlinks are
 * listed with type `symlink` and never descended; mount points lead into their mounts. `.git`
 * (folder, or a worktree's `.git` file, and every name git treats as `.git`) is never listed
 * (vfs/namespace.ts). A pattern walk enters only the folders the pattern can reach below: its
 * leading segments are compared with each folder's path (`packages/*\/src/**` enters
 * `packages`, each package, and only their `src`), and an ignored folder is never entered.
 *
 * Errors: the path codes, `NOT_DIRECTORY` (a file given as `path`), `NOT_FOUND`,
 * `SYMLINK_ESCAPE`, `INVALID_INPUT` (an unusable pattern, braces past the expansion caps, or
 * matching past `MATCH_BUDGET_STEPS`), `TOO_DEEP` (a tree nested deeper than any path can
 * name), `BUSY` (out of file descriptors). Matching is linear and yields to the event loop
 * every `YIELD_STEPS` of work (`match-work.ts`), so no pattern holds the process. Sizes: on a
 * host layer the first matches the walk meets (up to the page's end; all of them for `sort:
 * mtime`) are stat'ed through the folder it holds open (an `lstat` by name inside that folder,
 * no walk from the root: `TreeEntry.stat`); any other returned entry is stat'ed through the
 * namespace after the walk.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/index.js';
import type { Stat } from '../vfs/index.js';
import { ok } from './result.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';
import { walkTree, type TreeEntry } from './tree-walk.js';
import { compileGlob } from './patterns/index.js';
import { ResultCollector } from './result-collector.js';
import { TreeFilter } from './tree-filter.js';
import { ShardedMap } from './sharded-map.js';
import { allSliced, runSliced, sliceEnds, sortSliced, type SlicedWork } from './sliced-work.js';

/** Default `maxResults` of list. */
const LIST_DEFAULT_MAX_RESULTS = 1000;
/** Entries shaped for the answer between two yields to the event loop. */
const YIELD_EVERY_ENTRIES = 4096;

const Input = Type.Object(
  {
    path: Type.Optional(PathArg("The folder to list (default '.', the workspace root).")),
    pattern: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: "A glob relative to path, e.g. '**/*.ts' or 'src/*.json'. Without it, only the folder's own entries are listed.",
      }),
    ),
    includeIgnored: Type.Optional(
      Type.Boolean({ description: 'Also list what .gitignore files ignore (default false: left out, and counted in ignored).' }),
    ),
    sort: Type.Optional(
      Type.Union([Type.Literal('name'), Type.Literal('mtime')], {
        description: 'name: sorted by path, folders followed by their contents (default); mtime: most recently modified first.',
      }),
    ),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description: 'Entries to pass over first (paging: the nextOffset of the previous page).',
      }),
    ),
    maxResults: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Most entries to return (default 1000).' })),
  },
  { additionalProperties: false },
);

const Entry = Type.Object({
  path: Type.String(),
  type: Type.Union([Type.Literal('file'), Type.Literal('directory'), Type.Literal('symlink'), Type.Literal('other')]),
  size: Type.Integer(),
  mtime: Type.Optional(Type.String()),
});
const Output = Type.Object({
  entries: Type.Array(Entry),
  truncated: Type.Boolean(),
  nextOffset: Type.Optional(Type.Integer()),
  ignored: Type.Optional(Type.Integer()),
});

/** One listed entry. */
interface ListEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  /** Last modification, ISO 8601 (with `sort: mtime`). */
  mtime?: string;
}
/** The value of a list. */
export interface ListValue {
  entries: ListEntry[];
  truncated: boolean;
  /** The `offset` of the next page, when more entries exist past this one. */
  nextOffset?: number;
  /** Entries `.gitignore` left out (a folder counted once), when any. */
  ignored?: number;
}

/** The `list` tool (see the module comment for inputs, value, errors and limits). */
export const listTool = defineTool({
  name: 'list',
  description:
    "List a folder of your workspace (default: its root), or find files by glob with pattern (e.g. '**/*.ts', 'src/**/test_*.py'). " +
    'Returns path, type (file, directory, symlink, other) and size in bytes, sorted by path (sort: mtime for newest first). ' +
    'Leaves out .gitignored entries (includeIgnored: true shows them) and never follows symlinks. ' +
    'When truncated, nextOffset continues (offset); maxResults defaults to 1000.',
  input: Input,
  output: Output,
  annotations: { title: 'List files', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: (input) => [input.path ?? '.'],
  async handler(input, ctx) {
    const ns = ctx.namespace;
    const byMtime = input.sort === 'mtime';
    const out = new ResultCollector<TreeEntry>(input.maxResults ?? LIST_DEFAULT_MAX_RESULTS, input.offset ?? 0);
    // Stats are asked for while the walk is in each folder (through the folder it holds, where
    // the layer has one): for the first entries kept up to the page's end, or all for mtime.
    // By name, folders and special files need no stat (their size is 0).
    const needsStat = (e: TreeEntry) => byMtime || e.type === 'file' || e.type === 'symlink';
    const stats: Stats = new ShardedMap();
    let statted = 0;
    const statEarly = (e: TreeEntry) => {
      if (needsStat(e) && (byMtime || statted < out.offset + out.max)) {
        stats.set(e, statOf(e));
        statted++;
      }
    };
    const filter = await TreeFilter.create(ns, ctx.resolved[0], {
      glob: input.pattern === undefined ? undefined : compileGlob(input.pattern, 'pattern'),
      honourIgnore: input.includeIgnored !== true,
      keeps: () => true,
      recursive: input.pattern !== undefined,
      onKept: statEarly,
      budget: { field: 'pattern', what: 'matching this glob over the tree', advice: 'use a simpler pattern or a narrower path' },
    });
    const walked = await walkTree(ns, ctx.resolved[0], { select: filter.select, only: filter.only });
    out.markTruncated(walked.truncated);
    const ordered = byMtime ? await newestFirst(walked.entries, stats) : walked.entries;
    for (let i = 0; i < ordered.length && out.add(ordered[i]); i++) if (sliceEnds(i + 1)) await yieldToLoop();
    const shown = await allSliced(out.items, (e) => (needsStat(e) ? (stats.get(e) ?? statOf(e)) : undefined));
    const entries: ListEntry[] = [];
    for (const [i, e] of out.items.entries()) {
      if (i > 0 && i % YIELD_EVERY_ENTRIES === 0) await yieldToLoop(); // 100,000 entries take a while to shape
      const st = shown[i];
      if (st === undefined && needsStat(e)) continue; // removed while listing: not reported
      const entry: ListEntry = {
        path: ns.display(e.resolved.path),
        type: e.type,
        size: st && (e.type === 'file' || e.type === 'symlink') ? st.size : 0,
      };
      if (st && byMtime) entry.mtime = new Date(st.mtimeMs).toISOString();
      entries.push(entry);
    }
    const value: ListValue = { entries, truncated: out.truncated };
    if (out.nextOffset !== undefined) value.nextOffset = out.nextOffset;
    if (filter.ignored > 0) value.ignored = filter.ignored;
    return ok(value);
  },
});

/** The stats asked for while the walk was in each folder (in shards: one per entry for `sort: mtime`). */
type Stats = ShardedMap<TreeEntry, Promise<Stat | undefined>>;

/**
 * The entries newest first (ties in tree order), those removed while listing left out; sorted in
 * slices (tools/sliced-work.ts: sorting 300,000 entries at once held the loop for a few hundred ms).
 */
async function newestFirst(entries: readonly TreeEntry[], stats: Stats): Promise<TreeEntry[]> {
  const known = await allSliced(entries, (e) => stats.get(e) ?? statOf(e));
  const sorted = runSliced(byAge(entries, known));
  return sorted instanceof Promise ? await sorted : sorted;
}

/** `entries` with a stat (`known`, in the same order), newest first, ties in their order. */
function* byAge(entries: readonly TreeEntry[], known: readonly (Stat | undefined)[]): SlicedWork<TreeEntry[]> {
  const order: number[] = [];
  for (let i = 0; i < entries.length; i++) {
    if (known[i] !== undefined) order.push(i);
    if (sliceEnds(i + 1)) yield;
  }
  const sorted = yield* sortSliced(order, (a, b) => known[b]!.mtimeMs - known[a]!.mtimeMs || a - b);
  const out: TreeEntry[] = new Array(sorted.length);
  for (let k = 0; k < sorted.length; k++) {
    out[k] = entries[sorted[k]];
    if (sliceEnds(k + 1)) yield;
  }
  return out;
}

/** The metadata of `e` (a link's own, never its target's), undefined when it was removed while listing (not reported). */
function statOf(e: TreeEntry): Promise<Stat | undefined> {
  const st = e.stat().then(
    (s) => s,
    (err: unknown) => {
      if (isVfsError(err, 'NOT_FOUND')) return undefined;
      throw err;
    },
  );
  st.catch(() => undefined); // awaited after the walk, which may fail first
  return st;
}
