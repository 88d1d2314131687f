/**
 * Every `gatefs` subcommand, in the order `gatefs --help` lists them.
 */
import type { Command } from './command.js';
import { demoCommand } from './demo.js';
import { initCommand } from './init.js';
import { prepareCommand } from './prepare.js';
import { statusCommand } from './status.js';
import { describeCommand } from './describe.js';
import { resolveCommand } from './resolve.js';
import { logCommand } from './log.js';
import { callCommand } from './call.js';
import { toolsCommand } from './tools.js';
import { execCommand } from './exec.js';
import { checkCommand } from './check.js';
import { serveCommand } from './serve.js';
import { releaseCommand } from './release.js';
import { diffCommand } from './diff.js';
import { commitCommand } from './commit.js';
import { submitCommand } from './submit.js';
import { applyCommand } from './apply.js';
import { landerCommand } from './lander.js';
import { messagesCommand } from './messages.js';
import { subagentCommand } from './subagent.js';
import { snapshotCommand } from './snapshot.js';
import { snapshotsCommand } from './snapshots.js';
import { restoreCommand } from './restore.js';
import { runCommand } from './run.js';
import { artifactsCommand } from './artifacts.js';
import { doctorCommand } from './doctor.js';
import { tokenCommand } from './token.js';
import { homeCommand } from './home.js';
import { attachCommand, detachCommand, switchCommand } from './bindings.js';

/** The commands of the `gatefs` binary (docs/ARCHITECTURE.md § CLI). */
export const COMMANDS: readonly Command[] = [
  demoCommand,
  initCommand,
  prepareCommand,
  statusCommand,
  describeCommand,
  resolveCommand,
  logCommand,
  callCommand,
  toolsCommand,
  execCommand,
  checkCommand,
  serveCommand,
  tokenCommand,
  homeCommand,
  attachCommand,
  detachCommand,
  switchCommand,
  releaseCommand,
  diffCommand,
  commitCommand,
  submitCommand,
  applyCommand,
  landerCommand,
  messagesCommand,
  subagentCommand,
  snapshotCommand,
  snapshotsCommand,
  restoreCommand,
  runCommand,
  artifactsCommand,
  doctorCommand,
];
