/**
 * MCP round trips: the same SDK client against the MCP reference filesystem server
 * (`@modelcontextprotocol/server-filesystem`) and against `gatefs serve` (stdio), both serving
 * the same folder. Medians of read 4 KiB, write 4 KiB, edit, list one folder, and a recursive
 * `**\/*.js` search over a copy of node_modules (its search_files vs gatefs list with a pattern),
 * and the same search over a 29,000-file monorepo built from real packages
 * (bench/monorepo-fixture.ts). gatefs uses the `shared` backend here so both servers touch the
 * very same files. The same searches as Claude Code's Glob under `serve --profile claude-code`
 * (files only, newest first), and the monorepo list over MCP against the same list through the
 * gate in this process: what serving the answer (the text, the structure, the SDK's checks, the
 * pipe, the client's parse and checks) adds to it.
 * Writes are measured under both write policies (`writes: { fsync }`, src/manifest/types.ts
 * `WritePolicy`): the default (no fsync, as the reference server) and a second server with
 * `fsync: true`.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { measurePair, type Report } from '../harness.js';
import { monorepoFixture } from '../monorepo-fixture.js';
import { createHost } from '../../src/host/composition/create-host.js';

const SUITE = 'mcp';

/**
 * Every row is measured twice: on a quiet machine, and with each core kept busy by a CPU-bound
 * process (an agent's host runs builds and tests beside gatefs; the busy processes run at the
 * same priority as both servers and the client).
 */
const LOADS: { suffix: string; during<T>(fn: () => Promise<T>): Promise<T> }[] = [
  { suffix: '', during: (fn) => fn() },
  { suffix: ', both cores busy', during: whileCoresBusy },
];

/** Runs `fn` while one CPU-bound process per core spins; they are killed when it settles. */
async function whileCoresBusy<T>(fn: () => Promise<T>): Promise<T> {
  const spinners = availableParallelism();
  const busy = Array.from({ length: spinners }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    await delay(200); // the spinners are running before the first sample
    return await fn();
  } finally {
    for (const child of busy) child.kill('SIGKILL');
  }
}
const root = fileURLToPath(new URL('../../../', import.meta.url));

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'gatefs-bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return client;
}

/** The bench role's manifest (shared backend), written under `tmp`. */
function benchManifest(tmp: string, name: string, extra = ''): string {
  const manifest = join(tmp, `${name}.yaml`);
  writeFileSync(
    manifest,
    `roles:\n  - name: bench\n    tools: [read, grep, list, edit, write]\n    workspace:\n      backend: shared\n${extra}`,
  );
  return manifest;
}

/** `gatefs serve` (stdio, shared backend) over `repo`, its state under `tmp`, with the tool profile `profile` and `extra` manifest lines. */
function serveGatefs(repo: string, tmp: string, name: string, profile = 'gatefs', extra = ''): Promise<Client> {
  const manifest = benchManifest(tmp, name, extra);
  return connect(process.execPath, [
    join(root, 'dist/src/cli/main.js'),
    'serve',
    '--repo',
    repo,
    '--state-dir',
    join(tmp, `${name}-state`),
    '--manifest',
    manifest,
    '--conversation',
    'bench',
    '--profile',
    profile,
  ]);
}

/** The reference filesystem server over `dir`. */
function serveReference(dir: string): Promise<Client> {
  return connect(process.execPath, [join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), dir]);
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
    const reference = await serveReference(dir);
    clients.push(reference);
    const gatefs = await serveGatefs(dir, tmp, 'content');
    clients.push(gatefs);
    const claude = await serveGatefs(dir, tmp, 'content-cc', 'claude-code');
    clients.push(claude);
    const synced = await serveGatefs(dir, tmp, 'content-fsync', 'gatefs', 'writes:\n  fsync: true\n');
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
      /** Reported as a note (no target): a comparison of different answers. */
      informational?: boolean;
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
        // The agent's list answer carries each entry's size (the contract's `size`; an lstat per
        // entry through the held folder, no round trip per entry), so the reference tool giving
        // the same answer is list_directory_with_sizes. Against list_directory (names and kinds
        // only) the ratio is a note: no answer with sizes can cost what one without them does.
        name: 'list one folder (100 files), sizes included as the agent gets them',
        subject: () => call(gatefs, 'list', { path: 'folder' }),
        baseline: () => call(reference, 'list_directory_with_sizes', { path: ref('folder') }),
        iterations: 200,
        target: 1.0,
        note: 'list_directory_with_sizes stats every entry too',
      },
      {
        name: 'list one folder (100 files) vs names-only list_directory (informational)',
        subject: () => call(gatefs, 'list', { path: 'folder' }),
        baseline: () => call(reference, 'list_directory', { path: ref('folder') }),
        iterations: 200,
        target: Number.POSITIVE_INFINITY,
        informational: true,
        note: 'gatefs still gives each entry its size; list_directory gives names and kinds only',
      },
      {
        name: 'recursive **/*.js search over node_modules',
        subject: () => call(gatefs, 'list', { path: 'deps', pattern: '**/*.js', maxResults: 100_000 }),
        baseline: () => call(reference, 'search_files', { path: ref('deps'), pattern: '**/*.js' }),
        iterations: 10,
        target: 0.1,
        note: 'search_files vs list with a pattern',
      },
      {
        name: 'recursive **/*.js Glob over node_modules (serve --profile claude-code)',
        subject: () => call(claude, 'Glob', { pattern: '**/*.js', path: 'deps' }),
        baseline: () => call(reference, 'search_files', { path: ref('deps'), pattern: '**/*.js' }),
        iterations: 10,
        target: 0.1,
        note: 'search_files vs Glob: files newest first, at most 100',
      },
    ];
    cpSync(join(dir, 'edit.txt'), join(dir, 'edit-ref.txt'));
    const refFound = (await call(reference, 'search_files', { path: ref('deps'), pattern: '**/*.js' })).split('\n').length;
    const gateFound = (await call(gatefs, 'list', { path: 'deps', pattern: '**/*.js', maxResults: 100_000 })).split('\n').length;
    report.note(
      SUITE,
      `recursive search: the reference found ${refFound} paths, gatefs ${gateFound} (both over the same copy of node_modules)`,
    );
    for (const load of LOADS) {
      await load.during(async () => {
        for (const c of cases) {
          try {
            // Busy cores make single samples jumpy (a woken server waits for a time slice):
            // twice the samples in twice the rounds, subject and baseline interleaved.
            const scale = load.suffix === '' ? 1 : 2;
            const { subjectUs, baselineUs } = await measurePair(c.subject, c.baseline, {
              iterations: c.iterations * scale,
              warmup: c.iterations >= 100 ? 20 : 1,
              rounds: (c.iterations >= 100 ? 5 : 2) * scale,
            });
            if (c.informational) {
              const ratio = (subjectUs / baselineUs).toFixed(3);
              report.note(
                SUITE,
                `${c.name}${load.suffix}: ${ratio}x (${(subjectUs / 1000).toFixed(2)} ms vs ${(baselineUs / 1000).toFixed(2)} ms; ${c.note})`,
              );
              continue;
            }
            report.compare({
              suite: SUITE,
              name: `${c.name}${load.suffix}`,
              subjectUs,
              baselineUs,
              baseline: 'reference server-filesystem',
              target: c.target,
              ...(c.note ? { note: c.note } : {}),
            });
          } catch (e) {
            report.skip({ suite: SUITE, name: `${c.name}${load.suffix}`, reason: `failed: ${(e as Error).message}` });
          }
        }
      });
    }
    await monorepoSearch(report, tmp, clients);
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The recursive search over the monorepo fixture (29,000 files), when node_modules is there to build it. */
async function monorepoSearch(report: Report, tmp: string, clients: Client[]): Promise<void> {
  const repo = monorepoFixture();
  if (!repo) {
    report.skip({ suite: SUITE, name: 'recursive **/*.js search over the monorepo', reason: 'node_modules is absent' });
    return;
  }
  const reference = await serveReference(repo);
  clients.push(reference);
  const gatefs = await serveGatefs(repo, tmp, 'monorepo');
  clients.push(gatefs);
  const subject = () => call(gatefs, 'list', { pattern: '**/*.js', maxResults: 100_000 });
  const baseline = () => call(reference, 'search_files', { path: repo, pattern: '**/*.js' });
  report.note(
    SUITE,
    `monorepo search: the reference found ${(await baseline()).split('\n').length} paths, gatefs ${(await subject()).split('\n').length}`,
  );
  for (const load of LOADS) {
    const m = await load.during(() => measurePair(subject, baseline, { iterations: 6, warmup: 0, rounds: 3 }));
    report.compare({
      suite: SUITE,
      name: `recursive **/*.js search over a 29,000-file monorepo${load.suffix}`,
      ...m,
      baseline: 'reference server-filesystem',
      target: 0.1,
      note: 'search_files vs list with a pattern',
    });
  }
  await servingCost(report, repo, tmp, subject);
}

/**
 * The monorepo list over MCP (`subject`) against the same list through the gate of a host in
 * this process, on the same folder: the ratio less one is what serving the answer costs.
 */
async function servingCost(report: Report, repo: string, tmp: string, subject: () => Promise<string>): Promise<void> {
  const host = await createHost({ repo, stateDir: join(tmp, 'in-process-state'), manifest: benchManifest(tmp, 'in-process') });
  try {
    await host.prepare({ conversation: 'bench', role: 'bench' });
    const args = { pattern: '**/*.js', maxResults: 100_000 };
    const inProcess = async () => {
      const r = await host.gate.call('bench', 'list', args);
      if (!r.ok) throw new Error(`list failed: ${r.error.code}`);
      return r;
    };
    const m = await measurePair(subject, inProcess, { iterations: 12, warmup: 1, rounds: 3 });
    report.compare({
      suite: SUITE,
      name: 'the monorepo **/*.js list over MCP (stdio) vs the same list through the gate in process',
      ...m,
      baseline: 'gatefs gate, in process',
      target: 1.15,
      note: 'what serving the answer adds',
    });
  } finally {
    await host.close();
  }
}
