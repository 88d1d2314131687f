/**
 * The `claude-code` profile (`gatefs serve --profile claude-code`): the gate under Claude Code's
 * tool names and argument names, so a client can turn its own file tools off and a model trained
 * on them keeps its habits.
 *
 * | tool | gate tool | arguments |
 * |---|---|---|
 * | `Read` | `read` | `file_path`, `offset` (line, 1-based; 0 = 1), `limit` (lines) |
 * | `Write` | `write` | `file_path`, `content` |
 * | `Edit` | `edit` (`write`, create only, for an empty `old_string`) | `file_path`, `old_string`, `new_string`, `replace_all` |
 * | `MultiEdit` | `edit` with `edits` (one create-only `write` when the first `old_string` is empty) | `file_path`, `edits: [{old_string, new_string, replace_all}]` |
 * | `Glob` | `list` with `sort: mtime` (files only, newest first, at most 100) | `pattern`, `path` |
 * | `Grep` | `grep` (`claude-code-grep.ts`) | `pattern`, `path`, `glob`, `type`, `output_mode`, `-A`, `-B`, `-C`, `context`, `-n`, `-i`, `head_limit`, `offset`, `multiline` |
 * | `LS` | `list` with a recursive pattern (`ls-tree.ts`) | `path`, `ignore` |
 * | `Bash` | `exec` in the workspace root (`claude-code-bash.ts`) | `command`, `timeout` (ms), `description`, `run_in_background` |
 * | `BashOutput` | `exec_output` (`filter` applied here, in a worker) | `bash_id`, `filter` |
 * | `KillShell` | `exec_kill` | `shell_id` |
 *
 * The role's other tools (`request_files`, `delete`, `move`, `diff`, `commit`, `submit`, `messages`, `check`, `whereami`, `attach`, `detach`, `switch`, …) keep
 * their gatefs names, arguments and results. A profile tool is listed when the role declares its
 * gate tool. Paths: `file_path` and `path` are namespace paths, absolute (`/worktrees/<id>/…`, a
 * mount path) or relative to the workspace root; a path of the client's machine is refused by the
 * gate (`OUTSIDE_MOUNTS`, with a hint naming the workspace root). Results show absolute namespace
 * paths, as Claude Code's tools do (`profile-paths.ts`).
 *
 * Every argument is validated against this profile's TypeBox schema (compiled once) before any
 * gate call, answering `INVALID_INPUT` with this profile's field names; the mapped call is
 * validated again by the gate and runs through all of the gate's checks. A gate refusal keeps its
 * code; its message speaks this profile's field names. Refusals made by the profile itself
 * (its validation, a tool name it does not offer) are answered before the gate and so are not in
 * the run log.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { compileInput, plainJsonSchema, type InputCheck } from '../../../tools/index.js';
import { isCodedError } from '../../../vfs/index.js';
import { ToolFailure, type ToolDescriptor, type ToolError, type ToolResult } from '../../../tools/index.js';
import type { ReadImageValue, ReadValue } from '../../../tools/index.js';
import type { WriteValue } from '../../../tools/index.js';
import type { EditValue } from '../../../tools/index.js';
import type { ListValue } from '../../../tools/index.js';
import type { GrepValue } from '../../../tools/index.js';
import type { BackgroundValue, ExecValue, RunOutputValue } from '../../../tools/index.js';
import { UnmatchedEditStep, applyEditSteps, checkEditSteps, type EditStep } from '../../../tools/index.js';
import { GATEFS_PROFILE, type ProfileGate, type ToolProfile } from './tool-profile.js';
import { errorEnvelopeSchema } from './tool-result.js';
import { toolResultText } from '../text/index.js';

import { EditInput, GlobInput, GrepInput, LsInput, MultiEditInput, ReadInput, WriteInput } from './claude-code-schemas.js';
import { EditOutput, GlobOutput, GrepOutput, LsOutput, WriteOutput } from './claude-code-schemas.js';
import { BashInput, BashOutputInput, BashOutputValue, BashValue, KillShellInput, KillShellValue } from './claude-code-schemas.js';
import { bashAnswer, bashArgs, bashOutputAnswer, compileFilter, killShellAnswer } from './claude-code-bash.js';
import { createdAnswer, editAnswer, globAnswer, readAnswer, writeAnswer } from './claude-code-results.js';
import { grepAnswer, grepArgs } from './claude-code-grep.js';
import { LS_MAX_ENTRIES, lsAnswer, lsPattern } from './ls-tree.js';
import { pathView, type PathView } from './profile-paths.js';
import { CLAUDE_CODE_DESCRIPTIONS } from './claude-code-descriptions.js';

/** What a profile tool's `run` gets: the gate, how paths are shown, and how a gate refusal is answered. */
interface RunContext {
  gate: ProfileGate;
  view: PathView;
  /** The answer to a refusal, in this tool's field names. */
  refuse(error: ToolError): CallToolResult;
}

/** One tool of the profile. */
interface ProfileTool<S extends TObject = TObject> {
  name: string;
  /** The gate tool the role must declare for this tool to be listed. */
  needs: string;
  title: string;
  input: S;
  /** The value's schema; none for Read, whose image answer has no `structuredContent`. */
  output?: TSchema;
  /** Gate argument names → this tool's, for refusal messages. */
  fields: Readonly<Record<string, string>>;
  run(input: Static<S>, ctx: RunContext): Promise<CallToolResult>;
}

const FILE_FIELDS = { path: 'file_path' };
const EDIT_FIELDS = { path: 'file_path', oldString: 'old_string', newString: 'new_string', replaceAll: 'replace_all' };

/** Runs gate tool `tool` with `args`; `answer` shapes its value, `refuse` its refusal. */
async function gated<T>(ctx: RunContext, tool: string, args: unknown, shape: (value: T) => CallToolResult): Promise<CallToolResult> {
  const result: ToolResult = await ctx.gate.call(tool, args);
  return result.ok ? shape(result.value as T) : ctx.refuse(result.error);
}

const read: ProfileTool<typeof ReadInput> = {
  name: 'Read',
  needs: 'read',
  title: 'Read file',
  input: ReadInput,
  fields: FILE_FIELDS,
  run: (input, ctx) =>
    gated<ReadValue | ReadImageValue>(
      ctx,
      'read',
      { path: input.file_path, ...(input.offset ? { offset: input.offset } : {}), ...(input.limit ? { limit: input.limit } : {}) },
      (v) => readAnswer(v, ctx.view),
    ),
};

const write: ProfileTool<typeof WriteInput> = {
  name: 'Write',
  needs: 'write',
  title: 'Write file',
  input: WriteInput,
  output: WriteOutput,
  fields: FILE_FIELDS,
  run: (input, ctx) => gated<WriteValue>(ctx, 'write', { path: input.file_path, content: input.content }, (v) => writeAnswer(v, ctx.view)),
};

/** A create-only write of `text` (Edit or MultiEdit with an empty first old_string). */
function create(ctx: RunContext, path: string, text: string, replacements: number): Promise<CallToolResult> {
  return gated<WriteValue>(ctx, 'write', { path, content: text, expectedSha256: null }, (v) =>
    createdAnswer(v, text, replacements, ctx.view),
  );
}

const edit: ProfileTool<typeof EditInput> = {
  name: 'Edit',
  needs: 'edit',
  title: 'Edit file',
  input: EditInput,
  output: EditOutput,
  fields: EDIT_FIELDS,
  run(input, ctx) {
    if (input.old_string === '') return create(ctx, input.file_path, input.new_string, 0);
    const args = {
      path: input.file_path,
      oldString: input.old_string,
      newString: input.new_string,
      replaceAll: input.replace_all === true,
    };
    return gated<EditValue>(ctx, 'edit', args, (v) => editAnswer(v, ctx.view));
  },
};

const multiEdit: ProfileTool<typeof MultiEditInput> = {
  name: 'MultiEdit',
  needs: 'edit',
  title: 'Edit file in several places',
  input: MultiEditInput,
  output: EditOutput,
  fields: EDIT_FIELDS,
  async run(input, ctx) {
    const steps: EditStep[] = input.edits.map((e) => ({
      oldString: e.old_string,
      newString: e.new_string,
      replaceAll: e.replace_all === true,
    }));
    if (steps[0].oldString !== '')
      return gated<EditValue>(ctx, 'edit', { path: input.file_path, edits: steps }, (v) => editAnswer(v, ctx.view));
    // A new file: its text is the first new_string with the other edits applied (edit's own
    // rules, in memory), written once, create only: all or nothing, like the edit it replaces.
    const rest = steps.slice(1);
    try {
      checkEditSteps(rest, true, input.file_path);
      const { edited, replacements } = applyEditSteps(steps[0].newString, rest, input.file_path, true);
      return await create(ctx, input.file_path, edited.text, replacements);
    } catch (e) {
      if (!(e instanceof ToolFailure)) throw e;
      const failure = e instanceof UnmatchedEditStep ? await e.described() : e;
      return ctx.refuse(shiftEditIndex(failure.toToolError()));
    }
  },
};

/** A refusal of the edits after a creating first one, as the index in the whole `edits` list. */
function shiftEditIndex(error: ToolError): ToolError {
  const message = error.message.replace(/edits\[(\d+)\]/g, (_, i: string) => `edits[${Number(i) + 1}]`);
  const details = typeof error.details?.edit === 'number' ? { ...error.details, edit: error.details.edit + 1 } : error.details;
  return { ...error, message, ...(details ? { details } : {}) };
}

const glob: ProfileTool<typeof GlobInput> = {
  name: 'Glob',
  needs: 'list',
  title: 'Find files by name',
  input: GlobInput,
  output: GlobOutput,
  fields: {},
  run(input, ctx) {
    const { path, pattern } = globWhere(input);
    const args = { ...(path === undefined ? {} : { path }), pattern, sort: 'mtime', maxResults: 100_000 };
    return gated<ListValue>(ctx, 'list', args, (v) => globAnswer(v, ctx.view));
  },
};

/** An absolute Glob pattern split into the folder its literal segments name and the pattern below it. */
function globWhere(input: Static<typeof GlobInput>): { path?: string; pattern: string } {
  if (!input.pattern.startsWith('/')) return { path: input.path, pattern: input.pattern };
  if (input.path !== undefined) {
    throw new ToolFailure(
      'INVALID_INPUT',
      'pattern: an absolute pattern takes no path; pass a pattern relative to path, or the absolute pattern alone',
    );
  }
  const segments = input.pattern.split('/');
  let literal = 1;
  while (literal < segments.length - 1 && !/[*?[\]{}()!\\]/.test(segments[literal])) literal++;
  return { path: segments.slice(0, literal).join('/') || '/', pattern: segments.slice(literal).join('/') };
}

const grep: ProfileTool<typeof GrepInput> = {
  name: 'Grep',
  needs: 'grep',
  title: 'Search file contents',
  input: GrepInput,
  output: GrepOutput,
  fields: { ignoreCase: '-i', maxResults: 'head_limit' },
  run(input, ctx) {
    const { args, notes } = grepArgs(input);
    return gated<GrepValue>(ctx, 'grep', args, (v) => grepAnswer(v, input, notes, ctx.view));
  },
};

const ls: ProfileTool<typeof LsInput> = {
  name: 'LS',
  needs: 'list',
  title: 'List a folder',
  input: LsInput,
  output: LsOutput,
  fields: { pattern: 'ignore' },
  run(input, ctx) {
    const folder = input.path ?? '.';
    const args = { path: folder, pattern: lsPattern(input.ignore), maxResults: LS_MAX_ENTRIES };
    return gated<ListValue>(ctx, 'list', args, (v) => lsAnswer(v, folder, ctx.view));
  },
};

const bash: ProfileTool<typeof BashInput> = {
  name: 'Bash',
  needs: 'exec',
  title: 'Run a shell command',
  input: BashInput,
  output: BashValue,
  fields: { timeoutMs: 'timeout', background: 'run_in_background' },
  run: (input, ctx) => gated<ExecValue | BackgroundValue>(ctx, 'exec', bashArgs(input), (v) => bashAnswer(v, ctx.view)),
};

const bashOutput: ProfileTool<typeof BashOutputInput> = {
  name: 'BashOutput',
  needs: 'exec_output',
  title: 'Read a background shell',
  input: BashOutputInput,
  output: BashOutputValue,
  fields: { runId: 'bash_id' },
  async run(input, ctx) {
    // Checked before the output is taken: a filter that does not compile loses nothing.
    const filter = input.filter === undefined ? undefined : { ...compileFilter(input.filter), pattern: input.filter };
    const result: ToolResult = await ctx.gate.call('exec_output', { runId: input.bash_id });
    if (!result.ok) return ctx.refuse(result.error);
    return bashOutputAnswer(result.value as RunOutputValue, filter, ctx.gate.conversation, ctx.view);
  },
};

const killShell: ProfileTool<typeof KillShellInput> = {
  name: 'KillShell',
  needs: 'exec_kill',
  title: 'Kill a background shell',
  input: KillShellInput,
  output: KillShellValue,
  fields: { runId: 'shell_id' },
  run: (input, ctx) => gated<RunOutputValue>(ctx, 'exec_kill', { runId: input.shell_id }, killShellAnswer),
};

/** The gate tools this profile offers under their own names. */
const KEPT = new Set([
  'request_files',
  'delete',
  'move',
  'diff',
  'commit',
  'submit',
  'messages',
  'check',
  'checkpoint',
  'rollback',
  'handoff',
  'end',
  'whereami',
  'attach',
  'detach',
  'switch',
]);

/** A profile tool, compiled: its validator and its JSON Schemas (once, at load). */
interface Compiled {
  tool: ProfileTool;
  validate: (args: unknown) => InputCheck<unknown>;
  inputJson: string;
  outputJson?: string;
}

const TOOLS: readonly ProfileTool[] = [
  read,
  write,
  edit,
  multiEdit,
  glob,
  grep,
  ls,
  bash,
  bashOutput,
  killShell,
] as unknown as ProfileTool[];

const COMPILED = new Map<string, Compiled>(
  TOOLS.map((tool) => [
    tool.name,
    {
      tool,
      validate: compileInput(tool.input, tool.name),
      inputJson: JSON.stringify(plainJsonSchema(tool.input)),
      ...(tool.output
        ? { outputJson: JSON.stringify({ type: 'object', anyOf: [plainJsonSchema(tool.output), errorEnvelopeSchema] }) }
        : {}),
    },
  ]),
);

/** `/worktrees/<conversation>` in a description or schema, with the id once it is known. */
function withConversation(text: string, conversation: string | undefined): string {
  return conversation === undefined ? text : text.replaceAll('<conversation>', conversation);
}

/** The MCP `Tool` of a profile tool. */
function mcpTool(c: Compiled, declared: ToolDescriptor, conversation: string | undefined): Tool {
  return {
    name: c.tool.name,
    title: c.tool.title,
    description: withConversation(CLAUDE_CODE_DESCRIPTIONS[c.tool.name], conversation),
    inputSchema: JSON.parse(withConversation(c.inputJson, conversation)) as Tool['inputSchema'],
    ...(c.outputJson ? { outputSchema: JSON.parse(c.outputJson) as Tool['outputSchema'] } : {}),
    annotations: { ...declared.annotations, title: c.tool.title },
  };
}

/**
 * A gate refusal in a profile tool's words: its field names in the message, its path absolute,
 * and for a path outside the namespace where this workspace is.
 */
function refusal(name: string, error: ToolError, fields: Readonly<Record<string, string>>, view: PathView): CallToolResult {
  let message = error.message;
  for (const [from, to] of Object.entries(fields)) {
    // A camelCase name is never prose: every mention is the field. A plain word ('path') only where a message names its field, at the start.
    if (/[A-Z]/.test(from)) message = message.replace(new RegExp(`(?<![A-Za-z0-9_])${from}(?![A-Za-z0-9_])`, 'g'), to);
    else if (message.startsWith(`${from}:`)) message = `${to}${message.slice(from.length)}`;
  }
  message = message.replace('(to create a file use write)', '(to create a file, give the first edit an empty old_string, or use Write)');
  if (error.code === 'OUTSIDE_MOUNTS')
    message += `; this workspace is ${view.root}: pass a path relative to it, or an absolute path under it`;
  const shown: ToolError = { ...error, message, ...(error.path === undefined ? {} : { path: view.absolute(error.path) }) };
  return {
    content: [{ type: 'text', text: toolResultText(name, { ok: false, error: shown }) }],
    structuredContent: { error: { ...shown } },
    isError: true,
  };
}

/** The `claude-code` profile (see the file comment). */
export const CLAUDE_CODE_PROFILE: ToolProfile = {
  name: 'claude-code',
  tools(declared, conversation) {
    const byName = new Map(declared.map((d) => [d.name, d]));
    const offered: Tool[] = [];
    for (const c of COMPILED.values()) {
      const gateTool = byName.get(c.tool.needs);
      if (gateTool) offered.push(mcpTool(c, gateTool, conversation));
    }
    return [
      ...offered,
      ...GATEFS_PROFILE.tools(
        declared.filter((d) => KEPT.has(d.name)),
        conversation,
      ),
    ];
  },
  async call(name, args, gate) {
    if (KEPT.has(name)) return GATEFS_PROFILE.call(name, args, gate);
    const view = pathView(gate.conversation);
    const compiled = COMPILED.get(name);
    if (!compiled) {
      const offered = [...COMPILED.keys(), ...KEPT].join(', ');
      return refusal(
        name,
        {
          code: 'TOOL_NOT_ALLOWED',
          message: `there is no tool named ${JSON.stringify(String(name).slice(0, 64))} here; the tools are ${offered}`,
        },
        {},
        view,
      );
    }
    const { tool, validate } = compiled;
    // The profile's own refusals already speak its field names; the gate's are translated.
    const own = (error: ToolError) => refusal(name, error, {}, view);
    const valid = validate(args);
    if (!valid.ok) return own({ code: 'INVALID_INPUT', message: valid.message, details: { ...valid.details } });
    try {
      // The gate records the name the client called (`Glob`, `LS`, …) beside the gate tool's.
      const named = gate.as(name);
      return await tool.run(valid.value as never, { gate: named, view, refuse: (error) => refusal(name, error, tool.fields, view) });
    } catch (e) {
      // A refusal of the profile's own mapping (an unknown type, an unusable glob list); anything else is a bug.
      if (e instanceof ToolFailure) return own(e.toToolError());
      return own({ code: 'INTERNAL', message: `the ${name} tool failed unexpectedly${isCodedError(e) ? ` (${e.code})` : ''}` });
    }
  },
  refusal: (name, error) =>
    KEPT.has(name)
      ? GATEFS_PROFILE.refusal(name, error)
      : {
          content: [{ type: 'text', text: toolResultText(name, { ok: false, error }) }],
          structuredContent: { error: { ...error } },
          isError: true,
        },
};
