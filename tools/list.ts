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
 * by name inside that folder, no walk from the root: `TreeEntry.stat`); any other returned
 * entry is stat'ed through the namespace after the walk.
 */
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/errors.js';
import { ok } from './result.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';
import { walkTree, type Selection, type TreeEntry, type WalkOptions } from './tree-walk.js';
import { compileGlob, type GlobMatcher } from './glob-matcher.js';
import { ResultCollector } from './result-collector.js';
import { MatchMeter } from './match-work.js';

/** Default `maxResults` of list. */
export const LIST_DEFAULT_MAX_RESULTS = 1000;

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
    const ns = ctx.namespace;
    const out = new ResultCollector<TreeEntry>(input.maxResults ?? LIST_DEFAULT_MAX_RESULTS);
    // Sizes are asked for while the walk is in each folder (through the folder it holds, where
    // the layer has one) for the first `max` entries kept; any other shown entry after the walk.
    const sizes = new Map<TreeEntry, Size>();
    const sizeEarly = (e: TreeEntry) => {
      if (sizes.size < out.max && (e.type === 'file' || e.type === 'symlink')) sizes.set(e, sizeOf(e));
    };
    const select = input.pattern === undefined ? allEntries(sizeEarly) : matching(compileGlob(input.pattern, 'pattern'), sizeEarly);
    const walked = await walkTree(ns, ctx.resolved[0], { select });
    out.markTruncated(walked.truncated);
    for (const e of walked.entries) if (!out.add(e)) break;
    const shown = await Promise.all(out.items.map((e) => sizes.get(e) ?? sizeOf(e)));
    const entries: ListEntry[] = [];
    for (const [i, e] of out.items.entries()) {
      const size = shown[i];
      if (size !== undefined) entries.push({ path: ns.display(e.resolved.path), type: e.type, size });
    }
    return ok<ListValue>({ entries, truncated: out.truncated });
  },
});

/** A listed entry's size: 0 without a stat (folders, special files), undefined once it vanished. */
type Size = number | undefined | Promise<number | undefined>;

/** The `select` of a list without a pattern: the folder's own entries, none entered. */
function allEntries(sizeEarly: (e: TreeEntry) => void): WalkOptions['select'] {
  return (_dir, entries) => {
    for (const e of entries) sizeEarly(e);
    return { keep: 'all', enter: 'none' };
  };
}

/**
 * The `select` of a list with a pattern: entries the glob matches, folders it may match below.
 * Matching yields to the event loop every `YIELD_STEPS` of work, even inside one folder.
 */
function matching(glob: GlobMatcher, sizeEarly: (e: TreeEntry) => void): WalkOptions['select'] {
  const meter = new MatchMeter();
  return (_dir, entries) => {
    // Sets only for folders that keep or enter something: most folders of a big tree do neither.
    let keep: Set<TreeEntry> | undefined;
    let enter: Set<TreeEntry> | undefined;
    const judge = (from: number): Selection | Promise<Selection> => {
      for (let i = from; i < entries.length; i++) {
        const e = entries[i];
        if (glob.matches(e.rel, meter)) {
          (keep ??= new Set()).add(e);
          sizeEarly(e);
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
  };
}

/**
 * The size list shows for `e` (bytes of a file, length of a link's text, 0 for anything else),
 * undefined when it was removed while listing (not reported). Other errors end the call.
 */
function sizeOf(e: TreeEntry): Size {
  if (e.type !== 'file' && e.type !== 'symlink') return 0;
  const size = e.stat().then(
    (st) => st.size,
    (err: unknown) => {
      if (isVfsError(err, 'NOT_FOUND')) return undefined;
      throw err;
    },
  );
  size.catch(() => undefined); // awaited after the walk, which may fail first
  return size;
}
