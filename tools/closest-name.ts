/**
 * `closestName`: the field a mistyped argument name most likely meant, or undefined when none is
 * close enough, so a nonsense name gets no suggestion. Used by `INVALID_INPUT` answers
 * (`input-check.ts`) to say "did you mean path?".
 *
 * In order: the same name once case, `_` and `-` are ignored (`output_mode` → `outputMode`); a
 * name other clients use for the field (`ALIASES`: `file`, `file_path` → `path`, `-i` →
 * `ignoreCase`); one name a prefix or suffix of the other, four characters at least
 * (`outputMode` → `output`, `file` → `file_path`); an edit distance of at most 1 for names of up
 * to 4 characters, 2 up to 8, 3 beyond (`pattrn` → `pattern`). Ties go to the field listed first.
 */

/** Names other file-tool clients give a field (Claude Code, the reference filesystem server), lower-cased, `_`/`-` removed. */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  path: ['file', 'filepath', 'filename', 'dir', 'directory', 'folder'],
  ignoreCase: ['i', 'insensitive', 'caseinsensitive', 'nocase'],
  context: ['c'],
  before: ['b'],
  after: ['a'],
  maxResults: ['headlimit', 'max', 'maxcount'],
  glob: ['include', 'includes', 'filepattern'],
  content: ['text', 'data', 'contents', 'body'],
  message: ['msg', 'commitmessage'],
  command: ['cmd'],
  from: ['source', 'src', 'oldpath'],
  to: ['destination', 'dest', 'newpath'],
};

/**
 * The field of `fields` that `given` most likely meant (see the file comment), or undefined.
 * `values: true` matches an allowed value rather than a field name: no aliases, and an edit
 * distance of at most 1 (`Content` → `content`, never `lines` → `files`).
 */
export function closestName(given: string, fields: readonly string[], { values = false } = {}): string | undefined {
  const g = normal(given);
  if (g === '') return undefined;
  const same = fields.find((f) => normal(f) === g);
  if (same !== undefined) return same;
  const alias = values ? undefined : fields.find((f) => Object.hasOwn(ALIASES, f) && ALIASES[f].includes(g));
  if (alias !== undefined) return alias;
  const affix = fields.find((f) => {
    const n = normal(f);
    return Math.min(n.length, g.length) >= 4 && (n.startsWith(g) || g.startsWith(n) || n.endsWith(g) || g.endsWith(n));
  });
  if (affix !== undefined) return affix;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const f of fields) {
    const n = normal(f);
    const d = editDistance(g, n);
    if (d <= (values ? 1 : allowedDistance(Math.max(g.length, n.length))) && d < bestDistance) {
      best = f;
      bestDistance = d;
    }
  }
  return best;
}

/** The edit distance a name of `length` characters may be off by and still be suggested. */
function allowedDistance(length: number): number {
  if (length <= 4) return 1;
  return length <= 8 ? 2 : 3;
}

function normal(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/** Levenshtein distance (insert, delete, substitute one character), on names of at most 64 characters. */
function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j] + 1, row[j - 1] + 1, substitute));
    }
    previous = row;
  }
  return previous[b.length];
}
