/**
 * `tokenizePattern`: a glob (one brace alternative) or a `.gitignore` pattern as tokens, and
 * `splitSegments`: those tokens cut at '/' into path segments. Shared by `glob-matcher.ts` and
 * `gitignore-pattern.ts`; what differs between the two dialects is only what a malformed piece
 * means (see `PatternDialect`).
 *
 * Tokens: a literal code unit (`\x` is the literal x), `?` (any one code unit), `*` (any run),
 * a bracket class (`char-class.ts`), '/' (a segment break; `\/` too, marked `escaped`).
 * glob: a trailing `\` is a literal backslash and a `[` without its `]` a literal '['.
 * git: either makes the rule one that never matches (wildmatch aborts on them).
 */
import { type CharClass, parseCharClass, type PatternDialect } from './char-class.js';

/** One token of a pattern. */
export type PatternToken =
  | { readonly kind: 'char'; readonly code: number }
  | { readonly kind: 'any' }
  | { readonly kind: 'star' }
  | { readonly kind: 'class'; readonly cls: CharClass }
  | { readonly kind: 'slash'; readonly escaped: boolean };

/** A token inside one segment (no slashes). */
export type SegmentToken = Exclude<PatternToken, { kind: 'slash' }>;

/** The tokens, `never` (git: the rule can never match), or an unknown POSIX class name (glob). */
type TokenizeResult = { kind: 'tokens'; tokens: PatternToken[] } | { kind: 'never' } | { kind: 'unknown-posix'; name: string };

const ANY: PatternToken = { kind: 'any' };
const STAR: PatternToken = { kind: 'star' };

/** Tokenizes `pattern` (no braces left in it: see `brace-expansion.ts`). Linear in its length. */
export function tokenizePattern(pattern: string, dialect: PatternDialect): TokenizeResult {
  const tokens: PatternToken[] = [];
  for (let i = 0; i < pattern.length; ) {
    const c = pattern.charCodeAt(i);
    if (c === 92 /* \ */) {
      if (i + 1 >= pattern.length) {
        if (dialect === 'git') return { kind: 'never' };
        tokens.push({ kind: 'char', code: 92 });
        i++;
        continue;
      }
      const next = pattern.charCodeAt(i + 1);
      tokens.push(next === 47 ? { kind: 'slash', escaped: true } : { kind: 'char', code: next });
      i += 2;
    } else if (c === 42 /* * */) {
      tokens.push(STAR);
      i++;
    } else if (c === 63 /* ? */) {
      tokens.push(ANY);
      i++;
    } else if (c === 47 /* / */) {
      tokens.push({ kind: 'slash', escaped: false });
      i++;
    } else if (c === 91 /* [ */) {
      const parsed = parseCharClass(pattern, i, dialect);
      if (parsed.kind === 'class') {
        tokens.push({ kind: 'class', cls: parsed.cls });
        i = parsed.end;
      } else if (parsed.kind === 'unknown-posix') {
        return parsed;
      } else if (dialect === 'git') {
        return { kind: 'never' };
      } else {
        tokens.push({ kind: 'char', code: 91 });
        i++;
      }
    } else {
      tokens.push({ kind: 'char', code: c });
      i++;
    }
  }
  return { kind: 'tokens', tokens };
}

/** One segment of a pattern, and whether the '/' before it was written `\/`. */
interface PatternSegment {
  readonly tokens: readonly SegmentToken[];
  /** How many stars the segment holds when it holds nothing else (0 otherwise): a globstar candidate. */
  readonly onlyStars: number;
  readonly escapedSlashBefore: boolean;
}

/** Cuts tokens at slashes: n slashes give n + 1 segments (possibly empty). */
export function splitSegments(tokens: readonly PatternToken[]): PatternSegment[] {
  const out: PatternSegment[] = [];
  let current: SegmentToken[] = [];
  let escapedBefore = false;
  const close = (nextEscaped: boolean) => {
    const onlyStars = current.every((t) => t.kind === 'star') ? current.length : 0;
    out.push({ tokens: current, onlyStars, escapedSlashBefore: escapedBefore });
    current = [];
    escapedBefore = nextEscaped;
  };
  for (const t of tokens) {
    if (t.kind === 'slash') close(t.escaped);
    else current.push(t);
  }
  close(false);
  return out;
}
