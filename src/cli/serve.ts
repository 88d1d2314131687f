/**
 * `gatefs serve`: the MCP server. Over stdio (default) it serves one conversation, prepared on
 * start if missing, and writes nothing but protocol to stdout. With `--http HOST:PORT` it serves
 * Streamable HTTP at `/mcp/<conversation>` for many conversations, loopback unless a token is
 * set. Runs until stdin closes (stdio) or SIGINT/SIGTERM (both). The SDK is loaded only here.
 */
import type { Command } from './command.js';
import { openHost } from './open-host.js';
import { conversationArg } from './conversation-arg.js';
import { UsageError } from './usage-error.js';
import { ListenAddressError, parseListenAddress } from '../mcp/listen-address.js';
import { randomIds } from '../ports/ids.js';

/** The `serve` command. */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the MCP server: stdio for one conversation, or Streamable HTTP for many',
  usage: 'gatefs serve [--conversation ID] [--role R] [--http HOST:PORT] [--token T]',
  positionals: [],
  options: {
    conversation: { type: 'string' },
    role: { type: 'string' },
    http: { type: 'string' },
    token: { type: 'string' },
  },
  optionHelp: [
    ['--conversation ID', 'stdio: the conversation to serve (default: a new id, printed on stderr)'],
    ['--role R', 'the role for workspaces prepared by the server (default: the first role)'],
    ['--http HOST:PORT', 'serve Streamable HTTP at http://HOST:PORT/mcp/<conversation> instead of stdio'],
    ['--token T', 'HTTP: require "Authorization: Bearer T" (or set GATEFS_TOKEN); needed off loopback'],
  ],
  details: [
    'MCP client config (stdio):',
    '  {"mcpServers": {"gatefs": {"command": "npx", "args": ["gatefs", "serve", "--repo", "/path/to/repo", "--conversation", "my-task"]}}}',
    'HTTP: gatefs serve --http 127.0.0.1:8808, then point the client at http://127.0.0.1:8808/mcp/my-task',
  ].join('\n'),
  async run({ globals, flags, out, env }) {
    const role = typeof flags.role === 'string' ? flags.role : undefined;
    if (typeof flags.http === 'string') {
      let address;
      try {
        address = parseListenAddress(flags.http);
      } catch (e) {
        if (e instanceof ListenAddressError) throw new UsageError(e.message, 'serve');
        throw e;
      }
      const token = typeof flags.token === 'string' ? flags.token : env.GATEFS_TOKEN || undefined;
      if (!address.loopback && !token) {
        throw new UsageError(`refusing to serve on ${address.host} without a token: pass --token or set GATEFS_TOKEN, or bind 127.0.0.1`, 'serve');
      }
      if (flags.conversation !== undefined) throw new UsageError('--conversation is for stdio; over HTTP the conversation is in the URL (/mcp/<conversation>)', 'serve');
      const { serveHttp } = await import('../mcp/http-server.js');
      const host = await openHost(globals);
      const running = await serveHttp(host, { address, token, role, log: out.progress });
      out.progress(`serving MCP over HTTP at ${running.url}/mcp/<conversation>${token ? ' (bearer token required)' : ''}`);
      await untilSignal();
      await running.close();
      await host.close();
      return 0;
    }
    if (flags.token !== undefined) throw new UsageError('--token is for --http; stdio needs none', 'serve');
    const conversation =
      typeof flags.conversation === 'string' ? conversationArg(flags.conversation, 'serve') : randomIds.next('conv').slice(0, 21);
    const { serveStdio } = await import('../mcp/stdio.js');
    const { ensureWorkspace } = await import('../mcp/ensure-workspace.js');
    const { newHolderId } = await import('../mcp/session.js');
    const host = await openHost(globals);
    try {
      const status = await ensureWorkspace(host, conversation, { role, onProgress: out.progress });
      if (role && status.role !== role) out.progress(`"${conversation}" already exists with role ${status.role}; --role ${role} applies to new conversations only`);
      out.progress(`serving conversation "${conversation}" (role ${status.role}, ${status.backend}) over stdio`);
      if (status.confinement === 'lstat-fallback') out.progress('WARNING: /proc/self/fd is not available: paths are confined by the weaker per-component lstat check');
      await Promise.race([serveStdio(host, conversation, newHolderId()), untilSignal()]);
    } finally {
      await host.close();
    }
    return 0;
  },
};

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
