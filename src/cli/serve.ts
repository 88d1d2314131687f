/**
 * `gatefs serve`: the MCP server. Over stdio (default) it serves one conversation, answering at
 * once and preparing it in the background when missing (`serve-stdio.ts`), and writes nothing but
 * protocol to stdout. With `--http HOST:PORT` it serves Streamable HTTP at `/mcp/<conversation>`
 * (and `/c/<conversation>/mcp`) for many conversations, and the status page at `/`, behind a
 * bearer token by default (`serve-auth.ts`). Both stop on SIGINT, SIGTERM or SIGHUP after finishing the calls in
 * flight and freeing every occupancy; stdio also stops when stdin closes. The SDK is loaded
 * only here.
 */
import { fileURLToPath } from 'node:url';
import type { Command, CommandContext } from './command.js';
import { openHost } from './open-host.js';
import { UsageError } from './usage-error.js';
import { watchStopSignals } from './stop-signals.js';
import { resolveServeAuth, TOKEN_ON_COMMAND_LINE } from './serve-auth.js';
import { serveOverStdio } from './serve-stdio.js';
import { checkBeforeConnect } from './connect-check.js';
import {
  DEFAULT_CREATION_LIMITS as CREATION,
  DEFAULT_SESSION_LIMITS as SESSIONS,
  ListenAddressError,
  parseListenAddress,
  serveHttp,
} from '../mcp/http/index.js';
import { PROFILE_NAMES, isProfileName, type ProfileName } from '../mcp/initialize/index.js';
import { standardError } from '../ports/process-io.js';
import { isConversationId } from '../../vfs/workspace-root.js';

const minutes = (ms: number) => `${Math.round(ms / 60_000)} min`;

/** The CLI entry of this gatefs (`dist/src/cli/main.js`), for a client config to copy. */
const THIS_MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

/** The `serve` command. */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the MCP server: stdio for one conversation, or Streamable HTTP for many',
  usage:
    'gatefs serve [--conversation ID|auto] [--role R] [--run RUN] [--agent NAME] [--profile gatefs|claude-code] [--http HOST:PORT [--token-file F | --no-token] [--allow-new]]',
  positionals: [],
  options: {
    conversation: { type: 'string' },
    role: { type: 'string' },
    run: { type: 'string' },
    agent: { type: 'string' },
    profile: { type: 'string' },
    http: { type: 'string' },
    token: { type: 'string' },
    'token-file': { type: 'string' },
    'no-token': { type: 'boolean' },
    'allow-new': { type: 'boolean' },
  },
  optionHelp: [
    [
      '--conversation ID',
      'stdio: the conversation to serve; auto: one per client window and folder (default: a new id, printed on stderr)',
    ],
    ['--role R', 'the role for workspaces the server prepares (stdio; HTTP with --allow-new)'],
    ['--run RUN', 'the run of workspaces the server prepares (default: default; stdio; HTTP with --allow-new)'],
    [
      '--agent NAME',
      "the agent identity of workspaces the server prepares, whose home they see at /home (default: the role's name; stdio; HTTP with --allow-new)",
    ],
    [
      '--profile P',
      "the tool names: gatefs (read, grep, list, edit, write, …; default) or claude-code (Claude Code's Read, Write, Edit, MultiEdit, Glob, Grep, LS)",
    ],
    ['--http HOST:PORT', 'serve Streamable HTTP at http://HOST:PORT/mcp/<conversation> instead of stdio'],
    ['--token-file F', 'HTTP: the bearer token is the first line of F (mode 600, yours); default: the one kept for this address'],
    ['--no-token', 'HTTP on a loopback address only: require no token (any local process may connect)'],
    [
      '--allow-new',
      `HTTP: prepare conversations that have no workspace (at most ${CREATION.total} per run, ${CREATION.concurrent} at a time)`,
    ],
  ],
  details: [
    'MCP client config (stdio), with gatefs on your PATH (npm install -g ./gatefs-<version>.tgz, or npm link in a checkout):',
    '  {"mcpServers": {"gatefs": {"command": "gatefs", "args": ["serve", "--repo", "/path/to/repo", "--conversation", "auto"]}}}',
    'Without gatefs on PATH, this gatefs by its path:',
    `  {"mcpServers": {"gatefs": {"command": "node", "args": [${JSON.stringify(THIS_MAIN)}, "serve", "--repo", "/path/to/repo", "--conversation", "auto"]}}}`,
    '--conversation auto gives each client window its own conversation in its working folder (<folder>-<hash>-<n>): a window',
    "that reconnects gets its own again, and a closed window's workspace goes to the next window, so none pile up.",
    'The server answers initialize at once and prepares the workspace in the background: tool calls wait for it, with',
    'progress notifications when the client asks for them, and a tool error saying why when it cannot be made ready.',
    'A cause known at connect (a missing --repo folder, a client variable left unexpanded, no git repository for a worktree',
    "role, a gatefs.yaml mistake with its file:line) ends the initialize instructions; each call's error carries it too.",
    '',
    'HTTP: gatefs serve --http 127.0.0.1:8808, then point the client at http://127.0.0.1:8808/mcp/my-task (or',
    '/c/my-task/mcp, for clients that append /mcp: MCP Inspector 0.15) with the header',
    '"Authorization: Bearer <token>". Without --token-file the server keeps one token per address in the state dir',
    '(<state dir>/serve-token-127.0.0.1-8808, mode 600), made at the first start and kept across restarts until',
    '"gatefs token rotate" (a running server takes the new one at once); "gatefs token show" prints it.',
    'GATEFS_TOKEN=<token> sets it from the environment.',
    'A token on the command line (--token) is refused: every local user can read it in ps or /proc/<pid>/cmdline.',
    'Each conversation must be prepared first (gatefs prepare ID), unless the server runs with --allow-new.',
    'The server also shows a read-only status page at http://127.0.0.1:8808/ (workspaces, occupancy, the lander queue, the run',
    'log, live), behind the same token: paste it into the page, or open http://127.0.0.1:8808/#token=<token>.',
    `Sessions: at most ${SESSIONS.perConversation} per conversation and ${SESSIONS.total} in all; an open session is never ended to make room.`,
    `A session ends after ${minutes(SESSIONS.idleMs)} without requests, or ${minutes(SESSIONS.detachedMs)} after its client dropped its event stream.`,
    'Messages (stdio lines and HTTP bodies) may be as large, and hold as many JSON values, as the largest request',
    'the tool schemas allow (plus room for the envelope); a larger one gets a JSON-RPC error and the server keeps serving.',
  ].join('\n'),
  async run({ globals, flags, out, env }) {
    if (flags.token !== undefined) throw new UsageError(`--token is not accepted: ${TOKEN_ON_COMMAND_LINE}`, 'serve');
    const role = typeof flags.role === 'string' ? flags.role : undefined;
    if (flags.run !== undefined && !isConversationId(flags.run))
      throw new UsageError("--run must be a run name: 1 to 63 lowercase letters, digits, '_' and '-' (like review-1)", 'serve');
    if (flags.agent !== undefined && !isConversationId(flags.agent))
      throw new UsageError("--agent must be an agent name: 1 to 63 lowercase letters, digits, '_' and '-' (like reviewer)", 'serve');
    const profile = flags.profile ?? 'gatefs';
    if (!isProfileName(profile)) throw new UsageError(`--profile must be one of ${PROFILE_NAMES.join(', ')}`, 'serve');
    standardError().on('error', () => undefined); // a client that closed our stderr must not crash the server
    if (typeof flags.http === 'string') return serveOverHttp(flags.http, role, profile, { globals, flags, out, env });
    for (const flag of ['token-file', 'no-token', 'allow-new']) {
      if (flags[flag] !== undefined) throw new UsageError(`--${flag} is for --http; stdio needs none`, 'serve');
    }
    return serveOverStdio(role, profile, { globals, flags, out, env });
  },
};

/** `serve --http`: checks the flags, settles the token, serves until a stop signal. */
async function serveOverHttp(
  http: string,
  role: string | undefined,
  profileName: ProfileName,
  { globals, flags, out, env }: Omit<CommandContext, 'args'>,
): Promise<number> {
  let address;
  try {
    address = parseListenAddress(http);
  } catch (e) {
    if (e instanceof ListenAddressError) throw new UsageError(e.message, 'serve');
    throw e;
  }
  if (flags.conversation !== undefined)
    throw new UsageError('--conversation is for stdio; over HTTP the conversation is in the URL (/mcp/<conversation>)', 'serve');
  const allowNew = flags['allow-new'] === true;
  if (role !== undefined && !allowNew) {
    throw new UsageError(
      '--role applies to conversations the server prepares: add --allow-new, or prepare them first with gatefs prepare ID --role R',
      'serve',
    );
  }
  const run = typeof flags.run === 'string' ? flags.run : undefined;
  if (run !== undefined && !allowNew) {
    throw new UsageError(
      '--run applies to conversations the server prepares: add --allow-new, or prepare them first with gatefs prepare ID --run RUN',
      'serve',
    );
  }
  const agent = typeof flags.agent === 'string' ? flags.agent : undefined;
  if (agent !== undefined && !allowNew) {
    throw new UsageError(
      '--agent applies to conversations the server prepares: add --allow-new, or prepare them first with gatefs prepare ID --agent NAME',
      'serve',
    );
  }
  const auth = resolveServeAuth({ tokenFile: flags['token-file'], noToken: flags['no-token'] === true, env, address, globals });
  const stop = watchStopSignals(out.progress);
  try {
    const { profileNamed } = await import('../mcp/profiles/index.js');
    const profile = profileNamed(profileName);
    await refuseMissingFolder(flags, globals);
    const host = await openHost(globals);
    try {
      const token = auth.settle();
      const running = await serveHttp(host, {
        address,
        token,
        tokenHint: auth.hint,
        allowNew,
        role,
        ...(run ? { run } : {}),
        ...(agent ? { agent } : {}),
        profile,
        log: out.progress,
      });
      auth.announce(out.progress, running.port);
      if (!address.loopback)
        out.progress(`WARNING: serving on ${address.host} over plain HTTP: the token and every file cross the network unencrypted`);
      const door = token === null ? ' (no token: every local process may connect)' : ' (bearer token required)';
      const names = profileName === 'gatefs' ? '' : `; ${profileName} tool names`;
      out.progress(
        `serving MCP over HTTP at ${running.url}/mcp/<conversation>${door}${allowNew ? '; new conversations allowed' : ''}${names}`,
      );
      // The token is shown once (above); the page's sign-in takes it, or `#token=<token>` appended to this URL.
      out.progress(`status page (read-only): ${running.url}/${token === null ? '' : ' (sign in with the bearer token)'}`);
      const reason = await stop.stopped;
      await running.close();
      out.progress(`${reason}: every session closed and every workspace freed; exiting`);
    } finally {
      await host.close();
    }
    return 0;
  } finally {
    stop.dispose();
  }
}

/**
 * `serve --http` refuses to start on a repository folder that is missing, or named with a
 * variable nobody expanded (`${workspaceFolder}`), saying so (`UsageError`, exit 2): no client
 * could be served. A manifest mistake already stops the start (its file:line and value are in the
 * error); a folder that is not a git repository may still serve prepared copy workspaces.
 */
async function refuseMissingFolder(flags: CommandContext['flags'], globals: CommandContext['globals']): Promise<void> {
  const args = {
    ...(typeof flags.repo === 'string' ? { repo: flags.repo } : {}),
    ...(typeof flags['state-dir'] === 'string' ? { stateDir: flags['state-dir'] } : {}),
  };
  const problem = await checkBeforeConnect(args, { ...globals, manifest: undefined });
  if (problem && ['UNEXPANDED_VARIABLE', 'FOLDER_MISSING', 'NOT_A_FOLDER'].includes(problem.details.cause))
    throw new UsageError(`${problem.summary}: ${problem.remedy}`, 'serve');
}
