/**
 * A second `gatefs serve --http` on a port that a running server holds: it fails with one line
 * saying what to do, and leaves the running server's token file alone (found in the new-user
 * trial: the failed start replaced the token file in the state dir, so clients configured from that file
 * got 401 from the server that was still running).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatefs, sampleRepo } from './run-gatefs.js';
import { httpClient, startHttpServer, type HttpServer } from '../mcp/mcp-client.js';

let repo: ReturnType<typeof sampleRepo>;
let running: HttpServer;

beforeAll(async () => {
  repo = sampleRepo();
  expect((await gatefs(['prepare', 'p1', '--repo', repo.dir])).code).toBe(0);
  running = await startHttpServer(['--repo', repo.dir], repo.root);
});
afterAll(async () => {
  await running?.stop();
  repo?.cleanup();
});

describe('serve --http on a port already in use', () => {
  it('exits 1 with EADDRINUSE and a hint; the running server keeps its token file and its clients', async () => {
    const tokenFile = join(repo.dir, '.gatefs', `serve-token-127.0.0.1-${running.port}`);
    expect(readFileSync(tokenFile, 'utf8')).toBe(`${running.token}\n`);
    const second = await gatefs(['serve', '--http', `127.0.0.1:${running.port}`, '--repo', repo.dir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /^gatefs: error: EADDRINUSE: .*\(another program \(another gatefs serve\?\) listens there: stop it, or pass --http another port\)$/m,
    );
    expect(second.stderr).not.toMatch(/bearer token for/);
    expect(readFileSync(tokenFile, 'utf8')).toBe(`${running.token}\n`);
    const client = await httpClient(`${running.base}/mcp/p1`, { Authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` });
    await client.close();
  });
});
