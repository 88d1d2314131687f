/**
 * Test support: the subcommand words of a git argv as gatefs runs it (`git -c k=v … worktree
 * add …`): the neutral runner puts its `-c` flags first, so a test that waits for or fails a
 * given command matches the words after them.
 */

/** The words of `argv` after `git` and its leading `-c key=value` pairs (`['worktree', 'add', …]`); empty for another program. */
export function gitWords(argv: readonly string[]): readonly string[] {
  if (argv[0] !== 'git') return [];
  let i = 1;
  while (argv[i] === '-c') i += 2;
  return argv.slice(i);
}

/** True when `argv` runs `git <words…>` (the runner's flags skipped). */
export function isGitCommand(argv: readonly string[], ...words: string[]): boolean {
  const rest = gitWords(argv);
  return words.every((w, k) => rest[k] === w);
}
