/**
 * Claude Code's Grep over the gate's `grep`: its arguments (`output_mode`, `-A`/`-B`/`-C`/
 * `context`, `-i`, `-n`, `type`, `head_limit`, `offset`, `multiline`, `glob` lists) as grep's, and
 * grep's value as Claude Code's Grep answers (`Found 3 files` and the paths; `path:line:text`
 * lines; `path:count` lines and the total), paths absolute.
 *
 * Context (`-A`, `-B`, `-C`, `context`) with `files_with_matches` or `count` output is ignored, as
 * Claude Code's Grep ignores it (its schema: "requires output_mode: content, ignored otherwise"),
 * where the gate's own `grep` refuses it; the answer's notes say it was ignored.
 *
 * Where it differs from Claude Code, and says so in the answer: `head_limit` and `offset` count
 * matches in content mode (each with its context lines), not printed lines; context shows at
 * most 20 lines each side; `head_limit: 0` returns at most 10,000 entries; files come in path
 * order (Claude Code sorts them by modification time).
 */
import type { Static } from '@sinclair/typebox';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { GrepValue } from '../../../tools/index.js';
import { GREP_FILES_ONLY_HINT, ToolFailure } from '../../../tools/index.js';
import { contentLines, searchedNote, type Row } from '../text/index.js';
import type { GrepInput } from './claude-code-schemas.js';
import { ripgrepTypeGlob } from './ripgrep-types.js';
import { answer } from './claude-code-results.js';
import type { PathView } from './profile-paths.js';

type Input = Static<typeof GrepInput>;

/** Claude Code's default `head_limit`. */
const GREP_DEFAULT_HEAD_LIMIT = 250;
/** The most results one grep returns (the gate's `maxResults` bound). */
const GREP_MOST = 10_000;
/** The most context lines grep shows on each side. */
const CONTEXT_MOST = 20;
/** Grep's context arguments, which only content mode uses. */
const CONTEXT_FIELDS = ['-A', '-B', '-C', 'context'] as const;

/** grep's arguments for a Grep call, and the notes its answer carries (what was capped). Throws `INVALID_INPUT` for a glob or type it cannot use. */
export function grepArgs(input: Input): { args: Record<string, unknown>; notes: string[] } {
  const notes: string[] = [];
  const mode = input.output_mode ?? 'files_with_matches';
  const args: Record<string, unknown> = {
    pattern: input.multiline ? `(?s)${input.pattern}` : input.pattern,
    output: mode === 'files_with_matches' ? 'files' : mode,
  };
  if (input.path !== undefined) args.path = input.path;
  const glob = fileGlob(input.glob, input.type);
  if (glob !== undefined) args.glob = glob;
  if (input['-i']) args.ignoreCase = true;
  if (input.multiline) args.multiline = true;
  const idle = mode === 'content' ? [] : CONTEXT_FIELDS.filter((f) => input[f] !== undefined);
  if (idle.length > 0)
    notes.push(
      `${idle.join(', ')} apply to output_mode: "content" only and were ignored, as Claude Code's Grep ignores them; pass output_mode: "content" to see lines`,
    );
  if (mode === 'content') {
    const capped = (n: number | undefined) => {
      if (n === undefined) return undefined;
      if (n > CONTEXT_MOST) notes.push(`context lines cut to ${CONTEXT_MOST} (the most this server shows)`);
      return Math.min(n, CONTEXT_MOST);
    };
    const around = capped(input['-C'] ?? input.context);
    if (around !== undefined) args.context = around;
    else {
      const before = capped(input['-B']);
      const after = capped(input['-A']);
      if (before !== undefined) args.before = before;
      if (after !== undefined) args.after = after;
    }
  }
  const head = input.head_limit ?? GREP_DEFAULT_HEAD_LIMIT;
  if (head === 0 || head > GREP_MOST) notes.push(`at most ${GREP_MOST} entries are returned at once (page on with offset)`);
  args.maxResults = head === 0 ? GREP_MOST : Math.min(head, GREP_MOST);
  if (input.offset) args.offset = input.offset;
  return { args, notes };
}

/**
 * grep's one `glob` for Claude Code's `glob` (split on whitespace, and on commas outside braces,
 * as Claude Code splits it for rg) and `type`. A glob without '/' matches file names at any
 * depth, so in a list that mixes both it becomes `**\/glob`.
 */
function fileGlob(glob: string | undefined, type: string | undefined): string | undefined {
  const typed = type === undefined ? undefined : ripgrepTypeGlob(type);
  if (glob === undefined) return typed;
  const parts = splitGlobs(glob);
  if (parts.length === 0) throw new ToolFailure('INVALID_INPUT', 'glob: holds no pattern');
  if (parts.length > 1 && parts.some((p) => p.startsWith('!'))) {
    throw new ToolFailure('INVALID_INPUT', "glob: an excluding glob ('!…') must be the only one");
  }
  const anyPath = parts.some((p) => p.includes('/'));
  const one = parts.length === 1 ? parts[0] : `{${parts.map((p) => (anyPath && !p.includes('/') ? `**/${p}` : p)).join(',')}}`;
  if (typed === undefined) return one;
  if (parts.length === 1 && (one === '**' || one.endsWith('/**')) && !one.startsWith('!')) return `${one}/${typed}`;
  throw new ToolFailure(
    'INVALID_INPUT',
    `type: cannot be combined with the glob ${JSON.stringify(glob.slice(0, 100))}; put both in glob, e.g. 'src/**/*.{ts,tsx}'`,
  );
}

/** Claude Code's split of a `glob` argument: whitespace separates; commas separate outside braces. */
function splitGlobs(glob: string): string[] {
  const out: string[] = [];
  for (const piece of glob.split(/\s+/)) {
    if (piece === '') continue;
    let depth = 0;
    let start = 0;
    for (let i = 0; i < piece.length; i++) {
      const c = piece[i];
      if (c === '\\') i++;
      else if (c === '{') depth++;
      else if (c === '}') depth = Math.max(0, depth - 1);
      else if (c === ',' && depth === 0) {
        if (i > start) out.push(piece.slice(start, i));
        start = i + 1;
      }
    }
    if (start < piece.length) out.push(piece.slice(start));
  }
  return out;
}

/** The answer to a Grep call from grep's value (see the file comment). */
export function grepAnswer(value: GrepValue, input: Input, notes: readonly string[], view: PathView): CallToolResult {
  const mode = input.output_mode ?? 'files_with_matches';
  const structured: Record<string, unknown> = { mode, numFiles: 0, filenames: [] as string[] };
  let lines: string[];
  if (mode === 'content') {
    const matches = (value.matches ?? []) as unknown as Row[];
    const shown = contentLines(matches, { lineNumbers: input['-n'] !== false, shownPath: view.absolute });
    const files = [...new Set(matches.map((m) => view.absolute(String(m.path))))];
    Object.assign(structured, { numFiles: files.length, filenames: files, content: shown.join('\n'), numLines: shown.length });
    lines = shown.length > 0 ? shown : ['No matches found'];
  } else if (mode === 'count') {
    const counts = value.counts ?? [];
    const total = counts.reduce((n, c) => n + c.count, 0);
    const shown = counts.map((c) => `${view.absolute(c.path)}:${c.count}`);
    Object.assign(structured, {
      numFiles: counts.length,
      filenames: counts.map((c) => view.absolute(c.path)),
      content: shown.join('\n'),
      numMatches: total,
    });
    lines =
      shown.length > 0
        ? [
            ...shown,
            '',
            `Found ${total} matching line${total === 1 ? '' : 's'} across ${counts.length} file${counts.length === 1 ? '' : 's'}.`,
          ]
        : ['No matches found'];
  } else {
    const files = (value.files ?? []).map(view.absolute);
    Object.assign(structured, { numFiles: files.length, filenames: files });
    lines = files.length > 0 ? [`Found ${files.length} file${files.length === 1 ? '' : 's'}`, ...files] : ['No files found'];
  }
  const empty = Number(structured.numFiles) === 0;
  if (empty) lines[0] = `${lines[0]} (${searchedNote(value as unknown as Row)})`;
  structured.truncated = value.truncated;
  if (value.nextOffset !== undefined) {
    structured.nextOffset = value.nextOffset;
    structured.appliedLimit = input.head_limit === 0 ? GREP_MOST : Math.min(input.head_limit ?? GREP_DEFAULT_HEAD_LIMIT, GREP_MOST);
  }
  if (input.offset) structured.appliedOffset = input.offset;
  structured.filesSearched = value.filesSearched;
  if (value.skipped) structured.skipped = value.skipped;
  // grep's pointer to its content output speaks gatefs's argument names; Claude Code's Grep says nothing there.
  const hint = value.hint === GREP_FILES_ONLY_HINT ? undefined : value.hint;
  const said = [...notes, ...(hint ? [hint] : [])];
  if (said.length > 0) structured.notes = said;
  const page: string[] = [];
  if (value.nextOffset !== undefined) page.push(`more results: continue with offset ${value.nextOffset}`);
  else if (value.truncated) page.push('the search stopped at its entry limit: search a narrower path');
  const tail = [...page, ...said].map((s) => `(${s})`);
  if (structured.appliedLimit !== undefined || input.offset)
    tail.unshift(`[Showing results with pagination = limit: ${structured.appliedLimit ?? '-'}, offset: ${input.offset ?? 0}]`);
  return answer([...lines, ...(tail.length > 0 ? ['', ...tail] : [])].join('\n'), structured);
}
