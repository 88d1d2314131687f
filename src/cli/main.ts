#!/usr/bin/env node
/**
 * The `gatefs` executable: runs the command line and exits with its code. Everything else is
 * in `run-cli.ts` and one file per command. A stdio `serve` starts answering its client
 * before the CLI loads (`early-serve.ts`).
 */
import { startEarlyServe } from './early-serve.js';
import { commandLineArguments, exitNow, setExitCode } from '../ports/process-io.js';

startEarlyServe(commandLineArguments());
const { runCli } = await import('./run-cli.js');
const code = await runCli(commandLineArguments());
setExitCode(code);
// Normally the process ends here by itself. Should a stray handle (a socket, a timer of a
// dependency) keep it alive after the command finished, leave anyway after a short grace.
setTimeout(() => exitNow(code), 2000).unref();
