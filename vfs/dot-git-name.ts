/**
 * `isDotGitName`: true for every name git itself treats as `.git` when `core.protectNTFS` or
 * `core.protectHFS` is on, on any OS. gatefs hides such names from agents and refuses to
 * create them, so a checkout copied to Windows or macOS (or a case-insensitive volume on Linux)
 * can never gain a `.git` an agent wrote.
 *
 * The rules are git's own (git/git `path.c` `is_ntfs_dotgit`, `utf8.c` `is_hfs_dotgit`):
 * - NTFS: `.git` or its 8.3 short name `git~1`, in any case, followed only by spaces and
 *   periods (Windows drops them) up to the end or a `:` (an alternate data stream such as
 *   `.git::$INDEX_ALLOCATION`, which names the folder itself).
 * - HFS+: `.git` in any ASCII case once the code points HFS+ ignores are removed (zero-width
 *   joiners, direction marks, U+FEFF: `.g\u200cit`).
 * Backslash, the other separator git checks for, never reaches here (the grammar refuses it).
 * Limit: only `.git` itself, not `.gitmodules` and the other dotfiles git also guards.
 */

/** The code points HFS+ ignores in names (git's `next_hfs_char`). */
const HFS_IGNORED: ReadonlySet<number> = new Set([
  0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff,
]);

/** True when `name` (one path segment) is `.git` to git on NTFS or HFS+ (see the file comment). */
export function isDotGitName(name: string): boolean {
  // Quick exit for the names nearly every walk meets: neither form can start otherwise.
  const first = name.charCodeAt(0);
  if (first !== 0x2e && first !== 0x67 && first !== 0x47 && !HFS_IGNORED.has(first)) return false;
  return isNtfsDotGit(name) || isHfsDotGit(name);
}

/** git's `is_ntfs_dotgit` for one segment. */
function isNtfsDotGit(name: string): boolean {
  let i: number;
  if (asciiLowerAt(name, 0) === '.' && asciiLowerAt(name, 1) === 'g' && asciiLowerAt(name, 2) === 'i' && asciiLowerAt(name, 3) === 't')
    i = 4;
  else if (
    asciiLowerAt(name, 0) === 'g' &&
    asciiLowerAt(name, 1) === 'i' &&
    asciiLowerAt(name, 2) === 't' &&
    name[3] === '~' &&
    name[4] === '1'
  )
    i = 5;
  else return false;
  for (; i < name.length; i++) {
    const c = name[i];
    if (c === ':') return true;
    if (c !== '.' && c !== ' ') return false;
  }
  return true;
}

/** The character at `i`, lower-cased only when it is ASCII (as git's `tolower` on clamped bytes). */
function asciiLowerAt(name: string, i: number): string {
  const c = name.charCodeAt(i);
  return c >= 0x41 && c <= 0x5a ? String.fromCharCode(c + 32) : name.charAt(i);
}

/** git's `is_hfs_dotgit` for one segment. */
function isHfsDotGit(name: string): boolean {
  const want = '.git';
  let matched = 0;
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (HFS_IGNORED.has(cp)) continue;
    if (matched === want.length || cp > 127 || asciiLowerAt(ch, 0) !== want[matched]) return false;
    matched++;
  }
  return matched === want.length;
}
