/**
 * `grep`: search file contents, like Claude Code's Grep (ripgrep) with its three output modes.
 *
 * Input: `pattern` (JS regex; `literal: true` for a plain string), `path?` (folder or file,
 * default '.'), `glob?` (`glob-matcher.ts`: matched against the path below `path`, or, without
 * '/', against the base name, like rg `--glob`), `ignoreCase?`, `output?` `files` | `content` | `count` (default files),
 * `context?` (0–10 lines before and after, content mode), `maxResults?` (default 500, at most
 * 10,000: files, matches or counts). Value: `files` | `matches: [{path, line, text, before?,
 * after?}]` | `counts: [{path, count}]`, and `truncated` (more results exist than returned, or
 * the tree had more entries than the walk limit).
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
 * (bad regex or glob, see above), the path codes of `path`, `TOO_DEEP` (a tree nested deeper
 * than any path can name), `BUSY` (out of file descriptors, never a silently skipped file).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/errors.js';
import type { Resolved } from '../vfs/mount-table.js';
import type { Namespace } from '../vfs/namespace.js';
import { ToolFailure, ok } from './result.js';
import { looksBinary } from './text-content.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';
import type { TreeEntry, WalkResult } from './tree-walk.js';
import { entryAt } from './walk-folder.js';
import { grepCandidates } from './grep-candidates.js';
import { EarlySearch, hitCount, type Verdict } from './early-search.js';
import { compileGlob } from './glob-matcher.js';
import { compileMatcher, type LineMatcher } from './line-matcher.js';
import { ResultCollector } from './result-collector.js';

/** Default `maxResults` of grep. */
export const GREP_DEFAULT_MAX_RESULTS = 500;
/** Files larger than this are skipped by grep. */
export const GREP_MAX_FILE_BYTES = 32 * 1024 * 1024;

const Input = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'JavaScript regular expression (or a plain string with literal: true), matched within single lines.',
    }),
    path: Type.Optional(PathArg("Folder or file to search (default '.', the workspace root).")),
    glob: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: "Only files matching this glob, e.g. '*.ts' (any folder) or 'src/**/*.py'.",
      }),
    ),
    ignoreCase: Type.Optional(Type.Boolean({ description: 'Case-insensitive match (default false).' })),
    literal: Type.Optional(Type.Boolean({ description: 'Treat pattern as a plain string, not a regex (default false).' })),
    output: Type.Optional(
      Type.Union([Type.Literal('files'), Type.Literal('content'), Type.Literal('count')], {
        description: 'files: matching file paths (default); content: matching lines; count: matching lines per file.',
      }),
    ),
    context: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 10, description: 'Lines of context before and after each match (content output only).' }),
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
  text: Type.String(),
  before: Type.Optional(Type.Array(Type.String())),
  after: Type.Optional(Type.Array(Type.String())),
});
const Output = Type.Object({
  files: Type.Optional(Type.Array(Type.String())),
  matches: Type.Optional(Type.Array(Match)),
  counts: Type.Optional(Type.Array(Type.Object({ path: Type.String(), count: Type.Integer() }))),
  truncated: Type.Boolean(),
});

/** One matching line (content output). */
export interface GrepMatch {
  path: string;
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}
/** The value of a grep: exactly one of files, matches, counts (by `output`), and truncated. */
export interface GrepValue {
  files?: string[];
  matches?: GrepMatch[];
  counts?: { path: string; count: number }[];
  truncated: boolean;
}

/** The `grep` tool (see the module comment for inputs, value, skips and limits). */
export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents with a JavaScript regular expression (or literal: true for a plain string) across your workspace or a folder/file. ' +
    "output: 'files' (default) lists matching files; 'content' returns matching lines with line numbers (context adds lines around them); " +
    "'count' gives matching lines per file. Filter files with glob (e.g. '*.ts'). Skips .git, .gitignored files, binaries and symlinks. " +
    'Results are sorted by path; truncated=true means there were more than maxResults (default 500).',
  input: Input,
  output: Output,
  annotations: { title: 'Search file contents', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: (input) => [input.path ?? '.'],
  async handler(input, ctx) {
    const matcher = compileMatcher(input.pattern, { literal: input.literal, ignoreCase: input.ignoreCase });
    try {
      return ok(await search(ctx.namespace, ctx.resolved[0], input, matcher));
    } finally {
      await matcher.close();
    }
  },
});

type GrepInput = { glob?: string; output?: Mode; context?: number; maxResults?: number };
type Mode = 'files' | 'content' | 'count';

/** Files searched ahead of the one being assembled (reads and worker batches overlap). */
const AHEAD = 16;

/** Runs one search: the candidates, their verdicts in tree order, the results of `output`. */
async function search(ns: Namespace, start: Resolved, input: GrepInput, matcher: LineMatcher): Promise<GrepValue> {
  const mode: Mode = input.output ?? 'files';
  const early = new EarlySearch(matcher, { limit: mode === 'count' ? Infinity : 1, texts: false, context: 0 });
  const { entries: files, truncated } = await filesToSearch(ns, start, input.glob, early);
  const results = new Results(
    ns,
    mode,
    input.maxResults ?? GREP_DEFAULT_MAX_RESULTS,
    mode === 'content' ? (input.context ?? 0) : 0,
    matcher,
  );
  results.markTruncated(truncated);
  // A verdict the walk found is used as is; any other file is read and probed now.
  const verdictOf = (e: TreeEntry): Verdict => {
    const known = early.verdicts.get(e);
    if (known !== undefined) return known;
    const p = readText(e).then((bytes) => (bytes ? hitCount(matcher.search(bytes, early.probe, true)) : 0));
    p.catch(() => undefined); // awaited in order; a failure there ends the call
    return p;
  };
  await inTreeOrder(files, verdictOf, (e, n) => n === 0 || results.add(e, n));
  return results.value();
}

/**
 * The files to search: grep's candidates below a folder, the file itself when `start` is one.
 * `SYMLINK_ESCAPE` for a link, `NOT_REGULAR_FILE` for a special file, the walk's errors.
 */
async function filesToSearch(ns: Namespace, start: Resolved, glob: string | undefined, early: EarlySearch): Promise<WalkResult> {
  const matcher = glob === undefined ? undefined : compileGlob(glob, 'glob', { basename: true });
  const { type } = await ns.stat(start);
  if (type === 'directory') return grepCandidates(ns, start, matcher, early);
  if (type === 'file') return { entries: [entryAt(ns, start, start.rel.slice(start.rel.lastIndexOf('/') + 1), 'file')], truncated: false };
  const shown = ns.display(start.path);
  if (type === 'symlink') throw new ToolFailure('SYMLINK_ESCAPE', `'${shown}' is a symbolic link, never followed`, shown);
  throw new ToolFailure('NOT_REGULAR_FILE', `'${shown}' is a special file`, shown);
}

/**
 * Calls `each` with every file's verdict, in order, keeping up to `AHEAD` verdicts started
 * ahead of it, until `each` answers false. Yields to the event loop every `AHEAD` pending
 * verdicts: reads and searches settle in microtasks on memory layers.
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
  }
}

/** The bytes of a text file to search; undefined for a file grep skips (see `isSkippedFile`) or a binary one. */
async function readText(e: TreeEntry): Promise<Uint8Array | undefined> {
  try {
    const bytes = await e.read({ maxBytes: GREP_MAX_FILE_BYTES });
    return looksBinary(bytes) ? undefined : bytes;
  } catch (err) {
    if (isSkippedFile(err)) return undefined;
    throw err;
  }
}

/** The results of one search, in the shape of its `output` mode, capped at `maxResults`. */
class Results {
  private readonly out: ResultCollector<string | GrepMatch | { path: string; count: number }>;

  constructor(
    private readonly ns: Namespace,
    private readonly mode: Mode,
    max: number,
    private readonly context: number,
    private readonly matcher: LineMatcher,
  ) {
    this.out = new ResultCollector(max);
  }

  /** Records that the walk was cut before every file was seen. */
  markTruncated(isCut: boolean): void {
    this.out.markTruncated(isCut);
  }

  /** Adds the results of a file with `n` matching lines; false once the cap is reached. */
  add(e: TreeEntry, n: number): boolean | Promise<boolean> {
    const path = this.ns.display(e.resolved.path);
    if (this.mode === 'files') return this.out.add(path);
    if (this.mode === 'count') return this.out.add({ path, count: n });
    return this.addLines(e, path);
  }

  /** Content output: the file is searched again, now for its lines (memory stays bounded). */
  private async addLines(e: TreeEntry, path: string): Promise<boolean> {
    if (this.out.isFull) {
      this.out.markTruncated();
      return false;
    }
    const bytes = await readText(e);
    if (!bytes) return true;
    const hits = await this.matcher.search(
      bytes,
      { limit: this.out.max - this.out.items.length + 1, texts: true, context: this.context },
      true,
    );
    for (const h of hits.lines ?? []) {
      const m: GrepMatch = { path, line: h.line, text: h.text };
      if (h.before) m.before = h.before;
      if (h.after) m.after = h.after;
      if (!this.out.add(m)) return false;
    }
    return true;
  }

  /** The tool's value: exactly one of files, counts, matches, and `truncated`. */
  value(): GrepValue {
    const { items, truncated } = this.out;
    if (this.mode === 'files') return { files: items as string[], truncated };
    if (this.mode === 'count') return { counts: items as { path: string; count: number }[], truncated };
    return { matches: items as GrepMatch[], truncated };
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
