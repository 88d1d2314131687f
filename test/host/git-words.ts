/**
 * The words of a git command line after its `-c key=value` options: `gitWords(['git', '-c',
 * 'core.hooksPath=/dev/null', 'worktree', 'add', …])` is `['worktree', 'add', …]`. Tests that
 * hold or fail one git command match on these, whatever options the neutral runner passes.
 */
export function gitWords(argv: readonly string[]): readonly string[] {
  let i = 1;
  while (argv[i] === '-c') i += 2;
  return argv.slice(i);
}

/** True when `argv` runs `git <first> <second>` (after its `-c` options). */
export function isGitCommand(argv: readonly string[], first: string, second: string): boolean {
  const words = gitWords(argv);
  return argv[0] === 'git' && words[0] === first && words[1] === second;
}
