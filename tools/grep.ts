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
 * per file), yielding every 32 files or 4 MiB; results still come in tree order, but every
 * candidate is read even when `maxResults` would have stopped earlier. Errors: `INVALID_INPUT`
 * (bad regex or glob, see above), the path codes of `path`, `TOO_DEEP` (a tree nested deeper
 * than any path can name), `BUSY` (out of file descriptors, never a silently skipped file).
 */
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/errors.js';
import type { Namespace } from '../vfs/namespace.js';
import { ToolFailure, ok } from './result.js';
import { looksBinary } from './text-content.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';
import { walkTree, type TreeEntry } from './tree-walk.js';
import { GitignoreRules } from './gitignore-rules.js';
import { compileGlob, type GlobMatcher } from './glob-matcher.js';
import { MatchMeter } from './match-work.js';
import { compileMatcher, type LineHits, type LineMatcher, type LineRequest } from './line-matcher.js';

/** Default `maxResults` of grep. */
export const GREP_DEFAULT_MAX_RESULTS = 500;
/** Files larger than this are skipped by grep. */
export const GREP_MAX_FILE_BYTES = 32 * 1024 * 1024;

const Input = Type.Object(
  {
    pattern: Type.String({ minLength: 1, maxLength: 4096, description: 'JavaScript regular expression (or a plain string with literal: true), matched within single lines.' }),
    path: Type.Optional(PathArg("Folder or file to search (default '.', the workspace root).")),
    glob: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "Only files matching this glob, e.g. '*.ts' (any folder) or 'src/**/*.py'." })),
    ignoreCase: Type.Optional(Type.Boolean({ description: 'Case-insensitive match (default false).' })),
    literal: Type.Optional(Type.Boolean({ description: 'Treat pattern as a plain string, not a regex (default false).' })),
    output: Type.Optional(Type.Union([Type.Literal('files'), Type.Literal('content'), Type.Literal('count')], { description: "files: matching file paths (default); content: matching lines; count: matching lines per file." })),
    context: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'Lines of context before and after each match (content output only).' })),
    maxResults: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Most files, lines or counts to return (default 500).' })),
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
export interface GrepMatch { path: string; line: number; text: string; before?: string[]; after?: string[] }
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

type GrepInput = { glob?: string; output?: 'files' | 'content' | 'count'; context?: number; maxResults?: number };
type Mode = 'files' | 'content' | 'count';

/**
 * What is known about a candidate before the results are assembled: the number of matching
 * lines the probe found (at most 1 for files and content output, all of them for count output;
 * 0 for binary, unreadable or vanished files), or its pending search. The walk fills this in
 * for the files it reads through a held folder; content output searches a matching file again
 * after the walk, in tree order, for its lines, so that memory stays bounded.
 */
type Verdict = number | Promise<number>;

/** Files searched ahead of the one being assembled (reads and worker batches overlap). */
const AHEAD = 16;
/** Bytes in the worker's queue before the walk waits for it to catch up. */
const MAX_QUEUED_BYTES = 32 * 1024 * 1024;

async function search(ns: Namespace, start: TreeEntry['resolved'], input: GrepInput, matcher: LineMatcher): Promise<GrepValue> {
  const glob = input.glob === undefined ? undefined : compileGlob(input.glob, 'glob', { basename: true });
  const mode: Mode = input.output ?? 'files';
  const probe: LineRequest = { limit: mode === 'count' ? Infinity : 1, texts: false, context: 0 };
  const startStat = await ns.stat(start);
  let files: TreeEntry[];
  let truncated = false;
  const verdicts = new Map<TreeEntry, Verdict>();
  if (startStat.type === 'directory') {
    ({ entries: files, truncated } = await candidates(ns, start, glob, { probe, matcher, verdicts }));
  } else if (startStat.type === 'file') {
    files = [{ resolved: start, rel: start.rel.slice(start.rel.lastIndexOf('/') + 1), name: '', type: 'file' }];
  } else {
    throw new ToolFailure(startStat.type === 'symlink' ? 'SYMLINK_ESCAPE' : 'NOT_REGULAR_FILE', `'${ns.display(start.path)}' is a ${startStat.type === 'symlink' ? 'symbolic link, never followed' : 'special file'}`, ns.display(start.path));
  }

  const max = input.maxResults ?? GREP_DEFAULT_MAX_RESULTS;
  const context = mode === 'content' ? (input.context ?? 0) : 0;
  const found: string[] = [];
  const matches: GrepMatch[] = [];
  const counts: { path: string; count: number }[] = [];
  const read = (e: TreeEntry) => ns.readFile(e.resolved, { maxBytes: GREP_MAX_FILE_BYTES }).catch((err) => (isSkippedFile(err) ? undefined : Promise.reject(err)));
  // A verdict the walk found (a number) is used as is; anything else is a pending search.
  const verdictOf = (e: TreeEntry): Verdict => {
    const known = verdicts.get(e);
    if (known !== undefined) return known;
    const p = read(e).then((bytes) => (bytes && !looksBinary(bytes) ? hitCount(matcher.search(bytes, probe, true)) : 0));
    p.catch(() => undefined); // awaited below, in order; a failure there ends the call
    return p;
  };

  const ahead: Verdict[] = [];
  let waited = 0;
  scan: for (let i = 0; i < files.length; i++) {
    while (ahead.length < AHEAD && i + ahead.length < files.length) ahead.push(verdictOf(files[i + ahead.length]));
    const next = ahead.shift()!;
    let n: number;
    if (typeof next === 'number') n = next;
    else {
      n = await next;
      // Reads and searches settle in microtasks on memory layers: yield between slices of them.
      if (++waited % AHEAD === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (n === 0) continue;
    const shown = ns.display(files[i].resolved.path);
    if (mode === 'files') {
      if (found.length === max) { truncated = true; break scan; }
      found.push(shown);
    } else if (mode === 'count') {
      if (counts.length === max) { truncated = true; break scan; }
      counts.push({ path: shown, count: n });
    } else {
      if (matches.length === max) { truncated = true; break scan; }
      const bytes = await read(files[i]);
      if (!bytes || looksBinary(bytes)) continue;
      const hits = await matcher.search(bytes, { limit: max - matches.length + 1, texts: true, context }, true);
      for (const h of hits.lines ?? []) {
        if (matches.length === max) { truncated = true; break scan; }
        const m: GrepMatch = { path: shown, line: h.line, text: h.text };
        if (h.before) m.before = h.before;
        if (h.after) m.after = h.after;
        matches.push(m);
      }
    }
  }
  if (mode === 'files') return { files: found, truncated };
  if (mode === 'count') return { counts, truncated };
  return { matches, truncated };
}

function hitCount(hits: LineHits | Promise<LineHits>): number | Promise<number> {
  return hits instanceof Promise ? hits.then((h) => h.count) : hits.count;
}

/** How the walk searches files it can read through a held folder (see `Verdict`). */
interface InWalkSearch {
  probe: LineRequest;
  matcher: LineMatcher;
  verdicts: Map<TreeEntry, Verdict>;
}

/**
 * The files a folder search reads: not .git, not gitignored, not links, matching the glob.
 * Where the walk holds each folder open (`FolderFiles.held`), the kept files are read right
 * there, one open per file instead of a walk from the mount root per file, and their search
 * starts at once (`search.verdicts`); results are still assembled in tree order. Limit: with
 * that fast path every candidate is read, even when `maxResults` would have stopped a
 * tree-order scan earlier.
 */
async function candidates(ns: Namespace, start: TreeEntry['resolved'], glob: GlobMatcher | undefined, search: InWalkSearch) {
  const meter = new MatchMeter();
  const rulesOf = new Map<TreeEntry | undefined, GitignoreRules>();
  const startRules = await GitignoreRules.above(ns, start, meter);
  const pace = { files: 0, bytes: 0 };
  const queued: { bytes: number; done: Promise<unknown> }[] = [];
  let failure: { err: unknown } | undefined;
  let queuedBytes = 0;
  return walkTree(ns, start, {
    async select(dir, entries, files) {
      const inherited = dir === undefined ? startRules : rulesOf.get(dir) ?? GitignoreRules.none;
      const at = dir === undefined ? start : dir.resolved;
      const base = dir !== undefined && dir.resolved.rel === '' ? GitignoreRules.none : inherited; // a mount root starts fresh
      const rules = await base.enter(ns, at, entries.some((e) => e.name === '.gitignore' && e.type === 'file'), meter);
      const keep = new Set<TreeEntry>();
      const enter = new Set<TreeEntry>();
      for (const e of entries) {
        if (e.name === '.git') continue;
        if (e.type === 'directory' || e.type === 'file') {
          const isDir = e.type === 'directory';
          // A boolean, or a promise when matching yielded meanwhile (no await per entry otherwise).
          let ignored = isDir && e.resolved.rel === '' ? false : rules.ignores(e.resolved.rel, isDir, meter);
          if (ignored instanceof Promise) ignored = await ignored;
          if (isDir && !ignored && (!glob || glob.mayContainMatches(e.rel, meter))) {
            enter.add(e);
            rulesOf.set(e, rules);
          } else if (!isDir && !ignored && (!glob || glob.matches(e.rel, meter))) {
            keep.add(e);
          }
        }
        // Matching yields every `YIELD_STEPS` of work, even inside one folder.
        if (meter.mustYield) {
          meter.checkBudget('path', 'applying the glob and .gitignore rules to this tree', 'search a narrower path or use a simpler glob');
          await meter.yieldNow();
        }
      }
      if (!files.held) return { keep, enter };
      for (const e of keep) {
        if (failure) throw failure.err;
        // Reads through a held folder are synchronous on the host layer: no await unless needed.
        let bytes: Uint8Array | undefined;
        try {
          const read = files.readFile(e, { maxBytes: GREP_MAX_FILE_BYTES, transient: true });
          bytes = read instanceof Promise ? await read : read;
        } catch (err) {
          if (!isSkippedFile(err)) throw err; // vanished, too large, …: not searched
        }
        if (bytes === undefined || looksBinary(bytes)) {
          search.verdicts.set(e, 0);
          continue;
        }
        // The walk's buffer is reused for the next file: a large file is read again (into a
        // buffer of its own, handed over without a copy) after the walk instead.
        if (bytes.byteLength > IN_WALK_MAX_BYTES) continue;
        const verdict = hitCount(search.matcher.search(bytes, search.probe));
        search.verdicts.set(e, verdict);
        pace.files++;
        pace.bytes += bytes.byteLength;
        if (verdict instanceof Promise) {
          // A failed search (a pattern past its budget) ends the walk at once.
          verdict.catch((err: unknown) => {
            failure ??= { err };
          });
          // The worker's queue: wait for it to catch up before it holds too many files' bytes.
          queued.push({ bytes: bytes.byteLength, done: verdict });
          queuedBytes += bytes.byteLength;
          while (queuedBytes > MAX_QUEUED_BYTES) {
            const oldest = queued.shift()!;
            await oldest.done.catch(() => undefined);
            queuedBytes -= oldest.bytes;
          }
        } else if (pace.files >= IN_WALK_YIELD_FILES || pace.bytes >= IN_WALK_YIELD_BYTES) {
          // Reads and literal searches through a held folder are synchronous: let other calls run.
          pace.files = 0;
          pace.bytes = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
      return { keep, enter };
    },
  });
}

/** Largest file searched inside the walk (through its reused buffer). */
const IN_WALK_MAX_BYTES = 1024 * 1024;
/** Files read and searched in a row inside the walk before yielding to the event loop. */
const IN_WALK_YIELD_FILES = 32;
/** Bytes read and searched in a row inside the walk before yielding to the event loop. */
const IN_WALK_YIELD_BYTES = 4 * 1024 * 1024;

/**
 * True for a file grep skips (vanished, a link, special, too large, …). `BUSY` and `INTERNAL`
 * are not: out of descriptors, or the read failed, the search cannot say what the file holds,
 * so the whole call answers with that code instead of leaving the file out as if it held no match.
 */
function isSkippedFile(err: unknown): boolean {
  return isVfsError(err) && err.code !== 'BUSY' && err.code !== 'INTERNAL';
}
