/**
 * The program a pool worker runs for BashOutput's `filter` (vfs/worker-program.ts, submitted by
 * `claude-code-bash.ts`): keeps the lines of each text that the regular expression matches. It
 * runs in a worker thread under a time budget, so a regex that backtracks without end holds a
 * worker until the pool terminates it, never the server's event loop.
 *
 * It imports nothing: a worker loads it as it is.
 */

/** One filter task: the regex (source and flags, already checked to compile) and the texts to filter. */
export interface FilterTask {
  readonly source: string;
  readonly flags: string;
  readonly texts: readonly string[];
}

/** The lines of each text the regex matches, each text's kept lines ending with a line feed (an empty text when none). */
export function run(task: FilterTask): string[] {
  const re = new RegExp(task.source, task.flags);
  return task.texts.map((text) => {
    const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
    const kept = text === '' ? [] : lines.filter((line) => re.test(line));
    return kept.length === 0 ? '' : `${kept.join('\n')}\n`;
  });
}
