/**
 * `branchNameProblem`: whether a name is one `git branch` would accept, checked without git
 * (the rules of git-check-ref-format(1) for `refs/heads/<name>`, plus git branch's own).
 */

/**
 * Says what is wrong with `name` as a branch name, or null when git would accept it. Refused:
 * empty; `HEAD` or `@`; a leading `-`; `..`; `@{`; control characters, space and
 * `~ ^ : ? * [ \`; an empty component (`a//b`, leading or trailing `/`); a component starting
 * with `.` or ending in `.lock`; a trailing `.`. Limit: checks the name only, not whether the
 * branch exists.
 */
export function branchNameProblem(name: string): string | null {
  if (name === '') return 'is empty';
  if (name === 'HEAD' || name === '@') return `cannot be '${name}'`;
  if (name.startsWith('-')) return "cannot start with '-'";
  if (name.includes('..')) return "cannot contain '..'";
  if (name.includes('@{')) return "cannot contain '@{'";
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return 'cannot contain control characters, spaces or any of ~ ^ : ? * [ \\';
  if (name.endsWith('.')) return "cannot end with '.'";
  for (const part of name.split('/')) {
    if (part === '') return "cannot start or end with '/' or contain '//'";
    if (part.startsWith('.')) return "cannot have a component starting with '.'";
    if (part.endsWith('.lock')) return "cannot have a component ending with '.lock'";
  }
  return null;
}
