/**
 * The ripgrep flags that make `rg -l` search what gatefs's grep searches: hidden files, no ignore
 * files but the tree's own `.gitignore` (not parents', not global, not `.ignore`/`.rgignore`,
 * not `.git/info/exclude`), even outside a git repository, never `.git`. The suites add the
 * pattern flags (`--fixed-strings` or not) and the pattern.
 */
export const RG_LIKE_GATEFS = [
  '-l',
  '--hidden',
  '--no-ignore-dot',
  '--no-ignore-global',
  '--no-ignore-exclude',
  '--no-ignore-parent',
  '--no-require-git',
  '-g',
  '!.git',
];
