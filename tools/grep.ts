/**
 * `grep`: search file contents, like Claude Code's Grep (ripgrep) with its three output modes.
 *
 * Input: `pattern` (a regex in JavaScript syntax, ripgrep's inline flags and named groups
 * accepted and translated: `regex-syntax.ts`; `literal: true` for a plain string), `path?` (folder
 * or file, default '.'), `glob?` (`glob-matcher.ts`, the matcher of `list`'s `pattern`: a glob with
 * a '/' is matched against the path below `path`, exactly as `list` matches it; one without '/'
 * against the base name at any depth, ripgrep's `--glob` rule), `ignoreCase?`, `output?` `files` |
 * `content` | `count` (default files), `context?` (0–20 lines before and after, content mode),
 * `before?`, `after?` (0–20 each, taking precedence over `context` on their side, like rg `-B`,
 * `-A` over `-C`; with `files` or `count` output any of them is `INVALID_INPUT`, never ignored), `multiline?` (a match may span lines, like rg `-U`: `line-matcher.ts`),
 * `offset?` (results passed over first, for paging), `maxResults?` (default 500, at most 10,000:
 * files, hits or counts).
 *
 * Value (`grep-results.ts`): `files` | `matches: [{path, line, endLine?, text, before?, after?}]` |
 * `counts: [{path, count}]` (hits per file: matching lines, or multiline matches), `truncated`
 * (more results exist, or the tree had more entries than the walk limit), `nextOffset` (where
 * the next page starts, when more results exist), `filesSearched`, `skipped` (`ignored` entries,
 * `binary` and `tooLarge` files, when any), `hint` (when the answer may not be what was meant: a
 * pattern that can match a line break found nothing line by line, a pattern searched as
 * multiline because it holds a line break, a glob that matched no file; a `files` answer that
 * found files says how to see the lines).
 *
 * Skips: `.git`, what `.gitignore` files ignore (nested ones too), binary files (NUL in the
 * first 8 KiB), symlinks (never followed, files or folders), special files, files over 32 MiB.
 * A file named explicitly as `path` is searched even if ignored. Order is tree order (sorted by
 * name, depth-first). `line` is 1-based; `text` and context lines lose their line break and a
 * trailing '\r', and are cut at 2000 characters.
 *
 * Fairness: no call holds the event loop. Regexes run in a worker (`line-matcher.ts`; a
 * pathological one ends with `INVALID_INPUT` on `pattern` after 1.5 s on one file at most),
 * literals are searched as bytes in 1 MiB slices, glob and `.gitignore` matching is linear and
 * metered (`match-work.ts`; past its budget `INVALID_INPUT` on `path`). Files are searched 16
 * ahead of the one being assembled; where the walk holds each folder open (host layer), files
 * up to 1 MiB are read and their search started inside the walk, through that folder (one open
 * per file, `early-search.ts`); results still come in tree order, but every candidate is read
 * even when `maxResults` would have stopped earlier. Errors: `INVALID_INPUT`
 * (bad regex or glob, ripgrep syntax JavaScript lacks, see above), the path codes of `path`,
 * `TOO_DEEP` (a tree nested deeper than any path can name), `BUSY` (out of file descriptors,
 * never a silently skipped file).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/index.js';
import type { Resolved } from '../vfs/index.js';
import type { Namespace } from '../vfs/index.js';
import { ToolFailure, ok } from './result.js';
import { looksBinary } from './text/index.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';
import type { TreeEntry } from './tree-walk.js';
import { entryAt } from './walk-folder.js';
import { grepCandidates, type Candidates } from './grep/grep-candidates.js';
import { BINARY, EarlySearch, OVERSIZED, SKIPPED, hitCount, type Verdict } from './grep/early-search.js';
import { compileGlob } from './patterns/index.js';
import { compileMatcher, type CompiledPattern } from './grep/line-matcher.js';
import { GrepResults, type GrepMode, type GrepValue } from './grep/grep-results.js';
import { sliceEnds } from './sliced-work.js';

/** Default `maxResults` of grep. */
const GREP_DEFAULT_MAX_RESULTS = 500;
/** Files larger than this are skipped by grep. */
const GREP_MAX_FILE_BYTES = 32 * 1024 * 1024;

const Lines = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description }));

const Input = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      maxLength: 4096,
      description:
        'Regular expression (JavaScript syntax; ripgrep inline flags such as (?i) work), or a plain string with literal: true. Matched within single lines unless multiline: true.',
    }),
    path: Type.Optional(PathArg("Folder or file to search (default '.', the workspace root).")),
    glob: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          "Only files matching this glob: with a '/' it is matched against the path below path, as list patterns are (e.g. 'src/**/*.ts'); without one, against the file name at any depth (e.g. '*.ts').",
      }),
    ),
    ignoreCase: Type.Optional(Type.Boolean({ description: 'Case-insensitive match (default false).' })),
    literal: Type.Optional(Type.Boolean({ description: 'Treat pattern as a plain string, not a regex (default false).' })),
    output: Type.Optional(
      Type.Union([Type.Literal('files'), Type.Literal('content'), Type.Literal('count')], {
        description: 'files: matching file paths (default); content: matching lines; count: matching lines per file.',
      }),
    ),
    context: Lines('Lines of context before and after each match (output: "content" only; refused with files or count output).'),
    before: Lines('Lines of context before each match (output: "content" only; overrides context on that side).'),
    after: Lines('Lines of context after each match (output: "content" only; overrides context on that side).'),
    multiline: Type.Optional(
      Type.Boolean({
        description:
          'Let a match span lines (like rg -U): the pattern runs over the whole file, so \\n and [\\s\\S] cross line breaks; (?s) makes . match them too.',
      }),
    ),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description: 'Results to pass over first (paging: the nextOffset of the previous page).',
      }),
    ),
    maxResults: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10_000, description: 'Most files, lines or counts to return (default 500).' }),
    ),
  },
  { additionalProperties: false },
);

const Match = Type.Object({
  path: Type.String(),
  line: Type.Integer(),
  endLine: Type.Optional(Type.Integer()),
  text: Type.String(),
  before: Type.Optional(Type.Array(Type.String())),
  after: Type.Optional(Type.Array(Type.String())),
});
const Output = Type.Object({
  files: Type.Optional(Type.Array(Type.String())),
  matches: Type.Optional(Type.Array(Match)),
  counts: Type.Optional(Type.Array(Type.Object({ path: Type.String(), count: Type.Integer() }))),
  truncated: Type.Boolean(),
  nextOffset: Type.Optional(Type.Integer()),
  filesSearched: Type.Integer(),
  skipped: Type.Optional(
    Type.Object({ ignored: Type.Optional(Type.Integer()), binary: Type.Optional(Type.Integer()), tooLarge: Type.Optional(Type.Integer()) }),
  ),
  hint: Type.Optional(Type.String()),
});

/** The `grep` tool (see the module comment for inputs, value, skips and limits). */
export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents with a regular expression (JavaScript syntax; ripgrep inline flags like (?i) work; literal: true for a plain string) across your workspace or a folder/file. ' +
    "output: 'files' (default) lists matching files; 'content' returns matching lines with line numbers (before/after/context add lines around them); " +
    "'count' gives matching lines per file. multiline: true lets a match span lines. Filter files with glob ('*.ts' by name, 'src/**/*.ts' by path). " +
    'Skips .git, .gitignored files, binaries and symlinks. Results are sorted by path; when truncated, nextOffset continues (offset), maxResults defaults to 500.',
  input: Input,
  output: Output,
  annotations: { title: 'Search file contents', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: (input) => [input.path ?? '.'],
  async handler(input, ctx) {
    refuseIdleContext(input);
    const compiled = compileMatcher(input.pattern, {
      literal: input.literal,
      ignoreCase: input.ignoreCase,
      multiline: input.multiline,
      owner: ctx.conversation,
    });
    try {
      return ok(await search(ctx.namespace, ctx.resolved[0], input, compiled));
    } finally {
      await compiled.matcher.close();
    }
  },
});

/**
 * Context lines exist only in `content` output: `context`, `before` or `after` with `files` or
 * `count` output is refused (`INVALID_INPUT` on the field) rather than ignored, so a model that
 * asked for context learns it got none and how to get it.
 */
function refuseIdleContext(input: GrepInput): void {
  const mode: GrepMode = input.output ?? 'files';
  if (mode === 'content') return;
  const field = (['context', 'before', 'after'] as const).find((f) => input[f] !== undefined);
  if (field === undefined) return;
  const shown = input.output === undefined ? `the default output "files"` : `output "${mode}"`;
  throw new ToolFailure(
    'INVALID_INPUT',
    `${field}: context lines apply to output "content" only, not to ${shown}: pass output: "content" to see the matching lines with ${field} lines around them, or leave ${field} out`,
    undefined,
    { problem: 'invalid', field, expected: 'output "content"', suggestion: 'content' },
  );
}

type GrepInput = {
  path?: string;
  glob?: string;
  output?: GrepMode;
  context?: number;
  before?: number;
  after?: number;
  offset?: number;
  maxResults?: number;
};

/** Files searched ahead of the one being assembled (reads and worker batches overlap). */
const AHEAD = 16;

/** Runs one search: the candidates, their verdicts in tree order, the results of `output`. */
async function search(ns: Namespace, start: Resolved, input: GrepInput, compiled: CompiledPattern): Promise<GrepValue> {
  const { matcher } = compiled;
  const mode: GrepMode = input.output ?? 'files';
  const offset = input.offset ?? 0;
  // Count output, and content output with an offset (a file wholly before the page is passed over), need every hit counted.
  const countAll = mode === 'count' || (mode === 'content' && offset > 0);
  const probe = { limit: countAll ? Infinity : 1, texts: false, before: 0, after: 0 };
  const probeFile = (e: TreeEntry): Promise<number> =>
    readText(e).then((bytes) => (typeof bytes === 'number' ? bytes : hitCount(matcher.search(bytes, probe, true))));
  const early = new EarlySearch(matcher, probe, probeFile, GREP_MAX_FILE_BYTES);
  try {
    return await searchWith(ns, start, input, compiled, early, probeFile);
  } finally {
    early.close();
  }
}

/** `search` once the probe is set up: the walk, then the verdicts in tree order. */
async function searchWith(
  ns: Namespace,
  start: Resolved,
  input: GrepInput,
  compiled: CompiledPattern,
  early: EarlySearch,
  probeFile: (e: TreeEntry) => Promise<number>,
): Promise<GrepValue> {
  const { matcher } = compiled;
  const mode: GrepMode = input.output ?? 'files';
  const offset = input.offset ?? 0;
  const candidates = await filesToSearch(ns, start, input.glob, early);
  const context =
    mode === 'content' ? { before: input.before ?? input.context ?? 0, after: input.after ?? input.context ?? 0 } : { before: 0, after: 0 };
  const results = new GrepResults(ns, mode, { max: input.maxResults ?? GREP_DEFAULT_MAX_RESULTS, offset }, context, matcher, readText);
  results.noteWalk(candidates.truncated, candidates.ignored);
  // A verdict the walk found is used as is; any other file is read and probed now.
  const verdictOf = (e: TreeEntry): Verdict => {
    const known = early.verdicts.get(e);
    if (known !== undefined) return known;
    const p = probeFile(e);
    p.catch(() => undefined); // awaited in order; a failure there ends the call
    return p;
  };
  await inTreeOrder(candidates.entries, verdictOf, (e, n) => results.add(e, n));
  return results.value(hintFor(compiled, input, results, candidates, ns.display(start.path)));
}

/** The hint of a `files` answer that found files: how to see the lines (an agent may have wanted them). */
export const GREP_FILES_ONLY_HINT = 'matching files only: output: "content" shows the matching lines, output: "count" how many per file';

/** The hint of an answer that may not be what was meant (see the module comment), if any. */
function hintFor(
  compiled: CompiledPattern,
  input: GrepInput,
  results: GrepResults,
  candidates: Candidates,
  shown: string,
): string | undefined {
  if (compiled.multilineImplied) {
    return 'the pattern holds a line break, so it was searched with multiline: true (a match may span lines)';
  }
  if (!results.isEmpty) return (input.output ?? 'files') === 'files' ? GREP_FILES_ONLY_HINT : undefined;
  if (input.glob !== undefined && candidates.entries.length === 0) {
    const how = input.glob.includes('/') ? `matched against paths below '${shown}'` : 'matched against file names';
    return `no file matches the glob '${input.glob}' (${how}); list with the same pattern shows what it selects`;
  }
  if (!compiled.multiline && compiled.lineBreakConstruct !== undefined) {
    return `no match within single lines; '${compiled.lineBreakConstruct}' can match a line break, which a line-by-line search never sees: pass multiline: true to let a match span lines`;
  }
  return undefined;
}

/**
 * The files to search: grep's candidates below a folder, the file itself when `start` is one.
 * `SYMLINK_ESCAPE` for a link, `NOT_REGULAR_FILE` for a special file, the walk's errors.
 */
async function filesToSearch(ns: Namespace, start: Resolved, glob: string | undefined, early: EarlySearch): Promise<Candidates> {
  const matcher = glob === undefined ? undefined : compileGlob(glob, 'glob', { basename: true });
  const { type } = await ns.stat(start);
  if (type === 'directory') return grepCandidates(ns, start, matcher, early);
  if (type === 'file') {
    return { entries: [entryAt(ns, start, start.rel.slice(start.rel.lastIndexOf('/') + 1), 'file')], truncated: false, ignored: 0 };
  }
  const shown = ns.display(start.path);
  if (type === 'symlink') throw new ToolFailure('SYMLINK_ESCAPE', `'${shown}' is a symbolic link, never followed`, shown);
  throw new ToolFailure('NOT_REGULAR_FILE', `'${shown}' is a special file`, shown);
}

/**
 * Calls `each` with every file's verdict, in order, keeping up to `AHEAD` verdicts started
 * ahead of it, until `each` answers false. Yields to the event loop every `AHEAD` pending
 * verdicts (reads and searches settle in microtasks on memory layers), and every
 * `SLICE_ENTRIES` files (300,000 verdicts the walk already found take a while to go through).
 */
async function inTreeOrder(
  files: readonly TreeEntry[],
  verdictOf: (e: TreeEntry) => Verdict,
  each: (e: TreeEntry, n: number) => boolean | Promise<boolean>,
): Promise<void> {
  const ahead: Verdict[] = [];
  let waited = 0;
  for (let i = 0; i < files.length; i++) {
    while (ahead.length < AHEAD && i + ahead.length < files.length) ahead.push(verdictOf(files[i + ahead.length]));
    let n = ahead.shift()!;
    if (typeof n !== 'number') {
      n = await n;
      if (++waited % AHEAD === 0) await yieldToLoop();
    }
    const goOn = each(files[i], n);
    if (!(goOn instanceof Promise ? await goOn : goOn)) return;
    if (sliceEnds(i + 1)) await yieldToLoop();
  }
}

/** The bytes of a text file to search, or why grep does not search it (`BINARY`, `SKIPPED`, `OVERSIZED`; see `isSkippedFile`). */
async function readText(e: TreeEntry): Promise<Uint8Array | typeof BINARY | typeof SKIPPED | typeof OVERSIZED> {
  try {
    const bytes = await e.read({ maxBytes: GREP_MAX_FILE_BYTES });
    return looksBinary(bytes) ? BINARY : bytes;
  } catch (err) {
    if (isVfsError(err, 'TOO_LARGE')) return OVERSIZED;
    if (isSkippedFile(err)) return SKIPPED;
    throw err;
  }
}

/**
 * True for a file grep skips: vanished (`NOT_FOUND`, or a folder on its path gone:
 * `NOT_DIRECTORY`), a link (`SYMLINK_ESCAPE`), a folder or special file now
 * (`IS_DIRECTORY`, `NOT_REGULAR_FILE`), over 32 MiB (`TOO_LARGE`). Any other error ends the
 * call: `BUSY` (out of descriptors, the search cannot say what the file holds), `INTERNAL`, ….
 */
function isSkippedFile(err: unknown): boolean {
  return isVfsError(err) && SKIPPED_FILE_CODES.has(err.code);
}

const SKIPPED_FILE_CODES: ReadonlySet<string> = new Set([
  'NOT_FOUND',
  'NOT_DIRECTORY',
  'SYMLINK_ESCAPE',
  'IS_DIRECTORY',
  'NOT_REGULAR_FILE',
  'TOO_LARGE',
]);
