/**
 * What the `claude-code` profile's tools tell a model, in the words of Claude Code's own tool
 * descriptions where the behaviour is the same, and saying where gatefs differs (the workspace
 * paths, `.gitignore`, the caps). `<conversation>` becomes the conversation's id in `tools/list`.
 */

const WHERE =
  'Files are those of your gatefs workspace /worktrees/<conversation> (and its mounts), not of the machine the client runs on: ' +
  'pass paths absolute under /worktrees/<conversation>/ (as this server returns them) or relative to that root.';

/** The description of each profile tool, by name. */
export const CLAUDE_CODE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Read: [
    'Reads a file of your workspace.',
    WHERE,
    'By default it reads up to 2000 lines from the start; offset (line number, 1-based) and limit (lines) read a window of a long file, and the answer says where to continue.',
    'Results are returned in cat -n format, line numbers starting at 1; lines longer than 2000 characters are cut with a marker (read that line with limit 1 to see it whole).',
    'PNG, JPEG, GIF and WebP images are returned as images. Other binary files and folders are refused with an error code (list a folder with LS or Glob).',
  ].join(' '),
  Write: [
    'Writes a file of your workspace, replacing it if it exists (atomically: a reader sees the old or the new bytes).',
    WHERE,
    'Creates missing parent folders. Prefer Edit to change part of an existing file. Source files are checked for syntax errors the new content introduced (reported, never refused).',
  ].join(' '),
  Edit: [
    'Performs an exact string replacement in a file of your workspace.',
    WHERE,
    'old_string must match the file exactly, whitespace and indentation included (as shown after the line-number prefix of Read: never include the prefix), and occur once;',
    'add surrounding lines to make it unique, or set replace_all to change every occurrence. An empty old_string creates a new file holding new_string (refused if the file exists).',
    'A near miss fails with NO_MATCH naming the closest region and how its whitespace differs; nothing is changed. The answer shows the edited lines (cat -n) and, for source files, the syntax errors the edit introduced.',
  ].join(' '),
  MultiEdit: [
    'Makes several exact string replacements in one file of your workspace in one operation: the edits are applied in order, each to the result of the previous ones, and all succeed or nothing is written.',
    WHERE,
    'Each edit follows the rules of Edit. To create a file, give the first edit an empty old_string and the new content as new_string.',
  ].join(' '),
  Glob: [
    'Fast file pattern matching in your workspace: returns the files matching a glob ("**/*.js", "src/**/*.ts"), sorted by modification time, newest first, at most 100 (the answer says when there were more).',
    WHERE,
    'The pattern is matched against paths below path (default the workspace root); files ignored by .gitignore are left out. Folders are not returned: use LS to see them.',
  ].join(' '),
  Grep: [
    "A search tool for file contents, with ripgrep's regex syntax (inline flags such as (?i) work; literal braces need escaping: interface\\{\\}).",
    WHERE,
    'Filter files with glob ("*.js", "*.{ts,tsx}", "src/**/*.ts") or type ("js", "py", "rust").',
    'output_mode: "files_with_matches" (default) lists file paths, "content" matching lines (with -A/-B/-C context and -n line numbers), "count" matching lines per file.',
    'head_limit (default 250) caps the entries returned and offset pages on: in content mode an entry is a match with its context lines. multiline: true lets a match span lines (. matches line breaks).',
    'Skips .git, files ignored by .gitignore, binary files and symlinks; files come in path order.',
  ].join(' '),
  LS: [
    'Lists the files and folders below a folder of your workspace as a tree (recursively, at most 1000 entries; the answer says when there were more).',
    WHERE,
    'ignore leaves out glob patterns ("node_modules", "*.log", "src/generated") and everything below them; entries ignored by .gitignore are left out too. Prefer Glob and Grep when you know what to look for.',
  ].join(' '),
  Bash: [
    'Executes a shell command (/bin/sh -c) in your gatefs workspace, confined by the kernel: it sees the files of /worktrees/<conversation> and your mounts at those same paths,',
    'with the write flags your file tools have, and nothing else of the machine the client runs on; no network unless your role allows it; HOME and /tmp are private and start empty.',
    'Every command starts in the workspace root (a cd does not carry over to the next call); use absolute paths under /worktrees/<conversation>/ or paths relative to the root.',
    "timeout is in milliseconds (at most 600000, and at most your role's limit, which is also the default). Memory, processes and output have limits too: a command past one is ended with everything it started, and the answer says which.",
    'The answer holds stdout, then stderr (each cut to its last 30000 bytes), "Exit code N" when the command failed, and the files it changed.',
    'run_in_background: true starts it and answers its ID at once: read its output with BashOutput, end it with KillShell (at most 4 run at once; all end when the workspace is released).',
    'Prefer Read, Edit, Write, Glob and Grep for files: they are faster and their answers are built for you.',
  ].join(' '),
  BashOutput: [
    'Retrieves output from a running or completed background shell (a Bash call with run_in_background: true), by its bash_id.',
    'Always returns only new output since the last check, with the status (running, completed, failed, killed) and, once it ended, its exit code and the files it changed.',
    'filter: an optional regular expression (JavaScript syntax; a leading (?i) ignores case): only the output lines matching it are returned, and the others are no longer available to read.',
  ].join(' '),
  KillShell: [
    'Kills a running background shell (a Bash call with run_in_background: true) by its shell_id, with every process it started.',
    'Answers whether it was killed or had already ended, and the output that arrived since the last BashOutput.',
  ].join(' '),
};
