/**
 * Test support for the MCP tests: the official SDK client over stdio (spawning the built
 * `gatefs serve`) and over Streamable HTTP, plus small readers for tool results.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN } from '../cli/run-gatefs.js';

/** A structured tool result as the SDK client returns it. */
export interface CallOutcome {
  isError: boolean;
  text: string;
  structured: Record<string, any>;
}

/** Calls a tool and returns the three parts a user sees. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallOutcome> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
  return { isError: r.isError === true, text, structured: (r.structuredContent ?? {}) as Record<string, any> };
}

/** Connects the SDK client to `gatefs serve` over stdio; collects the server's stderr. */
export async function stdioClient(args: string[], cwd: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', ...args],
    cwd,
    stderr: 'pipe',
    env: { ...process.env } as Record<string, string>,
  });
  let err = '';
  transport.stderr?.on('data', (d) => (err += d));
  const client = new Client({ name: 'gatefs-test', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** Connects the SDK client over Streamable HTTP to `url`, with optional extra headers. */
export async function httpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'gatefs-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** A running `gatefs serve --http`; `base` is `http://127.0.0.1:<port>`. */
export interface HttpServer {
  child: ChildProcessWithoutNullStreams;
  base: string;
  port: number;
  /** The token the server generated and printed on stderr, when it did. */
  token?: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Spawns `gatefs serve --http 127.0.0.1:0 <args>` and waits for its "serving" line. */
export function startHttpServer(args: string[], cwd: string, env: Record<string, string> = {}): Promise<HttpServer> {
  const listen = args.includes('--http') ? [] : ['--http', '127.0.0.1:0'];
  const child = spawn(process.execPath, [BIN, 'serve', ...listen, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: 'pipe',
  });
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${err}`)), 30_000);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${err}`)));
    child.stderr.on('data', (d) => {
      err += d;
      const m = /serving MCP over HTTP at (http:\/\/127\.0\.0\.1:(\d+))/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({
          child,
          base: m[1],
          port: Number(m[2]),
          token: /bearer token for \S+ \(.*\): (\S+)\n/.exec(err)?.[1],
          stderr: () => err,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
  });
}

/** A TCP port free on 127.0.0.1 now (bound to port 0, then closed): for a server that must restart on one address. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
