/**
 * `gatefs serve` over stdio (`serve.ts` checks the flags and comes here): answer `initialize`
 * before anything heavy loads (`early-serve.ts`, `mcp/initialize/early-initialize.ts`), then open the host,
 * choose the conversation (a fixed id, a new one, or `--conversation auto`'s choice for this
 * client window), and prepare and occupy its workspace in the background while serving
 * (`WorkspaceReadiness`).
 */
import type { CommandContext, FlagValues } from './command.js';
import type { GlobalFlags } from './global-flags.js';
import { openHost } from './open-host.js';
import { conversationArg } from './conversation-arg.js';
import { watchStopSignals } from './stop-signals.js';
import { takeEarlyServe } from './early-serve.js';
import { checkBeforeConnect, ConnectProblemError, isBlocking, problemOf, type ConnectArgs } from './connect-check.js';
import {
  answerInitializeEarly,
  problemText,
  SERVER_CAPABILITIES,
  workspaceInstructions,
  gatefsVersion,
  type ProfileName,
} from '../mcp/initialize/index.js';
import { clientWindow } from '../ports/client-window.js';
import { randomIds } from '../ports/ids.js';
import { standardInput, standardOutput, workingFolder } from '../ports/process-io.js';
import type { Host } from '../host/composition/index.js';

/**
 * `serve` over stdio: answers `initialize` before anything heavy loads, then opens the host,
 * chooses the conversation, prepares and occupies its workspace in the background while it
 * serves (`WorkspaceReadiness`). A cause known before the answer (`checkBeforeConnect`) ends its
 * instructions; every refused call carries the cause's text and facts (`problemOf`). Warns on
 * stderr when stdin is a terminal (a person typed the command, no client is attached). Exit 1
 * (with the error on stderr) when the session ended without its workspace ever being ready.
 */
export async function serveOverStdio(
  role: string | undefined,
  profileName: ProfileName,
  { globals, flags, out, env }: Omit<CommandContext, 'args'>,
): Promise<number> {
  const choice = conversationFlag(flags.conversation);
  const fixed = choice === AUTO ? undefined : choice;
  const taken = takeEarlyServe();
  const args: ConnectArgs = {
    ...(typeof flags.repo === 'string' ? { repo: flags.repo } : {}),
    ...(typeof flags.manifest === 'string' ? { manifest: flags.manifest } : {}),
    ...(typeof flags['state-dir'] === 'string' ? { stateDir: flags['state-dir'] } : {}),
    ...(role ? { role } : {}),
  };
  const problem = taken?.problem ?? checkBeforeConnect(args, globals).catch(() => null);
  const early =
    taken?.early ??
    answerInitializeEarly({
      stdin: standardInput(),
      stdout: standardOutput(),
      server: {
        name: 'gatefs',
        version: gatefsVersion(),
        capabilities: SERVER_CAPABILITIES,
        instructions: problem.then((p) => workspaceInstructions(fixed, profileName, p)),
      },
    });
  const stop = taken?.stop ?? watchStopSignals(out.progress);
  if (standardInput().isTTY)
    out.progress(
      'stdin is a terminal: gatefs serve expects an MCP client (Claude Code, Cursor, the MCP Inspector) to talk to it over ' +
        'stdin and stdout; see gatefs serve --help for the client config. To try the tools by hand: gatefs demo, or ' +
        'gatefs prepare my-task then gatefs call my-task read \'{"path":"README.md"}\'. Serving anyway; Ctrl-C stops.',
    );
  const context = { args, globals, hostPaths: true };
  const explain = (e: unknown) => problemText(problemOf(e, context));
  const detailsOf = (e: unknown) => ({ ...problemOf(e, context).details });
  try {
    const [{ serveStdio, WorkspaceReadiness }, { newHolderId }, { profileNamed }] = await Promise.all([
      import('../mcp/stdio/index.js'),
      import('../mcp/protocol/index.js'),
      import('../mcp/profiles/index.js'),
    ]);
    const holder = newHolderId();
    const names = profileName === 'gatefs' ? '' : ` (${profileName} tool names)`;
    out.progress(
      fixed
        ? `serving conversation "${fixed}" over stdio${names}; its workspace is made ready in the background`
        : `serving over stdio${names}; choosing this client window's conversation in the background`,
    );
    const readiness = new WorkspaceReadiness({
      // A flag holding an unexpanded variable would make or read a literal `${...}` folder: the host stays shut.
      openHost: async () => {
        const found = await problem;
        if (isBlocking(found)) throw new ConnectProblemError(found);
        return openHost(globals);
      },
      conversation: fixed ?? ((host) => autoChoice(host, globals, env)),
      ...(role ? { role } : {}),
      ...(typeof flags.run === 'string' ? { run: flags.run } : {}),
      ...(typeof flags.agent === 'string' ? { agent: flags.agent } : {}),
      holder,
      client: () => early.clientName(),
      log: out.progress,
      explain,
      detailsOf,
    });
    const found = await problem; // settles the early answer first: its instructions and the SDK's agree
    if (found) out.progress(`the workspace cannot be prepared: ${problemText(found)} (the client's instructions say so)`);
    const end = await serveStdio(readiness, {
      ...(fixed ? { conversation: fixed } : {}),
      stop: stop.stopped,
      log: out.progress,
      explain,
      detailsOf,
      problem: found,
      input: early.handOver(),
      output: standardOutput(),
      profile: profileNamed(profileName),
    });
    const conversation = readiness.conversationId ?? 'this window';
    if (end.outcome && !end.outcome.ok && !end.outcome.stopped && !stop.isStopping) {
      out.progress(`${end.reason}: the workspace of "${conversation}" was never ready; exiting`);
      throw end.outcome.cause;
    }
    out.progress(`${end.reason}: conversation "${conversation}" is free again; exiting`);
    // A generated id is easy to lose, and every start without --conversation makes a new workspace.
    if (flags.conversation === undefined && readiness.isPrepared)
      out.progress(
        `its workspace stays for the next start with --conversation ${conversation}; gatefs release ${conversation} removes it ` +
          '(--conversation auto gives each client window its own workspace and reuses it)',
      );
    return 0;
  } finally {
    stop.dispose();
    standardInput().destroy();
  }
}

/** `--conversation auto`. */
const AUTO = 'auto';

/** The conversation flag: `auto`, a valid id, or (absent) a new id. Throws `UsageError` for an invalid id. */
function conversationFlag(value: FlagValues[string]): string {
  if (value === AUTO) return AUTO;
  return typeof value === 'string' ? conversationArg(value, 'serve') : randomIds.next('conv').slice(0, 21);
}

/**
 * `--conversation auto` once the host is open: the client's working folder is the current folder
 * when it is the repository or inside it, else the repository (a client that starts servers in
 * its home folder with `--repo`); the window is the process that started this server. `resumed`
 * when it continues a closed window's workspace (the agent is then told of its uncommitted files).
 */
function autoChoice(host: Host, globals: GlobalFlags, env: NodeJS.ProcessEnv): { conversation: string; note: string; resumed: boolean } {
  const cwd = workingFolder();
  const folder = cwd === globals.repo || cwd.startsWith(`${globals.repo}/`) ? cwd : globals.repo;
  const window = clientWindow(env);
  const { conversation, how } = host.autoConversation({ folder, window });
  const why = { reconnected: 'this window reconnected', reused: "a closed window's workspace, continued", new: 'a new workspace' }[how];
  const note = `conversation "${conversation}" for the client window (process ${window.pid}) in ${folder}: ${why}`;
  return { conversation, note, resumed: how === 'reused' };
}
