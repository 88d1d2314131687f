/**
 * The first thing `gatefs serve` over stdio does, before the CLI itself loads: when the command
 * line is plainly a stdio `serve` with a conversation (`--conversation ID` or `auto`), start
 * answering the client's `initialize` (`answerInitializeEarly`) at once, so a client waits only
 * for Node to start, and watch for stop signals. `serve` then takes both over (`takeEarlyServe`). Any other
 * command line (another command, `--help`, `--http`, a flag this does not know) is left to the
 * CLI untouched. Imports nothing heavy: node:stream, the instructions, the profile names and the version, and the
 * process's streams (src/ports/process-io.ts).
 *
 * Before answering it checks what is cheap to know about the workspace (`checkBeforeConnect`: a
 * folder that is missing, a variable the client did not expand, a manifest that does not load, a
 * folder that is not a git repository for a worktree role), so the answer's instructions carry
 * the cause. Only a manifest file costs time (loading the manifest module, which the host then
 * reuses); without one the checks are a few `stat`s.
 */
import {
  answerInitializeEarly,
  type EarlyInitialize,
  SERVER_CAPABILITIES,
  workspaceInstructions,
  gatefsVersion,
  isProfileName,
  type ProfileName,
} from '../mcp/initialize/index.js';
import type { WorkspaceProblem } from '../mcp/initialize/index.js';
import { watchStopSignals, type StopWatch } from './stop-signals.js';
import { checkBeforeConnect, type ConnectArgs } from './connect-check.js';
import { resolveGlobalFlags } from './global-flags.js';
import { standardError, standardInput, standardOutput, workingFolder } from '../ports/process-io.js';

/** Flags of a stdio `serve` taking a value, and those that do not. */
const VALUE_FLAGS = new Set(['--conversation', '--role', '--run', '--repo', '--state-dir', '--manifest', '--profile']);
const BARE_FLAGS = new Set(['--json']);
const ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** What `startEarlyServe` started: the early reader and the stop-signal watch (a SIGTERM right after initialize is a stop, not a kill). */
interface EarlyServe {
  early: EarlyInitialize;
  stop: StopWatch;
  /** What `checkBeforeConnect` found (the answer's instructions carry it). */
  problem: Promise<WorkspaceProblem | null>;
}

let started: EarlyServe | undefined;

/**
 * The conversation a plain stdio `serve` command line names (undefined for `auto`) and its tool
 * profile, or null when it is not one (an unknown `--profile` included: the CLI explains it).
 */
export function earlyServeConversation(
  argv: readonly string[],
): { conversation: string | undefined; profile: ProfileName; args: ConnectArgs } | null {
  let conversation: string | null = null;
  let profile: string = 'gatefs';
  let sawServe = false;
  const args: ConnectArgs = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === 'serve' && !sawServe) sawServe = true;
    else if (VALUE_FLAGS.has(a) && i + 1 < argv.length) {
      const value = argv[i + 1]!;
      if (a === '--conversation') conversation = value;
      else if (a === '--profile') profile = value;
      else if (a === '--repo') args.repo = value;
      else if (a === '--manifest') args.manifest = value;
      else if (a === '--state-dir') args.stateDir = value;
      else if (a === '--role') args.role = value;
      i++;
    } else if (!BARE_FLAGS.has(a)) return null;
  }
  if (!sawServe || conversation === null || !isProfileName(profile)) return null;
  if (conversation === 'auto') return { conversation: undefined, profile, args };
  return ID.test(conversation) ? { conversation, profile, args } : null;
}

/** `checkBeforeConnect` for the command line's `args` as the CLI will resolve them. */
export function checkCommandLine(args: ConnectArgs): Promise<WorkspaceProblem | null> {
  const values = { repo: args.repo, manifest: args.manifest, 'state-dir': args.stateDir };
  return checkBeforeConnect(args, resolveGlobalFlags(values, workingFolder())).catch(() => null);
}

/** Starts answering early when `argv` is a plain stdio `serve` (see the file comment). */
export function startEarlyServe(argv: readonly string[]): void {
  const plain = earlyServeConversation(argv);
  if (!plain) return;
  const stop = watchStopSignals((line) => void standardError().write(`gatefs: ${line}\n`));
  const problem = checkCommandLine(plain.args);
  const early = answerInitializeEarly({
    stdin: standardInput(),
    stdout: standardOutput(),
    server: {
      name: 'gatefs',
      version: gatefsVersion(),
      capabilities: SERVER_CAPABILITIES,
      instructions: problem.then((p) => workspaceInstructions(plain.conversation, plain.profile, p)),
    },
  });
  started = { early, stop, problem };
}

/** What `startEarlyServe` started, once (then undefined). */
export function takeEarlyServe(): EarlyServe | undefined {
  const early = started;
  started = undefined;
  return early;
}
