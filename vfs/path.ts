/**
 * The path grammar: how any string an agent passes becomes a namespace path, or a typed refusal.
 *
 * Rules (SECURITY.md §3, step 1): NUL, backslash and lone surrogates are `BAD_NAME`; a name over
 * 255 UTF-8 bytes or a path over 4096 is `NAME_TOO_LONG`; '.' and empty segments vanish; '..'
 * pops one segment, and a '..' that leaves the namespace, even for a moment, is `PATH_ESCAPE`
 * (so `../<root>/f` is refused although it would land inside again). Nothing is decoded,
 * expanded or folded: `%2e%2e`, `~`, `$HOME` and decomposed Unicode are literal names.
 */
import { VfsError } from './errors.js';

export const MAX_NAME_BYTES = 255;
export const MAX_PATH_BYTES = 4096;
/**
 * The most segments a path within `MAX_PATH_BYTES` can have ('a/b/…': two bytes a level). A
 * recursive walk never lists a folder whose entries would lie deeper (`TOO_DEEP`): no agent
 * could name them.
 */
export const MAX_PATH_SEGMENTS = MAX_PATH_BYTES / 2;

const FORBIDDEN = /[\u0000\\]/;

/** UTF-8 length of a string without allocating (lone surrogates are rejected before this). */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // 2 bytes for U+0080–U+07FF; 3 for the rest of the BMP; 4 for a surrogate pair (2 units).
    if (c >= 0x80) n += c >= 0x800 ? 2 : 1;
    if (c >= 0xd800 && c <= 0xdbff) i++;
  }
  return n;
}

/**
 * Checks one name (a path segment) for the grammar's character and length rules.
 * Throws `BAD_NAME` or `NAME_TOO_LONG` naming `displayPath`.
 */
export function checkName(name: string, op: string, displayPath: string): void {
  if (name.length === 0 || name === '.' || name === '..') {
    throw new VfsError('BAD_NAME', op, displayPath, `'${name}' is not a file name`);
  }
  checkText(name, op, displayPath);
  if (utf8Length(name) > MAX_NAME_BYTES) throw new VfsError('NAME_TOO_LONG', op, displayPath);
}

function checkText(text: string, op: string, displayPath: string): void {
  if (FORBIDDEN.test(text)) {
    throw new VfsError('BAD_NAME', op, displayPath, 'paths may not contain NUL or backslash');
  }
  if (!text.isWellFormed()) {
    throw new VfsError('BAD_NAME', op, displayPath, 'the path is not well-formed Unicode (lone surrogate)');
  }
}

/**
 * Resolves `input` against `base` (an absolute namespace path, the workspace root) into a
 * normalized absolute namespace path ('/a/b'), segment by segment.
 *
 * `isInside(path)` answers whether an absolute normalized path lies in the namespace; it is
 * asked after every '..' so that no step ever leaves the namespace. The error paths name the
 * input as the caller wrote it (no host path exists at this level).
 */
export function resolveNamespacePath(input: string, base: string, isInside: (path: string) => boolean, op = 'resolve'): string {
  const shown = checkPathText(input, op);
  const stack: string[] = input.startsWith('/') ? [] : base.split('/').filter(Boolean);
  for (const seg of input.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      stack.pop();
      if (!isInside(`/${stack.join('/')}`)) {
        throw new VfsError('PATH_ESCAPE', op, shown, "'..' climbs out of the namespace");
      }
      continue;
    }
    if (utf8Length(seg) > MAX_NAME_BYTES) throw new VfsError('NAME_TOO_LONG', op, shown);
    stack.push(seg);
  }
  const out = `/${stack.join('/')}`;
  if (utf8Length(out) > MAX_PATH_BYTES) throw new VfsError('NAME_TOO_LONG', op, shown);
  return out;
}

/**
 * The grammar without the lexical '..' step: `input` checked as `resolveNamespacePath` checks
 * it (`BAD_NAME`, `NAME_TOO_LONG`), then its segments after `base`'s (for a relative input),
 * with '.' and empty segments dropped and every '..' kept, for a resolution that takes '..'
 * physically (vfs/link-resolution.ts).
 */
export function namespaceSegments(input: string, base: string, op = 'resolve'): string[] {
  const shown = checkPathText(input, op);
  const out: string[] = input.startsWith('/') ? [] : base.split('/').filter(Boolean);
  for (const seg of input.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg !== '..' && utf8Length(seg) > MAX_NAME_BYTES) throw new VfsError('NAME_TOO_LONG', op, shown);
    out.push(seg);
  }
  return out;
}

/** True when a segment of `input` is '..' (a resolution that takes it physically must see it). */
export function hasDotDotSegment(input: string): boolean {
  for (let at = input.indexOf('..'); at !== -1; at = input.indexOf('..', at + 1)) {
    if ((at === 0 || input.charCodeAt(at - 1) === 47) && (at + 2 === input.length || input.charCodeAt(at + 2) === 47)) return true;
  }
  return false;
}

/** The character and length rules on a whole input; returns it as errors show it (cut at 300). */
function checkPathText(input: string, op: string): string {
  if (typeof input !== 'string') throw new VfsError('BAD_NAME', op, '', `the path is a ${typeof input}, not a string`);
  if (input.length === 0) throw new VfsError('BAD_NAME', op, input, 'the path is empty');
  const shown = input.length > 300 ? `${input.slice(0, 300)}…` : input;
  checkText(input, op, shown);
  if (utf8Length(input) > MAX_PATH_BYTES) throw new VfsError('NAME_TOO_LONG', op, shown);
  return shown;
}

/** Splits a normalized absolute path into its segments ('/' → []). */
export function segmentsOf(path: string): string[] {
  return path === '/' ? [] : path.slice(1).split('/');
}
