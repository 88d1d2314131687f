/**
 * `edit`: exact-string replacements in one text file, like Claude Code's Edit and MultiEdit.
 *
 * Input: `path`, then either `oldString` + `newString` (+ `replaceAll?`) or `edits` (1–50
 * steps `{oldString, newString, replaceAll?}`, strings up to 32 Ki characters, applied in order, each to the text the earlier ones
 * left; all or nothing, one write); `expectedSha256?`; `dryRun?` (compute everything, write
 * nothing). Value: `path`, `replacements`, `sha256` of the new bytes, `diff` (unified, like
 * `git diff` of the file), `snippet` (numbered lines of the new text around each change),
 * `truncated` (diff or snippet cut at 16 Ki characters), `dryRun` (only when true), and for a
 * source file `syntax` (tools/syntax-check.ts: the syntax errors the change introduced; the
 * edit is never refused for them).
 *
 * Matching and line endings: tools/edit-steps.ts. A missing final newline stays missing; a BOM
 * stays. On `NO_MATCH` the message and `details.candidate` name the closest region of the file
 * (its line, its exact text, how its whitespace differs); nothing is applied on a near miss.
 *
 * Concurrency: the edit is a compare-and-swap (tools/swap-file.ts) under the gate's per-file
 * locks, in-process and (on disk) across gatefs processes: an edit reported ok is in the file.
 * If another program changes the file between the read and the write, the edit is applied
 * again to the new bytes (or refused as below); `BUSY` when that keeps happening. A dry run
 * reads once and writes nothing; the gate's write checks still apply (it answers what the edit
 * would answer).
 *
 * Errors: `NO_MATCH`, `AMBIGUOUS_MATCH` (more than one occurrence without replaceAll; the lines
 * in `details.lines`), `STALE_CONTENT`, `BUSY`, `BINARY_FILE` (NUL in the first 8 KiB, or not valid
 * UTF-8: re-encoding would change bytes the edit did not touch), `TOO_LARGE` (the file, or the
 * text after any step, over 10 MiB: refused before that text is built),
 * `INVALID_INPUT` (empty oldString, newString equal to oldString, both or neither of
 * oldString/edits), the path codes and the gate's write checks. With `edits`, `details.edit` is
 * the index of the step that failed.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ToolFailure, ok } from './result.js';
import { MAX_TEXT_FILE_BYTES, decodeStrict, encodeText, looksBinary, sha256Hex } from './text/index.js';
import { Sha256Arg, checkExpectedSha } from './expected-sha.js';
import { defineTool } from './tool.js';
import { swapFile } from './swap-file.js';
import { PathArg } from './path-arg.js';
import { UnmatchedEditStep, applyEditSteps, checkEditSteps, type EditStep } from './edit-steps.js';
import { changeReport } from './change-report.js';
import { SyntaxReportSchema, introducedSyntaxErrors, type SyntaxReport } from './syntax-check.js';

const MAX_STRING_CHARS = MAX_TEXT_FILE_BYTES;
/** Most steps in one `edits` list. */
export const EDIT_MAX_STEPS = 50;
/**
 * Longest oldString/newString inside `edits`, in characters. The MCP message cap is derived
 * from the schemas (src/mcp/message-limits/message-limit.ts), so the list is bounded to about a third of the
 * single form's size; a bigger replacement goes through oldString/newString or write.
 */
export const EDIT_STEP_MAX_CHARS = 32 * 1024;

const OldString = Type.String({
  maxLength: MAX_STRING_CHARS,
  description: 'The exact text to replace (must occur exactly once unless replaceAll).',
});
const NewString = Type.String({ maxLength: MAX_STRING_CHARS, description: 'The replacement text.' });
const ReplaceAll = Type.Boolean({ description: 'Replace every occurrence (default false).' });

const Input = Type.Object(
  {
    path: PathArg('The file to edit: relative to the workspace root, or an absolute namespace path.'),
    oldString: Type.Optional(OldString),
    newString: Type.Optional(NewString),
    replaceAll: Type.Optional(ReplaceAll),
    edits: Type.Optional(
      Type.Array(
        Type.Object(
          {
            oldString: Type.String({ maxLength: EDIT_STEP_MAX_CHARS, description: OldString.description }),
            newString: Type.String({ maxLength: EDIT_STEP_MAX_CHARS, description: NewString.description }),
            replaceAll: Type.Optional(ReplaceAll),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: EDIT_MAX_STEPS,
          description:
            'Several replacements (up to 50, each string up to 32768 characters) applied in order, each to the result of the previous ones; all succeed or nothing is written.',
        },
      ),
    ),
    expectedSha256: Type.Optional(Sha256Arg),
    dryRun: Type.Optional(Type.Boolean({ description: 'Check the edit and return its diff without writing anything (default false).' })),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  replacements: Type.Integer(),
  sha256: Type.String(),
  diff: Type.String(),
  snippet: Type.String(),
  truncated: Type.Boolean(),
  dryRun: Type.Optional(Type.Boolean()),
  syntax: Type.Optional(SyntaxReportSchema),
});

/** The value of a successful edit. */
export interface EditValue {
  path: string;
  replacements: number;
  /** sha256 of the new bytes (for a dry run: the bytes the file would have). */
  sha256: string;
  diff: string;
  snippet: string;
  truncated: boolean;
  dryRun?: true;
  syntax?: SyntaxReport;
}

type EditInput = Static<typeof Input>;

/** The `edit` tool (see the module comment for inputs, value, errors and line-ending rules). */
export const editTool = defineTool({
  name: 'edit',
  description:
    'Replace exact strings in a text file. oldString must match the file exactly (whitespace and indentation included) ' +
    'and occur once; add surrounding lines to make it unique, or set replaceAll to change every occurrence. ' +
    'For several changes to one file pass edits: [{oldString, newString, replaceAll?}, …] instead (applied in order, all or nothing). ' +
    'Fails with NO_MATCH (naming the closest region and how its whitespace differs) or AMBIGUOUS_MATCH instead of guessing. ' +
    'The result has a unified diff, numbered lines around each change, and for source files the syntax errors the edit introduced. ' +
    'dryRun: true shows all that without writing. Line endings (CRLF/LF) and a missing final newline are preserved. ' +
    'Pass expectedSha256 (from read) to refuse the edit if the file changed since you read it.',
  input: Input,
  output: Output,
  annotations: { title: 'Edit file', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  writes: true,
  paths: (input) => [input.path],
  compareAndSwap: (input) => input.dryRun !== true,
  async handler(input, ctx) {
    const [target] = ctx.resolved;
    const ns = ctx.namespace;
    const shown = ns.display(target.path);
    const steps = stepsOf(input, shown);
    checkEditSteps(steps, input.edits !== undefined, shown);
    const read = () => ns.readFile(target, { maxBytes: MAX_TEXT_FILE_BYTES });
    let outcome: EditOutcome | undefined;
    const change = (bytes: Uint8Array) => {
      outcome = decide(input, steps, bytes, shown);
      return { data: outcome.data, value: outcome.value };
    };
    let value: EditValue;
    try {
      value = input.dryRun === true ? { ...change(await read()).value, dryRun: true } : await swapFile(ns, target, shown, read, change);
    } catch (e) {
      // The closest region is looked for here, outside the compare-and-swap, in slices.
      throw e instanceof UnmatchedEditStep ? await e.described() : e;
    }
    const syntax = await introducedSyntaxErrors(shown, outcome!.before, outcome!.after);
    return ok<EditValue>(syntax ? { ...value, syntax } : value);
  },
});

/** The steps of either input form; `INVALID_INPUT` for both forms or neither. */
function stepsOf(input: EditInput, shown: string): EditStep[] {
  const single = input.oldString !== undefined || input.newString !== undefined || input.replaceAll !== undefined;
  if (input.edits !== undefined) {
    if (single) throw new ToolFailure('INVALID_INPUT', 'edits: give either oldString/newString or edits, not both', shown);
    return input.edits;
  }
  if (input.oldString === undefined) throw new ToolFailure('INVALID_INPUT', 'oldString: required (or pass edits)', shown);
  if (input.newString === undefined) throw new ToolFailure('INVALID_INPUT', 'newString: required', shown);
  return [{ oldString: input.oldString, newString: input.newString, replaceAll: input.replaceAll }];
}

interface EditOutcome {
  data: Uint8Array;
  value: EditValue;
  before: string;
  after: string;
}

/** The edited bytes of `bytes` and the value to report (see the module comment for the codes). */
function decide(input: EditInput, steps: readonly EditStep[], bytes: Uint8Array, shown: string): EditOutcome {
  if (input.expectedSha256 !== undefined) checkExpectedSha(bytes, input.expectedSha256, shown);
  if (looksBinary(bytes)) throw new ToolFailure('BINARY_FILE', `'${shown}' looks binary (a NUL byte in its first 8 KiB)`, shown);
  const text = decodeStrict(bytes);
  if (text === undefined)
    throw new ToolFailure('BINARY_FILE', `'${shown}' is not valid UTF-8; editing it would change bytes outside the edit`, shown);
  const { edited, replacements } = applyEditSteps(text, steps, shown, input.edits !== undefined);
  const after = edited.text;
  const data = encodeText(after);
  const report = changeReport(shown, text, after, edited.lineChanges());
  return {
    data,
    value: { path: shown, replacements, sha256: sha256Hex(data), diff: report.diff, snippet: report.snippet, truncated: report.truncated },
    before: text,
    after,
  };
}
