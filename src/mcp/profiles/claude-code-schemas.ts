/**
 * The input and output schemas of the `claude-code` profile (`serve --profile claude-code`): the
 * argument names of Claude Code's built-in Read, Write, Edit, MultiEdit, Glob, Grep, LS, Bash,
 * BashOutput and KillShell (as its tool list defines them), with the bounds of the gate tools they map onto, so that a call the
 * profile accepts is never refused by the gate's own validation for its size. TypeBox is the one
 * source: the JSON Schemas clients see, the compiled validators, the message cap
 * (`message-limits/message-limit.ts`).
 *
 * Descriptions say `/worktrees/<conversation>`; `tools/list` puts the conversation's id there
 * once it is known.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { MAX_PATH_ARG_CHARS } from '../../../tools/index.js';
import { WRITE_MAX_CONTENT_CHARS } from '../../../tools/index.js';
import { EDIT_MAX_STEPS, EDIT_STEP_MAX_CHARS } from '../../../tools/index.js';
import { MAX_TEXT_FILE_BYTES } from '../../../tools/text/index.js';
import { SyntaxReportSchema } from '../../../tools/index.js';

/** How a path argument of this profile is written (in every path description). */
const PATHS =
  'an absolute path in this workspace (/worktrees/<conversation>/… or a mount path) or a path relative to the workspace root; ' +
  'paths of the machine the client runs on are refused';

const FilePath = (what: string) => Type.String({ minLength: 1, maxLength: MAX_PATH_ARG_CHARS, description: `${what}: ${PATHS}.` });

/** Read{file_path, offset, limit}. */
export const ReadInput = Type.Object(
  {
    file_path: FilePath('The file to read'),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'The line number to start reading from (1-based; 0 reads from the start). Only provide if the file is too large to read at once.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: 'The number of lines to read (default 2000). Only provide if the file is too large to read at once.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Write{file_path, content}. */
export const WriteInput = Type.Object(
  {
    file_path: FilePath('The file to write'),
    content: Type.String({ maxLength: WRITE_MAX_CONTENT_CHARS, description: 'The content to write to the file (the whole file, UTF-8).' }),
  },
  { additionalProperties: false },
);

/** Edit{file_path, old_string, new_string, replace_all}. */
export const EditInput = Type.Object(
  {
    file_path: FilePath('The file to modify'),
    old_string: Type.String({
      maxLength: MAX_TEXT_FILE_BYTES,
      description:
        'The text to replace (exactly as in the file, without the line-number prefix of Read). Empty: create a new file holding new_string.',
    }),
    new_string: Type.String({
      maxLength: MAX_TEXT_FILE_BYTES,
      description: 'The text to replace it with (must be different from old_string).',
    }),
    replace_all: Type.Optional(Type.Boolean({ description: 'Replace all occurrences of old_string (default false).' })),
  },
  { additionalProperties: false },
);

/** MultiEdit{file_path, edits: [{old_string, new_string, replace_all}]}. */
export const MultiEditInput = Type.Object(
  {
    file_path: FilePath('The file to modify'),
    edits: Type.Array(
      Type.Object(
        {
          old_string: Type.String({ maxLength: EDIT_STEP_MAX_CHARS, description: 'The text to replace.' }),
          new_string: Type.String({ maxLength: EDIT_STEP_MAX_CHARS, description: 'The text to replace it with.' }),
          replace_all: Type.Optional(Type.Boolean({ description: 'Replace all occurrences of old_string (default false).' })),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: EDIT_MAX_STEPS,
        description: `Edit operations applied in order, each to the result of the previous ones (at most ${EDIT_MAX_STEPS}, each string at most ${EDIT_STEP_MAX_CHARS} characters); all succeed or nothing is written.`,
      },
    ),
  },
  { additionalProperties: false },
);

/** Glob{pattern, path}. */
export const GlobInput = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      maxLength: MAX_PATH_ARG_CHARS + 1024,
      description:
        "The glob pattern to match files against (e.g. '**/*.ts', 'src/**/*.test.js'), relative to path, or absolute in this workspace.",
    }),
    path: Type.Optional(
      FilePath('The directory to search in (default: the workspace root). Omit it for the default; do not pass "undefined" or "null"'),
    ),
  },
  { additionalProperties: false },
);

/** Largest context the profile accepts; the gate shows at most 20 lines each side and the answer says when it cut. */
const CONTEXT_ACCEPTED = 10_000;

const Context = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: CONTEXT_ACCEPTED, description }));

/** Grep{pattern, path, glob, output_mode, -A, -B, -C, context, -n, -i, type, head_limit, offset, multiline}. */
export const GrepInput = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      // The gate's 4096 less the '(?s)' that multiline adds.
      maxLength: 4092,
      description: 'The regular expression to search for in file contents (ripgrep syntax; inline flags such as (?i) work).',
    }),
    path: Type.Optional(FilePath('File or directory to search in (default: the workspace root)')),
    glob: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          "Glob pattern to filter files (rg --glob): '*.js' or '*.{ts,tsx}' match file names at any depth, 'src/**/*.ts' matches paths below path; several separated by commas or spaces.",
      }),
    ),
    output_mode: Type.Optional(
      Type.Union([Type.Literal('content'), Type.Literal('files_with_matches'), Type.Literal('count')], {
        description:
          'content: matching lines (supports -A/-B/-C context, -n line numbers, head_limit); files_with_matches: file paths (default); count: matching lines per file.',
      }),
    ),
    '-B': Context('Number of lines to show before each match (rg -B; content mode only; at most 20 are shown).'),
    '-A': Context('Number of lines to show after each match (rg -A; content mode only; at most 20 are shown).'),
    '-C': Context('Number of lines to show before and after each match (rg -C; content mode only; at most 20 are shown).'),
    context: Context('Alias of -C.'),
    '-n': Type.Optional(Type.Boolean({ description: 'Show line numbers (rg -n; content mode only). Default true.' })),
    '-i': Type.Optional(Type.Boolean({ description: 'Case insensitive search (rg -i).' })),
    type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'File type to search (rg --type), e.g. js, ts, py, rust, go, java, md.' }),
    ),
    head_limit: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description:
          'Limit output to the first N entries: file paths, count lines, or matches (each with its context lines) in content mode. Default 250; 0 for as many as the server returns (10000).',
      }),
    ),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description: 'Skip the first N entries before applying head_limit (paging). Default 0.',
      }),
    ),
    multiline: Type.Optional(
      Type.Boolean({
        description: 'Multiline mode: . matches line breaks and a match may span lines (rg -U --multiline-dotall). Default false.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** LS{path, ignore}. */
export const LsInput = Type.Object(
  {
    path: Type.Optional(FilePath('The directory to list (default: the workspace root)')),
    ignore: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
        maxItems: 64,
        description:
          "Glob patterns to leave out: without '/' they match names at any depth (node_modules, *.log), with '/' paths below path.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The longest Bash command: the gate's `exec` bound (tools/exec.ts `EXEC_MAX_COMMAND_CHARS`; a test holds them equal). */
export const BASH_MAX_COMMAND_CHARS = 100_000;
/** The longest timeout a command may have, in milliseconds: Claude Code's and the gate's `exec` bound. */
const BASH_MAX_TIMEOUT_MS = 600_000;

/** The id of a background shell: a `runId` of the gate's `exec` (its pattern is the gate's to check). */
const ShellId = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

/** Bash{command, timeout, description, run_in_background}. */
export const BashInput = Type.Object(
  {
    command: Type.String({ minLength: 1, maxLength: BASH_MAX_COMMAND_CHARS, description: 'The command to execute (a /bin/sh line).' }),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: BASH_MAX_TIMEOUT_MS,
        description: `Optional timeout in milliseconds (max ${BASH_MAX_TIMEOUT_MS}, and at most your role's limit, which is also the default).`,
      }),
    ),
    description: Type.Optional(
      Type.String({
        maxLength: 1024,
        description: 'Clear, concise description of what this command does in 5-10 words (shown to the user; it changes nothing).',
      }),
    ),
    run_in_background: Type.Optional(
      Type.Boolean({ description: 'Set to true to run this command in the background. Use BashOutput to read the output later.' }),
    ),
  },
  { additionalProperties: false },
);

/** BashOutput{bash_id, filter}. */
export const BashOutputInput = Type.Object(
  {
    bash_id: ShellId('The ID of the background shell to retrieve output from (what Bash answered with run_in_background).'),
    filter: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          'Optional regular expression (JavaScript syntax) to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** KillShell{shell_id}. */
export const KillShellInput = Type.Object(
  { shell_id: ShellId('The ID of the background shell to kill.') },
  { additionalProperties: false },
);

/** A file a command changed, absolute (as every path of this profile). */
const ChangedFile = Type.Object({ path: Type.String(), status: Type.String() });

/** What Bash answers: Claude Code's Bash result fields (stdout, stderr, interrupted, backgroundTaskId) and the command's end. */
export const BashValue = Type.Object({
  stdout: Type.String(),
  stderr: Type.String(),
  interrupted: Type.Boolean(),
  backgroundTaskId: Type.Optional(Type.String()),
  exitCode: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  signal: Type.Optional(Type.String()),
  timedOut: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.String()),
  durationMs: Type.Optional(Type.Number()),
  truncated: Type.Optional(Type.Boolean()),
  changed: Type.Optional(Type.Array(ChangedFile)),
  changedCount: Type.Optional(Type.Integer()),
  /** With the role's `exec: { checkpoint: true }`: the snapshot taken before the command (the `rollback` tool returns to it). */
  checkpoint: Type.Optional(Type.String()),
});

/** What BashOutput answers: Claude Code's BashOutput result fields. */
export const BashOutputValue = Type.Object({
  shellId: Type.String(),
  status: Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed'), Type.Literal('killed')]),
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  stdout: Type.String(),
  stderr: Type.String(),
  stdoutLines: Type.Integer(),
  stderrLines: Type.Integer(),
  truncated: Type.Boolean(),
  filterPattern: Type.Optional(Type.String()),
  signal: Type.Optional(Type.String()),
  timedOut: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.String()),
  durationMs: Type.Optional(Type.Number()),
  changed: Type.Optional(Type.Array(ChangedFile)),
  changedCount: Type.Optional(Type.Integer()),
});

/** What KillShell answers: Claude Code's KillShell result fields, and how the shell ended. */
export const KillShellValue = Type.Object({
  message: Type.String(),
  shell_id: Type.String(),
  status: Type.Union([Type.Literal('killed'), Type.Literal('completed'), Type.Literal('failed')]),
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  stdout: Type.String(),
  stderr: Type.String(),
});

/** What Write answers. */
export const WriteOutput = Type.Object({
  type: Type.Union([Type.Literal('create'), Type.Literal('update')]),
  filePath: Type.String(),
  bytes: Type.Integer(),
  sha256: Type.String(),
  syntax: Type.Optional(SyntaxReportSchema),
});

/** What Edit and MultiEdit answer. */
export const EditOutput = Type.Object({
  filePath: Type.String(),
  replacements: Type.Integer(),
  sha256: Type.String(),
  snippet: Type.String(),
  diff: Type.String(),
  truncated: Type.Boolean(),
  created: Type.Optional(Type.Boolean()),
  syntax: Type.Optional(SyntaxReportSchema),
});

/** What Glob answers. */
export const GlobOutput = Type.Object({
  filenames: Type.Array(Type.String()),
  numFiles: Type.Integer(),
  truncated: Type.Boolean(),
  ignored: Type.Optional(Type.Integer()),
});

/** What Grep answers (Claude Code's own Grep result fields, and the search's facts). */
export const GrepOutput = Type.Object({
  mode: Type.Union([Type.Literal('content'), Type.Literal('files_with_matches'), Type.Literal('count')]),
  numFiles: Type.Integer(),
  filenames: Type.Array(Type.String()),
  content: Type.Optional(Type.String()),
  numLines: Type.Optional(Type.Integer()),
  numMatches: Type.Optional(Type.Integer()),
  appliedLimit: Type.Optional(Type.Integer()),
  appliedOffset: Type.Optional(Type.Integer()),
  truncated: Type.Boolean(),
  nextOffset: Type.Optional(Type.Integer()),
  filesSearched: Type.Integer(),
  skipped: Type.Optional(
    Type.Object({ ignored: Type.Optional(Type.Integer()), binary: Type.Optional(Type.Integer()), tooLarge: Type.Optional(Type.Integer()) }),
  ),
  notes: Type.Optional(Type.Array(Type.String())),
});

/** What LS answers: the tree as Claude Code's LS prints it. */
export const LsOutput = Type.Object({
  path: Type.String(),
  tree: Type.String(),
  numEntries: Type.Integer(),
  truncated: Type.Boolean(),
  ignored: Type.Optional(Type.Integer()),
});

/** Every input schema of the profile by tool name (for the message cap). */
export const CLAUDE_CODE_INPUTS: Readonly<Record<string, TSchema>> = {
  Read: ReadInput,
  Write: WriteInput,
  Edit: EditInput,
  MultiEdit: MultiEditInput,
  Glob: GlobInput,
  Grep: GrepInput,
  LS: LsInput,
  Bash: BashInput,
  BashOutput: BashOutputInput,
  KillShell: KillShellInput,
};
