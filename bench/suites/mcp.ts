/**
 * MCP round trips: the same SDK client against the MCP reference filesystem server
 * (`@modelcontextprotocol/server-filesystem`) and against `gatefs serve` (stdio), both serving
 * the same folder. Medians of read 4 KiB, write 4 KiB, edit, list one folder, and a recursive
 * `**\/*.js` search over a copy of node_modules (its search_files vs gatefs list with a pattern).
 * gatefs uses the `shared` backend here so both servers touch the very same files. Writes are
 * measured under both write policies (`writes: { fsync }`, src/manifest/types.ts `WritePolicy`):
 * the default (no fsync, as the reference server) and a second server with `fsync: true`.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { measurePair, type Report } from '../harness.js';

const SUITE = 'mcp';
const root = fileURLToPath(new URL('../../../', import.meta.url));

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'gatefs-bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as { type: string; text?: string }[])[0]?.text ?? '';
  if (r.isError) throw new Error(`${name} failed: ${text.slice(0, 200)}`);
  return text;
}

/** Runs the suite; the temp folder and both servers are gone when it returns. */
export async function run(report: Report): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'gatefs-bench-mcp-'));
  const dir = join(tmp, 'content');
  const clients: Client[] = [];
  try {
    mkdirSync(join(dir, 'folder'), { recursive: true });
    const kib4 = `${'x'.repeat(63)}\n`;
    writeFileSync(join(dir, 'read.txt'), kib4.repeat(64));
    writeFileSync(join(dir, 'edit.txt'), `${kib4.repeat(32)}marker-A\n${kib4.repeat(31)}`);
    for (let i = 0; i < 100; i++) writeFileSync(join(dir, 'folder', `file-${String(i).padStart(3, '0')}.txt`), `file ${i}\n`);
    cpSync(join(root, 'node_modules'), join(dir, 'deps'), { recursive: true, verbatimSymlinks: true });
    const manifest = join(tmp, 'gatefs.yaml');
    const roles = 'roles:\n  - name: bench\n    tools: [read, grep, list, edit, write]\n    workspace:\n      backend: shared\n';
    writeFileSync(manifest, roles);
    const syncedManifest = join(tmp, 'gatefs-fsync.yaml');
    writeFileSync(syncedManifest, `${roles}writes:\n  fsync: true\n`);

    const reference = await connect(process.execPath, [
      join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'),
      dir,
    ]);
    clients.push(reference);
    const serve = (state: string, manifestFile: string) =>
      connect(process.execPath, [
        join(root, 'dist/src/cli/main.js'),
        'serve',
        '--repo',
        dir,
        '--state-dir',
        join(tmp, state),
        '--manifest',
        manifestFile,
        '--conversation',
        'bench',
      ]);
    const gatefs = await serve('state', manifest);
    clients.push(gatefs);
    const synced = await serve('state-fsync', syncedManifest);
    clients.push(synced);

    const ref = (p: string) => join(dir, p);
    const content = kib4.repeat(64);
    let refMarker = 'A';
    let gateMarker = 'A';
    const cases: {
      name: string;
      subject: () => Promise<unknown>;
      baseline: () => Promise<unknown>;
      iterations: number;
      target: number;
      note?: string;
    }[] = [
      {
        name: 'read 4 KiB',
        subject: () => call(gatefs, 'read', { path: 'read.txt' }),
        baseline: () => call(reference, 'read_text_file', { path: ref('read.txt') }),
        iterations: 200,
        target: 1.0,
      },
      {
        name: 'write 4 KiB',
        subject: () => call(gatefs, 'write', { path: 'write.txt', content }),
        baseline: () => call(reference, 'write_file', { path: ref('write-ref.txt'), content }),
        iterations: 200,
        target: 1.0,
        note: 'the default write policy: atomic rename, no fsync',
      },
      {
        name: 'write 4 KiB, writes: { fsync: true }',
        subject: () => call(synced, 'write', { path: 'write-synced.txt', content }),
        baseline: () => call(reference, 'write_file', { path: ref('write-ref.txt'), content }),
        iterations: 200,
        target: 1.0,
        note: 'atomic rename plus fdatasync of the file and fsync of its folder; the reference never syncs',
      },
      {
        name: 'edit',
        subject: async () => {
          const next = gateMarker === 'A' ? 'B' : 'A';
          await call(gatefs, 'edit', { path: 'edit.txt', oldString: `marker-${gateMarker}`, newString: `marker-${next}` });
          gateMarker = next;
        },
        baseline: async () => {
          const next = refMarker === 'A' ? 'B' : 'A';
          await call(reference, 'edit_file', {
            path: ref('edit-ref.txt'),
            edits: [{ oldText: `marker-${refMarker}`, newText: `marker-${next}` }],
          });
          refMarker = next;
        },
        iterations: 200,
        target: 1.0,
      },
      {
        name: 'list one folder (100 files)',
        subject: () => call(gatefs, 'list', { path: 'folder' }),
        baseline: () => call(reference, 'list_directory', { path: ref('folder') }),
        iterations: 200,
        target: 1.0,
      },
      {
        name: 'recursive **/*.js search over node_modules',
        subject: () => call(gatefs, 'list', { path: 'deps', pattern: '**/*.js', maxResults: 100_000 }),
        baseline: () => call(reference, 'search_files', { path: ref('deps'), pattern: '**/*.js' }),
        iterations: 10,
        target: 0.1,
        note: 'search_files vs list with a pattern',
      },
    ];
    cpSync(join(dir, 'edit.txt'), join(dir, 'edit-ref.txt'));
    const refFound = (await call(reference, 'search_files', { path: ref('deps'), pattern: '**/*.js' })).split('\n').length;
    const gateFound = (await call(gatefs, 'list', { path: 'deps', pattern: '**/*.js', maxResults: 100_000 })).split('\n').length;
    report.note(
      SUITE,
      `recursive search: the reference found ${refFound} paths, gatefs ${gateFound} (both over the same copy of node_modules)`,
    );
    for (const c of cases) {
      try {
        const { subjectUs, baselineUs } = await measurePair(c.subject, c.baseline, {
          iterations: c.iterations,
          warmup: c.iterations >= 100 ? 20 : 1,
          rounds: c.iterations >= 100 ? 5 : 2,
        });
        report.compare({
          suite: SUITE,
          name: c.name,
          subjectUs,
          baselineUs,
          baseline: 'reference server-filesystem',
          target: c.target,
          ...(c.note ? { note: c.note } : {}),
        });
      } catch (e) {
        report.skip({ suite: SUITE, name: c.name, reason: `failed: ${(e as Error).message}` });
      }
    }
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}
