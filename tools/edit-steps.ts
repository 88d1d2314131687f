/**
 * `applyEditSteps`: edit's replacements applied in order to a file's text, all or nothing — the
 * rules of one step, and the refusals that name the step that failed.
 *
 * A step's `oldString` must occur exactly once (or, with `replaceAll`, at least once) in the text
 * as the earlier steps left it. Matching is exact and case-sensitive; the replacement is literal
 * (no `$&`). Line endings: in a CRLF file a step whose `oldString` is not found as given is tried
 * with its bare '\n' as '\r\n', and bare '\n' in its `newString` become '\r\n'; in a file without
 * any '\r\n', an `oldString` holding '\r\n' that is not found is tried with '\n' (and its
 * `newString` likewise), so the file keeps one line-ending style. Nothing else is tolerated:
 * whitespace must match (the `NO_MATCH` refusal names the closest region and how its whitespace
 * differs, tools/near-miss.ts).
 *
 * Size: the text's size in UTF-8 bytes is carried from step to step (occurrences times the
 * growth of each), so a step whose result would pass `MAX_TEXT_FILE_BYTES` (what edit and write
 * accept) is refused with `TOO_LARGE` before that text is built: a `replaceAll` of a 2,000-character
 * newString over 100,000 occurrences would otherwise build 200 MB on the main thread.
 */
import { EditedText } from './text/index.js';
import { findNearMiss, nearMissSentence } from './near-miss.js';
import { ToolFailure } from './result.js';
import { MAX_TEXT_FILE_BYTES, usesCrlf } from './text/index.js';

/** One replacement, as in `edits[]`. */
export interface EditStep {
  oldString: string;
  newString: string;
  replaceAll?: boolean;
}

/** Occurrences of an ambiguous oldString whose line numbers the refusal lists. */
const MAX_LISTED_LINES = 10;

/**
 * Throws `INVALID_INPUT` for a step with an empty oldString or a newString equal to it (before
 * the file is read). `listed`: the steps came as `edits[]` (messages name `edits[i]`).
 */
export function checkEditSteps(steps: readonly EditStep[], listed: boolean, shown: string): void {
  steps.forEach((step, i) => {
    const prefix = listed ? `edits[${i}].` : '';
    if (step.oldString.length === 0) {
      throw new ToolFailure('INVALID_INPUT', `${prefix}oldString: must not be empty (to create a file use write)`, shown);
    }
    if (step.oldString === step.newString) {
      throw new ToolFailure('INVALID_INPUT', `${prefix}newString: is identical to oldString; nothing would change`, shown);
    }
  });
}

/**
 * Applies `steps` (checked by `checkEditSteps`) to `text` in order. `listed`: they came as
 * `edits[]`, so messages name `edits[i].oldString` and `details.edit` is the failing index.
 * Result: the edited text (with its change regions) and the number of replacements. Throws
 * `NO_MATCH` as an `UnmatchedEditStep` (the caller awaits its `described()` for the refusal
 * with `details.candidate`), `AMBIGUOUS_MATCH` (with `details.lines`) or
 * `TOO_LARGE` (the text after a step would pass `maxBytes`, default `MAX_TEXT_FILE_BYTES`;
 * `details.bytes` is that size).
 */
export function applyEditSteps(
  text: string,
  steps: readonly EditStep[],
  shown: string,
  listed: boolean,
  maxBytes: number = MAX_TEXT_FILE_BYTES,
): { edited: EditedText; replacements: number } {
  const edited = new EditedText(text);
  const crlf = usesCrlf(text);
  const lfOnly = !text.includes('\r\n');
  let replacements = 0;
  let bytes = Buffer.byteLength(text, 'utf8');
  steps.forEach((step, i) => {
    const name = listed ? `edits[${i}].oldString` : 'oldString';
    const current = edited.text;
    let needle = step.oldString;
    let replacement = crlf ? toCrlf(step.newString) : step.newString;
    let starts = occurrences(current, needle, step.replaceAll ? Infinity : 2);
    if (starts.length === 0 && crlf && /(?<!\r)\n/.test(needle)) {
      needle = toCrlf(needle);
      starts = occurrences(current, needle, step.replaceAll ? Infinity : 2);
    } else if (starts.length === 0 && lfOnly && needle.includes('\r\n')) {
      needle = needle.replace(/\r\n/g, '\n');
      replacement = replacement.replace(/\r\n/g, '\n');
      starts = occurrences(current, needle, step.replaceAll ? Infinity : 2);
    }
    if (starts.length === 0) throw new UnmatchedEditStep(current, step.oldString, shown, name, listed ? i : undefined);
    if (starts.length > 1 && !step.replaceAll) {
      const all = occurrences(current, needle, Infinity);
      const lines = lineNumbers(current, all.slice(0, MAX_LISTED_LINES));
      const more = all.length > MAX_LISTED_LINES ? ', …' : '';
      throw new ToolFailure(
        'AMBIGUOUS_MATCH',
        `${name} occurs ${all.length} times in '${shown}' (lines ${lines.join(', ')}${more}); add surrounding context or set replaceAll`,
        shown,
        { ...(listed ? { edit: i } : {}), occurrences: all.length, lines },
      );
    }
    const after = bytes + starts.length * (Buffer.byteLength(replacement, 'utf8') - Buffer.byteLength(needle, 'utf8'));
    if (after > maxBytes) throw tooLarge(shown, after, maxBytes, starts.length, listed ? i : undefined);
    edited.replace(starts, needle.length, replacement);
    bytes = after;
    replacements += starts.length;
  });
  return { edited, replacements };
}

function tooLarge(shown: string, bytes: number, maxBytes: number, count: number, index: number | undefined): ToolFailure {
  const step = index !== undefined ? `edits[${index}]` : 'the edit';
  const times = count === 1 ? 'its replacement' : `its ${count} replacements`;
  return new ToolFailure(
    'TOO_LARGE',
    `${step} would make '${shown}' ${bytes} bytes with ${times}, over the ${maxBytes} bytes a file may hold here; nothing was changed (replace fewer occurrences, or a shorter newString)`,
    shown,
    { ...(index !== undefined ? { edit: index } : {}), bytes },
  );
}

/**
 * `NO_MATCH` for a step whose oldString does not occur in `text` (the text as the earlier steps
 * left it), before the search for the closest region: `applyEditSteps` is synchronous (edit runs
 * it inside its compare-and-swap), while that search over a large file takes turns of the event
 * loop (tools/near-miss.ts). The caller throws `await described()` instead. Alone, it is still a
 * correct refusal, without the candidate.
 */
export class UnmatchedEditStep extends ToolFailure {
  /** `name`: the argument that failed (`oldString`, `edits[2].oldString`); `index`: the step, for `edits[]`. */
  constructor(
    readonly text: string,
    readonly oldString: string,
    readonly shown: string,
    readonly stepName: string,
    readonly index: number | undefined,
  ) {
    super(
      'NO_MATCH',
      `${stepName} does not occur in '${shown}'${afterSteps(index)}`,
      shown,
      index !== undefined ? { edit: index } : undefined,
    );
  }

  /** The refusal naming the closest region of the file and how it differs (`details.candidate`, null when none). */
  async described(): Promise<ToolFailure> {
    const { text, oldString, shown, stepName: name, index } = this;
    const miss = await findNearMiss(text, oldString);
    const edit = index !== undefined ? { edit: index } : {};
    if (!miss) {
      return new ToolFailure(
        'NO_MATCH',
        `${name} does not occur in '${shown}'${afterSteps(index)}, and no region resembles it (it must match exactly, whitespace included); read the file to see its text`,
        shown,
        { ...edit, candidate: null },
      );
    }
    return new ToolFailure('NO_MATCH', `${name} does not occur in '${shown}'${afterSteps(index)}; ${nearMissSentence(miss)}`, shown, {
      ...edit,
      candidate: miss,
    });
  }
}

/** Where a step of `edits[]` past the first was looked for. */
function afterSteps(index: number | undefined): string {
  return index !== undefined && index > 0 ? ` (after edits[0..${index - 1}] were applied)` : '';
}

/** Start offsets of the non-overlapping occurrences of `needle`, at most `cap`. */
function occurrences(text: string, needle: string, cap: number): number[] {
  const out: number[] = [];
  for (let at = text.indexOf(needle); at !== -1 && out.length < cap; at = text.indexOf(needle, at + needle.length)) out.push(at);
  return out;
}

/** 1-based line numbers of sorted offsets. */
function lineNumbers(text: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let at = 0;
  for (const offset of offsets) {
    for (let nl = text.indexOf('\n', at); nl !== -1 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
      line++;
      at = nl + 1;
    }
    out.push(line);
  }
  return out;
}

function toCrlf(s: string): string {
  return s.replace(/\r?\n/g, '\r\n');
}
