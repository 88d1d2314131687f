/**
 * `gatefs exec <conversation> [--background] [--cwd PATH] [--timeout SECONDS] -- COMMAND…`: runs a
 * shell line in the conversation's kernel sandbox through the gate, exactly as the agent's
 * `exec` tool does (the role must declare it; its `exec:` limits apply; the run log gets its
 * record). The words after `--` are joined by spaces into the line `/bin/sh -c` runs, as `ssh`
 * joins them: quote the whole line to keep its own quoting.
 *
 * Prints the tail of the command's stdout on stdout and of its stderr on stderr, then (on
 * stderr) the files it changed and, when it did not exit by itself, how it ended. Exits with the
 * command's exit code (`command-ending.ts`: 124 for a timeout, 128 + n for a signal or a limit),
 * 1 with the code printed when the gate refused (`BACKEND_UNAVAILABLE` where no sandbox runs:
 * nothing ran). `--json` prints the tool's value instead.
 *
 * `--background` starts it as a background run and prints its output as it arrives
 * (`exec_output` once a second) until it ends. A run ends with the host that started it, so
 * this command stays until then; Ctrl-C ends the run with it.
 */
import type { ExecValue, RunOutputValue, ToolResult } from '../../tools/index.js';
import type { Host } from '../host/composition/index.js';
import type { Command } from './command.js';
import { changedLines, commandEnding } from './command-ending.js';
import { conversationArg } from './conversation-arg.js';
import { withHost } from './open-host.js';
import type { Output } from './output.js';
import { toolHint, withRemedy } from './remedy.js';
import { safeToolText } from './safe-tool-text.js';
import { UsageError } from './usage-error.js';

/** The most a command may run, in seconds (the `exec` tool's bound). */
const MAX_TIMEOUT_SECONDS = 600;
/** How long one `exec_output` of a followed background run waits for its end, in milliseconds. */
const FOLLOW_WAIT_MS = 1000;

/** The `exec` command. */
export const execCommand: Command = {
  name: 'exec',
  summary: "run a shell command in a conversation's kernel sandbox, over the files its tools see",
  usage: 'gatefs exec <conversation> [--background] [--cwd PATH] [--timeout SECONDS] -- COMMAND…',
  positionals: ['conversation'],
  afterDashes: 'COMMAND',
  options: { background: { type: 'boolean' }, cwd: { type: 'string' }, timeout: { type: 'string' } },
  optionHelp: [
    [
      '--cwd PATH',
      'the folder to run in: relative to the workspace root, or /worktrees/<conversation>/… or a mount path (default: the root)',
    ],
    ['--timeout SECONDS', "end it (and everything it started) after this long; at most the role's exec.timeout (default 120)"],
    ['--background', 'start it as a background run and print its output as it arrives, until it ends (Ctrl-C ends it)'],
  ],
  details: [
    "The role must declare exec in its tools (gatefs.yaml); the command sees the conversation's files",
    'and mounts at /worktrees/<conversation>, no network unless the role has exec.network: true,',
    'and nothing else of this machine. Where no sandbox can run, it answers BACKEND_UNAVAILABLE and runs',
    'nothing (gatefs doctor says why). The words after -- become one shell line, joined by spaces.',
    "Exit code: the command's own; 124 when it timed out; 128 + the signal's number when a signal or",
    'a limit (exec.memory, exec.processes, exec.output: 137) ended it; 1 when gatefs refused; 2 usage.',
    'Examples:',
    '  gatefs exec fix-login -- npm test',
    "  gatefs exec fix-login --cwd src -- 'grep -rn TODO . | wc -l'",
    '  gatefs exec fix-login --background --timeout 600 -- npm run build',
  ].join('\n'),
  async run({ globals, flags, args, rest, out }) {
    const conversation = conversationArg(args[0], 'exec');
    const command = (rest ?? []).join(' ');
    if (command.trim() === '') throw new UsageError('exec needs the command after "--": gatefs exec <conversation> -- npm test', 'exec');
    const input = {
      command,
      ...(typeof flags.cwd === 'string' ? { cwd: flags.cwd } : {}),
      ...(typeof flags.timeout === 'string' ? { timeoutMs: timeoutMs(flags.timeout) } : {}),
      ...(flags.background === true ? { background: true } : {}),
    };
    return withHost(globals, async (host) => {
      const started = await host.gate.call(conversation, 'exec', input);
      if (!started.ok) return refused(started, out, globals.json);
      const checkpoint = (started.value as { checkpoint?: string }).checkpoint;
      if (checkpoint !== undefined && !globals.json) {
        out.progress(`snapshot ${checkpoint} was taken before the command: gatefs restore ${conversation} ${checkpoint} undoes it`);
      }
      if (flags.background !== true) {
        const value = started.value as ExecValue;
        if (globals.json) out.json(value);
        else printRun(value, out);
        return commandEnding(value).code;
      }
      return follow(host, conversation, (started.value as { runId: string }).runId, out, globals.json);
    });
  },
};

/** `--timeout` in milliseconds; `UsageError` for anything but a number of seconds up to 600. */
function timeoutMs(raw: string): number {
  const seconds = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!(seconds > 0) || seconds > MAX_TIMEOUT_SECONDS) {
    throw new UsageError(`--timeout takes seconds, more than 0 and at most ${MAX_TIMEOUT_SECONDS}: "${raw.slice(0, 40)}"`, 'exec');
  }
  return Math.max(1, Math.round(seconds * 1000));
}

/** Prints a refusal (its code, and what to do) and returns exit code 1. */
function refused(result: Extract<ToolResult, { ok: false }>, out: Output, json: boolean): number {
  if (json) out.json({ error: result.error });
  out.problem(`gatefs: ${withRemedy(safeToolText('exec', result), result.error.code, toolHint('exec', result.error.code))}`);
  return 1;
}

/** A foreground run's tails on their streams, then its changed files and how it ended on stderr. */
function printRun(value: ExecValue, out: Output): void {
  if (value.stdout !== '') out.print(value.stdout);
  if (value.stderr !== '') out.problem(value.stderr);
  if (value.truncated) out.progress('(the output was cut: only the end of each stream is kept)');
  printEnd(value, out);
}

/** The changed files and, when the command did not exit by itself, how it ended: on stderr. */
function printEnd(value: ExecValue, out: Output): void {
  for (const line of changedLines(value)) out.progress(line);
  const { said } = commandEnding(value);
  if (said) out.progress(said);
}

/**
 * Follows a background run: its output as it arrives (whole lines; the last partial line once
 * it ends), until it ends; with `json`, each `exec_output` value as one JSON line.
 */
async function follow(host: Host, conversation: string, runId: string, out: Output, json: boolean): Promise<number> {
  if (json) out.jsonLine({ runId });
  else out.progress(`running in the background as ${runId}; its output follows as it comes (Ctrl-C ends it)`);
  const stdout = new LineBuffer((text) => out.print(text));
  const stderr = new LineBuffer((text) => out.problem(text));
  for (;;) {
    const r = await host.gate.call(conversation, 'exec_output', { runId, waitMs: FOLLOW_WAIT_MS });
    if (!r.ok) return refused(r, out, json);
    const v = r.value as RunOutputValue;
    if (json) out.jsonLine(v);
    else {
      if (v.truncated) out.progress('(output was cut: more arrived between two reads than is kept)');
      stdout.push(v.stdout);
      stderr.push(v.stderr);
    }
    if (v.state === 'ended' && v.result) {
      if (!json) {
        stdout.flush();
        stderr.flush();
        printEnd(v.result, out);
      }
      return commandEnding(v.result).code;
    }
  }
}

/** Characters of a line without its end kept back before they are printed anyway (a progress bar never ends its line). */
const MAX_PENDING_CHARS = 64 * 1024;

/** Text arriving in pieces, printed a whole line at a time (a partial last line on `flush`, or once it is long). */
class LineBuffer {
  private pending = '';

  constructor(private readonly print: (text: string) => void) {}

  push(text: string): void {
    const all = this.pending + text;
    const end = all.lastIndexOf('\n');
    if (end < 0) {
      this.pending = all;
      if (all.length > MAX_PENDING_CHARS) this.flush();
      return;
    }
    this.print(all.slice(0, end + 1));
    this.pending = all.slice(end + 1);
  }

  flush(): void {
    if (this.pending !== '') this.print(this.pending);
    this.pending = '';
  }
}
