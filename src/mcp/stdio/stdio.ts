/**
 * `gatefs serve` over stdio: one MCP server for one conversation on this process's stdin and
 * stdout, answering at once while its workspace is made ready in the background
 * (`WorkspaceReadiness`, `createWaitingMcpServer`). Nothing else may write to stdout while it
 * runs (logs go to stderr).
 */
import type { Readable, Writable } from 'node:stream';
import { callsSettled, createWaitingMcpServer, type Readiness } from '../protocol/index.js';
import type { ToolProfile } from '../profiles/index.js';
import { CappedStdioTransport } from './capped-stdio-transport.js';
import type { EarlyAnswer, WorkspaceProblem } from '../initialize/index.js';
import type { WorkspaceReadiness } from './workspace-readiness.js';

/** Options of `serveStdio`. */
interface StdioServeOptions {
  /** The conversation the instructions name (undefined: chosen later). */
  conversation?: string;
  /**
   * Resolves with a reason (e.g. "SIGTERM") when the server should stop although stdin is still
   * open. Default: never.
   */
  stop?: Promise<string>;
  /** One-line notes for the operator (the CLI passes stderr). */
  log?: (line: string) => void;
  /** A failure as the client reads it: what is wrong and what to do. */
  explain: (e: unknown) => string;
  /** The facts of a failure for `tools/list`'s error data (the folder, file, line, the value it got). */
  detailsOf?: (e: unknown) => Record<string, unknown>;
  /** Why the workspace cannot be prepared, when known before the initialize answer: the instructions end with it. */
  problem?: WorkspaceProblem | null;
  /** The names and shapes the tools are offered under (`--profile`; default: the gate's own). */
  profile?: ToolProfile;
  /** stdin as the early initialize reader hands it over (`EarlyInitialize.handOver`), and what it answered. */
  input: { stream: Readable; answered: EarlyAnswer | null };
  /** Where the answers go: the process's stdout (the CLI's src/ports/process-io.ts `standardOutput`). */
  output: Writable;
}

/** How a stdio session ended: why, and the workspace's last outcome (undefined: never asked for). */
interface StdioEnd {
  reason: string;
  outcome?: Readiness;
}

/**
 * Serves until the client closes stdin, stdout fails, or `options.stop` resolves. The workspace
 * is made ready in the background from the start. Then it stops reading, waits until every
 * request it took is answered and the tool calls in flight have finished (their answers are
 * still written), closes the MCP server, lets the background work finish (a preparation under
 * way is completed, never cut), frees the workspace and closes the host (`readiness.close`), and
 * resolves with the reason and the last outcome.
 */
export async function serveStdio(readiness: WorkspaceReadiness, options: StdioServeOptions): Promise<StdioEnd> {
  try {
    const server = createWaitingMcpServer(readiness, {
      conversation: options.conversation,
      explain: options.explain,
      ...(options.detailsOf ? { detailsOf: options.detailsOf } : {}),
      ...(options.problem ? { problem: options.problem } : {}),
      ...(options.profile ? { profile: options.profile } : {}),
    });
    const transport = new CappedStdioTransport({
      log: options.log,
      stdin: options.input.stream,
      stdout: options.output,
      answeredEarly: options.input.answered,
    });
    const ended = new Promise<string>((resolve) => {
      transport.onInputEnd = resolve;
      server.onclose = () => resolve('the connection closed');
    });
    await server.connect(transport);
    options.input.stream.resume(); // the early reader paused it; the transport now listens
    readiness.start();
    const reason = await Promise.race([ended, options.stop ?? new Promise<string>(() => undefined)]);
    transport.stopReading();
    await transport.answered();
    await callsSettled(server);
    await server.close().catch(() => undefined);
    return { reason, outcome: await readiness.stop() };
  } finally {
    await readiness.close();
  }
}
