/**
 * The first thing `gatefs serve` over stdio does, before the CLI itself loads: when the command
 * line is plainly a stdio `serve` with a conversation (`--conversation ID` or `auto`), start
 * answering the client's `initialize` (`answerInitializeEarly`) at once, so a client waits only
 * for Node to start, and watch for stop signals. `serve` then takes both over (`takeEarlyServe`). Any other
 * command line (another command, `--help`, `--http`, a flag this does not know) is left to the
 * CLI untouched. Imports nothing heavy: node:stream, the instructions, the profile names and the version, and the
 * process's streams (src/ports/process-io.ts).
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
import { watchStopSignals, type StopWatch } from './stop-signals.js';
import { standardError, standardInput, standardOutput } from '../ports/process-io.js';

/** Flags of a stdio `serve` taking a value, and those that do not. */
const VALUE_FLAGS = new Set(['--conversation', '--role', '--repo', '--state-dir', '--manifest', '--profile']);
const BARE_FLAGS = new Set(['--json']);
const ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** What `startEarlyServe` started: the early reader and the stop-signal watch (a SIGTERM right after initialize is a stop, not a kill). */
interface EarlyServe {
  early: EarlyInitialize;
  stop: StopWatch;
}

let started: EarlyServe | undefined;

/**
 * The conversation a plain stdio `serve` command line names (undefined for `auto`) and its tool
 * profile, or null when it is not one (an unknown `--profile` included: the CLI explains it).
 */
export function earlyServeConversation(argv: readonly string[]): { conversation: string | undefined; profile: ProfileName } | null {
  let conversation: string | null = null;
  let profile: string = 'gatefs';
  let sawServe = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === 'serve' && !sawServe) sawServe = true;
    else if (VALUE_FLAGS.has(a) && i + 1 < argv.length) {
      if (a === '--conversation') conversation = argv[i + 1]!;
      if (a === '--profile') profile = argv[i + 1]!;
      i++;
    } else if (!BARE_FLAGS.has(a)) return null;
  }
  if (!sawServe || conversation === null || !isProfileName(profile)) return null;
  if (conversation === 'auto') return { conversation: undefined, profile };
  return ID.test(conversation) ? { conversation, profile } : null;
}

/** Starts answering early when `argv` is a plain stdio `serve` (see the file comment). */
export function startEarlyServe(argv: readonly string[]): void {
  const plain = earlyServeConversation(argv);
  if (!plain) return;
  const stop = watchStopSignals((line) => void standardError().write(`gatefs: ${line}\n`));
  const early = answerInitializeEarly({
    stdin: standardInput(),
    stdout: standardOutput(),
    server: {
      name: 'gatefs',
      version: gatefsVersion(),
      capabilities: SERVER_CAPABILITIES,
      instructions: workspaceInstructions(plain.conversation, plain.profile),
    },
  });
  started = { early, stop };
}

/** What `startEarlyServe` started, once (then undefined). */
export function takeEarlyServe(): EarlyServe | undefined {
  const early = started;
  started = undefined;
  return early;
}
