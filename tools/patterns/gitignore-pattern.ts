/**
 * `parseGitignoreLine`: one line of a `.gitignore` file as git reads it (dir.c and
 * wildmatch.c, git 2.39), compiled to a linear-time rule.
 *
 * Line syntax: blank lines and lines starting with '#' are skipped; one trailing '\r' is
 * dropped; trailing spaces are dropped unless escaped (`\ `); a leading '!' negates (`\!` is a
 * literal '!', `\#` a literal '#'); one trailing '/' restricts the rule to folders. A rule with
 * no other '/' matches the base name at any depth; otherwise it is anchored to the folder of
 * its `.gitignore` (one leading '/' is dropped) and matched against the path below that folder
 * with `*`, `?` and classes never crossing '/', `**` as a whole segment any number of
 * segments (at the end: at least one, so `a/**` does not match `a`), and other runs of stars
 * like `*`. A malformed class (`[a`, `[[:nope:]]`) or a trailing lone '\' makes a rule that
 * never matches, as wildmatch aborts on them.
 *
 * One quirk of git is kept on purpose: git compares an anchored rule's literal prefix first and
 * hands the rest to wildmatch, so a `**` that follows that prefix counts as starting the pattern:
 * `ab**\/c` matches `abc`, `ab/c` and `abx/y/c`, and `x/ab**` matches `x/ab` and everything
 * below `x/ab*`. Matching is on UTF-16 code units where git compares bytes: `?` matches one
 * non-ASCII character here and one byte of it in git.
 */
import { PathPattern, type PathItem } from './path-pattern.js';
import { splitSegments, tokenizePattern, type PatternToken } from './pattern-tokens.js';
import { compileSegment, type SegmentTest } from './segment-matcher.js';

/**
 * What a matching path must hold, for a cheap test before the pattern: `tail`, the literal text
 * it ends with, and `needle`, a literal text it contains (both within its last segment for
 * base-name rules; `needle` within any one segment for anchored ones).
 */
interface RuleHints {
  readonly tail?: string;
  readonly needle?: string;
}

/** How a rule is matched: the fast shapes first, then the general ones. */
type GitignoreMatch =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'suffix'; readonly suffix: string }
  | ({ readonly kind: 'basename'; readonly test: SegmentTest } & RuleHints)
  | { readonly kind: 'path'; readonly path: string }
  | ({ readonly kind: 'anchored'; readonly patterns: readonly PathPattern[] } & RuleHints)
  | { readonly kind: 'never' };

/** One parsed rule. */
export interface GitignoreRule {
  readonly negated: boolean;
  /** Only folders match (the line ended with '/'). */
  readonly dirOnly: boolean;
  readonly match: GitignoreMatch;
}

const NEVER: GitignoreMatch = { kind: 'never' };

/** The rule of one line (without its '\n'), or undefined for a blank or comment line. */
export function parseGitignoreLine(raw: string): GitignoreRule | undefined {
  if (raw === '' || raw[0] === '#') return undefined;
  let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  line = trimTrailingSpaces(line);
  let negated = false;
  if (line[0] === '!') {
    negated = true;
    line = line.slice(1);
  }
  let dirOnly = false;
  if (line.endsWith('/')) {
    dirOnly = true;
    line = line.slice(0, -1);
  }
  if (line === '') return undefined; // git keeps an empty pattern, which never matches
  const match = line.includes('/') ? anchored(line.startsWith('/') ? line.slice(1) : line) : basename(line);
  return { negated, dirOnly, match };
}

/** git's trim_trailing_spaces: drops the trailing run of unescaped spaces. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ') {
      if (lastSpace === -1) lastSpace = i;
    } else if (c === '\\') {
      i++;
      if (i >= line.length) return line;
      lastSpace = -1;
    } else lastSpace = -1;
  }
  return lastSpace === -1 ? line : line.slice(0, lastSpace);
}

const literalOf = (tokens: readonly PatternToken[]) =>
  tokens.every((t) => t.kind === 'char' || t.kind === 'slash')
    ? String.fromCharCode(...tokens.map((t) => (t.kind === 'char' ? t.code : 47)))
    : undefined;

/** A rule without '/': the base name of any path. */
function basename(pattern: string): GitignoreMatch {
  const tokenized = tokenizePattern(pattern, 'git');
  if (tokenized.kind !== 'tokens') return NEVER;
  const tokens = tokenized.tokens;
  const name = literalOf(tokens);
  if (name !== undefined) return { kind: 'name', name };
  if (tokens[0].kind === 'star') {
    const suffix = literalOf(tokens.slice(1));
    if (suffix !== undefined) return { kind: 'suffix', suffix };
  }
  return { kind: 'basename', test: compileSegment(tokens as Exclude<PatternToken, { kind: 'slash' }>[]), ...hintsOf(tokens) };
}

/** The literal tail of the last segment and the longest literal run of `tokens` (see `RuleHints`). */
function hintsOf(tokens: readonly PatternToken[]): RuleHints {
  let tail = '';
  let run = '';
  let needle = '';
  for (const t of tokens) {
    if (t.kind === 'char') {
      run += String.fromCharCode(t.code);
      tail += String.fromCharCode(t.code);
      if (run.length > needle.length) needle = run;
    } else {
      run = '';
      tail = '';
    }
  }
  return { tail: tail || undefined, needle: needle || undefined };
}

/** A rule with a '/': the path below the `.gitignore`'s folder (leading '/' already dropped). */
function anchored(pattern: string): GitignoreMatch {
  const tokenized = tokenizePattern(pattern, 'git');
  if (tokenized.kind !== 'tokens') return NEVER;
  const path = literalOf(tokenized.tokens);
  if (path !== undefined) return { kind: 'path', path };
  const patterns = anchoredPatterns(pattern);
  if (patterns.length === 0) return NEVER;
  // Hints only for a rule that is one pattern: its tokens are the rule's (no quirk unfolded).
  return { kind: 'anchored', patterns, ...(patterns.length === 1 ? hintsOf(tokenized.tokens) : {}) };
}

/** The path patterns of an anchored rule, git's literal-prefix quirk unfolded into alternatives. */
function anchoredPatterns(pattern: string): PathPattern[] {
  const prefix = pattern.search(/[*?[\\]/);
  const stars = prefix < 0 ? 0 : (/^\*{2,}/.exec(pattern.slice(prefix))?.[0].length ?? 0);
  const after = pattern.slice(prefix + stars);
  if (prefix > 0 && pattern[prefix - 1] !== '/' && stars >= 2 && (after === '' || after.startsWith('/') || after.startsWith('\\/'))) {
    // `<head>**<after>`: wildmatch sees `**` at its start, so it may match nothing at all (the
    // "no folder" shortcut, only before an unescaped '/') or any text up to a '/'.
    const head = pattern.slice(0, prefix);
    if (after === '') return [...plain(`${head}*`), ...plain(`${head}*/**`)];
    if (after.startsWith('/')) return [...anchoredPatterns(head + after.slice(1)), ...plain(`${head}*/**${after}`)];
    return plain(`${head}*/**/${after.slice(2)}`);
  }
  return plain(pattern);
}

function plain(pattern: string): PathPattern[] {
  const tokenized = tokenizePattern(pattern, 'git');
  return tokenized.kind === 'tokens' ? [new PathPattern(pathItems(tokenized.tokens))] : [];
}

/** Segments to path items with wildmatch's globstars: a whole segment of 2+ stars. */
function pathItems(tokens: readonly PatternToken[]): PathItem[] {
  const segments = splitSegments(tokens);
  return segments.map((seg, i) => {
    if (seg.onlyStars < 2) return compileSegment(seg.tokens);
    const isLast = i === segments.length - 1;
    // At the end `a/**` needs one more segment; before '\/' git skips its "no folder" shortcut.
    const min = isLast ? 1 : segments[i + 1].escapedSlashBefore ? 1 : 0;
    return { globstar: true, min };
  });
}
