/**
 * Claude Code's Bash, BashOutput and KillShell over the gate's `exec`, `exec_output` and
 * `exec_kill`: their arguments as the gate's, and the gate's values as Claude Code's tools answer
 * (stdout, then stderr, `Exit code N` when it failed; "Command running in background with ID: …";
 * BashOutput's `<status>`, `<stdout>` and `<stderr>` blocks; "Successfully killed shell: …").
 *
 * Where it differs from Claude Code, and says so in its description: every command starts in the
 * workspace root (a `cd` does not carry over, as in Claude Code's default for a project folder),
 * in the kernel sandbox of the conversation; the files a command changed come back (`changed`,
 * absolute paths); BashOutput's `filter` is a JavaScript regular expression (a leading `(?i)`,
 * `(?s)` or `(?m)` is taken as its flag) run in a worker thread under `FILTER_BUDGET_MS`, and
 * past that budget the output comes back unfiltered with a note, never lost.
 */
import type { Static } from '@sinclair/typebox';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BackgroundValue, ExecValue, RunOutputValue } from '../../../tools/index.js';
import { ToolFailure } from '../../../tools/index.js';
import { BatchTimeout, TaskFailure, workerPool } from '../../../vfs/index.js';
import type { BashInput } from './claude-code-schemas.js';
import { answer } from './claude-code-results.js';
import type { FilterTask } from './claude-code-filter-program.js';
import type { PathView } from './profile-paths.js';

/** The worker program that filters output lines. */
const FILTER_PROGRAM = new URL('./claude-code-filter-program.js', import.meta.url);
/** Milliseconds a filter may run over one answer's output (grep's per-batch budget). */
const FILTER_BUDGET_MS = 1500;
/** Changed files a text answer names (the structure holds every one the gate returned). */
const CHANGED_IN_TEXT = 20;

/** The gate's `exec` arguments for a Bash call (`description` only tells the user what runs). */
export function bashArgs(input: Static<typeof BashInput>): Record<string, unknown> {
  return {
    command: input.command,
    ...(input.timeout === undefined ? {} : { timeoutMs: input.timeout }),
    ...(input.run_in_background ? { background: true } : {}),
  };
}

/** Bash: a started background shell's id, or the ended command's output and end. */
export function bashAnswer(value: ExecValue | BackgroundValue, view: PathView): CallToolResult {
  const checkpoint = value.checkpoint === undefined ? {} : { checkpoint: value.checkpoint };
  if ('runId' in value) {
    return answer([`Command running in background with ID: ${value.runId}`, ...checkpointLine(value.checkpoint)].join('\n'), {
      stdout: '',
      stderr: '',
      interrupted: false,
      backgroundTaskId: value.runId,
      ...checkpoint,
    });
  }
  const changed = value.changed.map((c) => ({ path: view.absolute(c.path), status: c.status }));
  const lines = [chomp(value.stdout), chomp(value.stderr)].filter((s) => s !== '');
  const end = endingLine(value);
  if (end) lines.push(end);
  if (value.truncated) lines.push('(output cut: only the end of each stream is kept)');
  lines.push(...changedText(changed, value.changedCount));
  lines.push(...checkpointLine(value.checkpoint));
  return answer(lines.length > 0 ? lines.join('\n') : '(no output)', {
    stdout: value.stdout,
    stderr: value.stderr,
    interrupted: isInterrupted(value),
    exitCode: value.exitCode,
    ...(value.signal ? { signal: value.signal } : {}),
    timedOut: value.timedOut,
    ...(value.limit ? { limit: value.limit } : {}),
    durationMs: value.durationMs,
    truncated: value.truncated,
    changed,
    changedCount: value.changedCount,
    ...checkpoint,
  });
}

/** The line naming the snapshot taken before the command (`exec: { checkpoint: true }`), when one was. */
function checkpointLine(checkpoint: string | undefined): string[] {
  return checkpoint === undefined
    ? []
    : [`checkpoint ${checkpoint} was taken before the command: rollback {"snapshotId": "${checkpoint}"} undoes it`];
}

/** A regex as `filter` gives it: its source and flags, a leading `(?i)`/`(?s)`/`(?m)` taken as flags. `INVALID_INPUT` when it does not compile. */
export function compileFilter(filter: string): { source: string; flags: string } {
  const inline = /^\(\?([ims]+)\)/.exec(filter);
  const source = inline ? filter.slice(inline[0].length) : filter;
  const flags = inline ? [...new Set(inline[1])].join('') : '';
  try {
    new RegExp(source, flags);
  } catch (e) {
    throw new ToolFailure(
      'INVALID_INPUT',
      `filter: not a valid JavaScript regular expression (${(e as Error).message.replace(/^Invalid regular expression: /, '')})`,
    );
  }
  return { source, flags };
}

/** BashOutput: the output since the last call (filtered when asked), the shell's status, and its end once it ended. */
export async function bashOutputAnswer(
  value: RunOutputValue,
  filter: { source: string; flags: string; pattern: string } | undefined,
  owner: string,
  view: PathView,
): Promise<CallToolResult> {
  let stdout = value.stdout;
  let stderr = value.stderr;
  let note: string | undefined;
  if (filter) {
    const kept = await filtered(filter, [stdout, stderr], owner);
    if (kept) [stdout = '', stderr = ''] = kept;
    else note = `the filter ran past its ${FILTER_BUDGET_MS} ms budget, or the regex engine gave up: the output is shown unfiltered`;
  }
  const result = value.result;
  const status = result ? statusOf(result) : 'running';
  const parts = [`<status>${status}</status>`];
  if (result && result.exitCode !== null) parts.push(`<exit_code>${result.exitCode}</exit_code>`);
  if (stdout !== '') parts.push(`<stdout>\n${chomp(stdout)}\n</stdout>`);
  if (stderr !== '') parts.push(`<stderr>\n${chomp(stderr)}\n</stderr>`);
  const notes: string[] = [];
  if (note) notes.push(`(${note})`);
  if (value.truncated) notes.push('(output cut: more arrived since the last call than is kept; only its end is shown)');
  const changed = result ? result.changed.map((c) => ({ path: view.absolute(c.path), status: c.status })) : undefined;
  if (result) {
    const end = endingLine(result);
    if (end && result.exitCode === null) notes.push(end);
    notes.push(...changedText(changed ?? [], result.changedCount));
  }
  if (notes.length > 0) parts.push(notes.join('\n'));
  return answer(parts.join('\n\n'), {
    shellId: value.runId,
    status,
    exitCode: result ? result.exitCode : null,
    stdout,
    stderr,
    stdoutLines: lineCount(stdout),
    stderrLines: lineCount(stderr),
    truncated: value.truncated,
    ...(filter ? { filterPattern: filter.pattern } : {}),
    ...(result?.signal ? { signal: result.signal } : {}),
    ...(result ? { timedOut: result.timedOut } : {}),
    ...(result?.limit ? { limit: result.limit } : {}),
    ...(result ? { durationMs: result.durationMs, changed, changedCount: result.changedCount } : {}),
  });
}

/** KillShell: that the shell was killed, or that it had ended by itself first; the output since the last BashOutput. */
export function killShellAnswer(value: RunOutputValue): CallToolResult {
  const result = value.result;
  const status = result ? statusOf(result) : 'killed';
  const message =
    status === 'killed'
      ? `Successfully killed shell: ${value.runId}`
      : `Shell ${value.runId} had already ended (${status}${result?.exitCode === null || !result ? '' : `, exit code ${result.exitCode}`})`;
  const lines = [message, chomp(value.stdout), chomp(value.stderr)].filter((s) => s !== '');
  return answer(lines.join('\n'), {
    message,
    shell_id: value.runId,
    status,
    exitCode: result ? result.exitCode : null,
    stdout: value.stdout,
    stderr: value.stderr,
  });
}

/** How an ended command is listed: completed (exit 0), killed (by KillShell or a release), failed (anything else). */
function statusOf(result: ExecValue): 'completed' | 'failed' | 'killed' {
  if (result.exitCode === 0) return 'completed';
  if (result.signal === 'SIGKILL' && !result.timedOut && !result.limit) return 'killed';
  return 'failed';
}

/** True when the command did not end by itself: a timeout, a limit, a signal. */
function isInterrupted(value: ExecValue): boolean {
  return value.timedOut || value.limit !== undefined || (value.exitCode === null && value.signal !== undefined);
}

/** The line saying how a command ended, unless it exited 0. */
function endingLine(value: ExecValue): string | undefined {
  const all = 'it was ended with every process it started';
  if (value.timedOut) return `Command timed out after ${value.durationMs} ms: ${all}`;
  if (value.limit) return `Command passed its ${value.limit} limit (exec.${value.limit} of your role): ${all}`;
  if (value.exitCode === null) return value.signal ? `Command was ended by ${value.signal}` : 'Command ended without an exit code';
  if (value.exitCode !== 0) return `Exit code ${value.exitCode}${value.signal ? ` (${value.signal})` : ''}`;
  return undefined;
}

/** The files a command changed, for the text: a count and the first `CHANGED_IN_TEXT` paths. */
function changedText(changed: readonly { path: string; status: string }[], count: number): string[] {
  if (count === 0) return [];
  const letter: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D' };
  const shown = changed.slice(0, CHANGED_IN_TEXT).map((c) => `${letter[c.status] ?? '?'} ${c.path}`);
  const more = count - shown.length;
  return [`Files changed (${count}):`, ...shown, ...(more > 0 ? [`… and ${more} more`] : [])];
}

/** The lines of each text `filter` matches, from a pool worker under the budget; null past it or when the engine gave up. */
async function filtered(filter: { source: string; flags: string }, texts: string[], owner: string): Promise<string[] | null> {
  const task: FilterTask = { source: filter.source, flags: filter.flags, texts };
  try {
    const result = await workerPool.submit<string[]>({ program: FILTER_PROGRAM, input: task }, { owner, budgetMs: FILTER_BUDGET_MS }).done;
    result.release();
    return result.value;
  } catch (e) {
    if (e instanceof BatchTimeout || e instanceof TaskFailure) return null;
    throw e;
  }
}

/** `text` without its one trailing line feed. */
function chomp(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** Lines in `text` (a last line without a line feed counts). */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
