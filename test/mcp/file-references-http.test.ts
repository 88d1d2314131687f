/**
 * `POST /api/file-references/resolve` on a real `serveHttp` server over the memory host: a
 * resolved reference (200 `{ok, value}`), each refusal with its status and `{ok: false, error:
 * {code, message, data}}` (400 BAD_REFERENCE and its reason, 404, 410, 400 INVALID_INPUT for a
 * body of another shape, 413 past the cap), and nothing without the token: 401 for a missing or
 * wrong bearer header (the status page's cookie does not open it), 403 for a foreign Origin, 405 for GET.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryHost, type Host } from '../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http/http-server.js';
import { parseListenAddress } from '../../src/mcp/http/listen-address.js';
import { MAX_REFERENCE_BODY_BYTES } from '../../src/mcp/http/file-reference-route.js';

const TOKEN = 'file-references-test-token-0123456789';
let host: Host;
let server: RunningHttpServer;

beforeEach(async () => {
  host = await createMemoryHost({
    files: { 'README.md': '# refs\n', 'src/a.ts': 'a\n' },
    manifest: { roles: [{ name: 'wt', tools: ['read'], workspace: { backend: 'worktree' } }] },
  });
  await host.prepare({ conversation: 'task' });
  server = await serveHttp(host, { address: parseListenAddress('127.0.0.1:0'), token: TOKEN });
});

afterEach(async () => {
  await server?.close();
  await host?.close();
});

async function resolve(body: unknown, headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` }, method = 'POST') {
  const r = await fetch(`${server.url}/api/file-references/resolve`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: r.status, json: (await r.json()) as any, challenge: r.headers.get('www-authenticate') };
}

describe('POST /api/file-references/resolve', () => {
  it('answers a resolved reference in every form', async () => {
    const named = await resolve({ reference: '/worktrees/task/src/a.ts' });
    expect(named.status).toBe(200);
    expect(named.json).toEqual({
      ok: true,
      value: {
        reference: '/worktrees/task/src/a.ts',
        form: 'namespace',
        workspace: 'task',
        root: 'task',
        rootAnchor: '/worktrees/task',
        namespacePath: '/worktrees/task/src/a.ts',
        uri: 'workspace://task/src/a.ts?root=task',
        protected: false,
        hostPath: '/state/worktrees/task/src/a.ts',
        exists: true,
        type: 'file',
        alsoIn: [],
      },
    });
    const relative = await resolve({ reference: '../README.md', baseFile: 'workspace://task/src/a.ts' });
    expect(relative.json.value).toMatchObject({ form: 'relative', namespacePath: '/worktrees/task/README.md' });
    const home = await resolve({ reference: '/home/AGENTS.md', conversation: 'task' });
    expect(home.json.value).toMatchObject({ root: 'home', exists: true });
    expect((await resolve({ reference: '/repo/README.md' })).json.value.namespacePath).toBe('/canonical/README.md');
  });

  it('refuses with the error code, its reason and an HTTP status', async () => {
    const escape = await resolve({ reference: '../../x', baseFile: '/worktrees/task/README.md' });
    expect(escape.status).toBe(400);
    expect(escape.json).toMatchObject({ ok: false, error: { code: 'BAD_REFERENCE', data: { reason: 'PATH_ESCAPE' } } });
    expect((await resolve({ reference: 'workspace://task/%2e%2e/%2e%2e/x' })).json.error.data.reason).toBe('PATH_ESCAPE');
    expect((await resolve({ reference: 'workspace://task/a%00b' })).json.error.data.reason).toBe('BAD_FORM');
    expect((await resolve({ reference: 'x.ts' })).json.error.data.reason).toBe('NO_BASE');
    const unknown = await resolve({ reference: '/worktrees/nobody/x' });
    expect(unknown).toMatchObject({ status: 404, json: { ok: false, error: { code: 'UNKNOWN_CONVERSATION' } } });
    await host.release('task', { discard: true });
    const gone = await resolve({ reference: '/worktrees/task/README.md' });
    expect(gone).toMatchObject({ status: 410, json: { ok: false, error: { code: 'REFERENCE_GONE', data: { workspace: 'task' } } } });
    for (const body of [{}, { reference: 1 }, { reference: 'a', extra: 1 }, ['a'], 'not json', { reference: 'a', baseFile: null }]) {
      const r = await resolve(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error.code).toBe('INVALID_INPUT');
    }
    const huge = await resolve({ reference: 'x'.repeat(MAX_REFERENCE_BODY_BYTES) });
    expect(huge).toMatchObject({ status: 413, json: { ok: false, error: { code: 'TOO_LARGE' } } });
  });

  it('serves nothing without the token, to a foreign Origin, or to GET', async () => {
    const missing = await resolve({ reference: '/worktrees/task/README.md' }, {});
    expect(missing.status).toBe(401);
    expect(missing.challenge).toContain('Bearer');
    expect(missing.json).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    expect(JSON.stringify(missing.json)).not.toContain('/state');
    expect((await resolve({ reference: '/worktrees/task/README.md' }, { Authorization: 'Bearer wrong' })).status).toBe(401);
    // The status page's cookie opens the page only.
    const login = await fetch(`${server.url}/login`, {
      method: 'POST',
      body: `token=${TOKEN}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(cookie).toContain('gatefs_status_');
    expect((await resolve({ reference: '/worktrees/task/README.md' }, { Cookie: cookie })).status).toBe(401);
    const foreign = await resolve(
      { reference: '/worktrees/task/README.md' },
      { Authorization: `Bearer ${TOKEN}`, Origin: 'http://evil.example' },
    );
    expect(foreign.status).toBe(403);
    const get = await resolve(undefined, { Authorization: `Bearer ${TOKEN}` }, 'GET');
    expect(get.status).toBe(405);
  });
});
