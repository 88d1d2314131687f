/**
 * Parsers for the git outputs `CliLandingGit` reads: `--name-status -z` lists, raw `diff-tree`
 * entries, a patch cut at a byte cap, and `read-tree -m -u` refusals.
 */
import type { TreeChange } from './checkout-safety.js';
import type { ChangedFile, ChangeStatus } from './landing-git.js';

const STATUS: Readonly<Record<string, ChangeStatus>> = { A: 'added', M: 'modified', D: 'deleted', T: 'typechange' };

/**
 * Parses `--name-status -z --no-renames` output (`X\0path\0` pairs) into changed files in git's
 * order (sorted by path bytes). Letters other than A/M/D/T (unmerged `U`, unknown `X`) count as
 * `modified`: the file changed, in a way the port's vocabulary does not name.
 */
export function parseNameStatusZ(out: string): ChangedFile[] {
  const parts = out.split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const letter = parts[i];
    if (letter === '') break;
    files.push({ path: parts[i + 1], status: STATUS[letter[0]] ?? 'modified' });
  }
  return files;
}

/**
 * Parses `git diff-tree -r -z --name-status --root <commit>` (without `--no-commit-id`): the
 * commit's SHA first, then its files. Result: the SHA and the files.
 */
export function parseDiffTreeZ(out: string): { sha: string; files: ChangedFile[] } {
  const first = out.indexOf('\0');
  const sha = (first < 0 ? out : out.slice(0, first)).trim();
  return { sha, files: first < 0 ? [] : parseNameStatusZ(out.slice(first + 1)) };
}

/**
 * Parses `git diff-tree -z --raw --no-renames` output (`:<old mode> <new mode> <old sha> <new
 * sha> <letter>\0<path>\0` records) into the modes of each path before and after (`000000`,
 * absent, is null), in git's order.
 */
export function parseDiffTreeRawZ(out: string): TreeChange[] {
  const parts = out.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const head = parts[i]!;
    if (!head.startsWith(':')) break;
    const [before, after] = head.slice(1).split(' ');
    changes.push({ path: parts[i + 1]!, before: modeOrNull(before), after: modeOrNull(after) });
  }
  return changes;
}

function modeOrNull(mode: string | undefined): string | null {
  return mode === undefined || /^0+$/.test(mode) ? null : mode;
}

/**
 * Cuts `patch` to at most `maxBytes` UTF-8 bytes, at the end of the last whole line that fits
 * (a single line longer than the cap gives an empty patch). Result: the text and whether it
 * was cut.
 */
export function capPatch(patch: string, maxBytes: number): { patch: string; truncated: boolean } {
  const bytes = Buffer.from(patch, 'utf8');
  if (bytes.length <= maxBytes) return { patch, truncated: false };
  const end = bytes.lastIndexOf(0x0a, Math.max(0, maxBytes - 1));
  return { patch: end < 0 ? '' : bytes.subarray(0, end + 1).toString('utf8'), truncated: true };
}

// git 2.39 unpack-trees.c, plain (non-porcelain) messages, as read-tree prints them.
const REFUSALS = [
  /^error: Entry '(.*)' not uptodate\. Cannot merge\.$/,
  /^error: Entry '(.*)' would be overwritten by merge\. Cannot merge\.$/,
  /^error: Untracked working tree file '(.*)' would be (?:overwritten|removed) by merge\.$/,
  /^error: Updating '(.*)' would lose untracked files in it$/,
];

/**
 * The files `git read-tree -m -u` refused to overwrite, from its stderr (C locale), sorted; an
 * empty list when the failure was something else.
 */
export function parseReadTreeRefusal(stderr: string): string[] {
  const files = new Set<string>();
  for (const line of stderr.split('\n')) {
    for (const pattern of REFUSALS) {
      const m = pattern.exec(line.trimEnd());
      if (m) files.add(m[1]);
    }
  }
  return [...files].sort();
}
