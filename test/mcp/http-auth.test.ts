/**
 * The bearer token as MCP clients meet it, in process over the memory host with the SDK's own
 * Streamable HTTP client: a client without the token reads the 401 body (which header is
 * missing, where the token is); a client configured for OAuth ends with the same instruction
 * and is never sent to an authorization page; the OAuth discovery URLs answer at once, without
 * a token, that there is no OAuth; `--no-token` works on loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { createMemoryHost, type Host } from '../../src/index.js';
import { InsecureBindError, serveHttp, type RunningHttpServer } from '../../src/mcp/http/http-server.js';
import { parseListenAddress } from '../../src/mcp/http/listen-address.js';

const TOKEN = 'auth-test-token-0123456789abcdef';
const HINT = 'the file serve-token in the .gatefs folder of the repository it serves';
let host: Host;
let server: RunningHttpServer;

beforeAll(async () => {
  host = await createMemoryHost({ files: { 'README.md': '# auth\n' } });
  await host.prepare({ conversation: 'task' });
  await host.prepare({ conversation: 'open' });
  server = await serveHttp(host, { address: parseListenAddress('127.0.0.1:0'), token: TOKEN, tokenHint: HINT });
});

afterAll(async () => {
  await server?.close();
  await host?.close();
});

function client(options: ConstructorParameters<typeof StreamableHTTPClientTransport>[1] = {}) {
  const c = new Client({ name: 'auth-test', version: '1' });
  return { client: c, connect: () => c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/task`), options)) };
}

/** An OAuth-ready client configuration, as MCP hosts ship one; records whether a browser would open. */
function oauthProvider(): OAuthClientProvider & { redirected: URL[] } {
  const redirected: URL[] = [];
  return {
    redirected,
    get redirectUrl() {
      return 'http://127.0.0.1:9/callback';
    },
    get clientMetadata() {
      return { redirect_uris: ['http://127.0.0.1:9/callback'], client_name: 'auth-test' };
    },
    clientInformation: () => undefined,
    saveClientInformation: () => undefined,
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization: (url: URL) => void redirected.push(url),
    saveCodeVerifier: () => undefined,
    codeVerifier: () => 'verifier',
  };
}

describe('a client without the token', () => {
  it('the SDK client fails with the 401 body: no Authorization header, and where the token is', async () => {
    const { connect } = client();
    await expect(connect()).rejects.toThrow(/no Authorization header; send the header 'Authorization: Bearer <token>'/);
    await expect(client().connect()).rejects.toThrow(HINT);
  });

  it('a wrong token is named as wrong, with error="invalid_token" in the challenge', async () => {
    await expect(client({ requestInit: { headers: { Authorization: 'Bearer not-the-token-0123456789' } } }).connect()).rejects.toThrow(
      /the bearer token is not this server's/,
    );
    const r = await fetch(`${server.url}/mcp/task`, {
      method: 'POST',
      headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="gatefs", error="invalid_token"');
    expect(await r.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  it('a client configured for OAuth ends with the same instruction and never opens an authorization page', async () => {
    const provider = oauthProvider();
    await expect(client({ authProvider: provider }).connect()).rejects.toThrow(
      /gatefs does not use OAuth: send the header 'Authorization: Bearer <token>'/,
    );
    expect(provider.redirected).toEqual([]);
  });

  it('with the token, the same client works', async () => {
    const { client: c, connect } = client({ requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
    await connect();
    expect((await c.callTool({ name: 'read', arguments: { path: 'README.md' } })).isError).toBeFalsy();
    await c.close();
  });
});

describe('OAuth probes get a plain answer at once, without a token', () => {
  it.each([
    ['GET', '/.well-known/oauth-protected-resource/mcp/task'],
    ['GET', '/.well-known/oauth-protected-resource'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/openid-configuration'],
    ['POST', '/register'],
    ['GET', '/authorize'],
    ['POST', '/token'],
  ])('%s %s', async (method, path) => {
    const r = await fetch(`${server.url}${path}`, {
      method,
      ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
    });
    expect(r.status).toBe(404);
    const body = (await r.json()) as { error_description: string };
    expect(body.error_description).toMatch(/^gatefs does not use OAuth: send the header 'Authorization: Bearer <token>'/);
    expect(body.error_description).not.toContain(TOKEN);
  });
});

describe('a token that changes while the server runs (a kept token rotated)', () => {
  it('the next request needs the new token: the old one gets 401 on MCP and the page, and its page cookie no longer opens it', async () => {
    let current = 'first-token-0123456789abcdef';
    const rotating = await serveHttp(host, {
      address: parseListenAddress('127.0.0.1:0'),
      token: () => current,
      tokenHint: (port) => `the file serve-token-127.0.0.1-${port}`,
    });
    try {
      const port = new URL(rotating.url).port;
      const json = (token: string, cookie?: string) =>
        fetch(`${rotating.url}/status.json`, { headers: cookie ? { Cookie: cookie } : { Authorization: `Bearer ${token}` } });
      const login = await fetch(`${rotating.url}/login`, {
        method: 'POST',
        body: new URLSearchParams({ token: current }),
        redirect: 'manual',
      });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      expect(cookie).toMatch(new RegExp(`^gatefs_status_${port}=`));
      expect((await json(current)).status).toBe(200);
      expect((await json('', cookie)).status).toBe(200);

      const old = current;
      current = 'second-token-0123456789abcdef';
      expect((await json(old)).status).toBe(401);
      expect((await json('', cookie)).status).toBe(401);
      expect((await json(current)).status).toBe(200);
      const mcp = await fetch(`${rotating.url}/mcp/task`, {
        method: 'POST',
        headers: { authorization: `Bearer ${old}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(mcp.status).toBe(401);
      const message = ((await mcp.json()) as { error: { message: string } }).error.message;
      expect(message).toContain(`the token is in the file serve-token-127.0.0.1-${port}`);
      const c = new Client({ name: 'rotated', version: '1' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${rotating.url}/mcp/open`), {
          requestInit: { headers: { Authorization: `Bearer ${current}` } },
        }),
      );
      expect((await c.callTool({ name: 'read', arguments: { path: 'README.md' } })).isError).toBeFalsy();
      await c.close();
    } finally {
      await rotating.close();
    }
  });
});

describe('--no-token', () => {
  it('serves a loopback address without any header', async () => {
    const open = await serveHttp(host, { address: parseListenAddress('127.0.0.1:0'), token: null });
    try {
      const c = new Client({ name: 'no-token', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${open.url}/mcp/open`)));
      expect((await c.callTool({ name: 'read', arguments: { path: 'README.md' } })).isError).toBeFalsy();
      await c.close();
    } finally {
      await open.close();
    }
  });

  it('is refused for any other address', async () => {
    await expect(serveHttp(host, { address: parseListenAddress('0.0.0.0:0'), token: null })).rejects.toThrow(InsecureBindError);
  });
});
