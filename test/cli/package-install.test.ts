/**
 * The package as a user gets it: `npm pack`, then `npm install -g ./gatefs-*.tgz` in a clean
 * folder (dependencies from the npm registry), then the `gatefs` that install puts on PATH:
 * `--version`, the demo, a read-only command in a folder that is not a repository, the
 * README's Claude Code MCP snippet run from another folder over stdio (a read, and a regex grep
 * run by the installed worker modules), and the library entries (`gatefs`, `gatefs/testing`)
 * imported by a script beside the installed package.
 *
 * Speed: better-sqlite3 would compile from source here (no prebuilt binary can be fetched:
 * minutes on 2 cores). Its installer, prebuild-install, first looks for a local prebuild
 * (`npm_config_better_sqlite3_local_prebuilds`); the test gives it the binary the checkout's own
 * `npm ci` built, so the install takes seconds. GATEFS_PACK_FROM_SOURCE=1 skips that and lets it
 * compile, exactly as a user's machine without a prebuilt binary does.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, sampleRepo } from './run-gatefs.js';
import { readmeMcpConfig } from './readme-snippets.js';
import { runLoggingPackages } from './loaded-packages.js';

let work: string;
let prefix: string;
let packed: string[];
let env: Record<string, string>;
const bin = () => join(prefix, 'bin', 'gatefs');

/** A prebuild-install tarball of the binary `npm ci` built in this checkout. */
function localPrebuild(into: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${pkg.version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(into, { recursive: true });
  execFileSync('tar', ['-czf', join(into, name), '-C', join(ROOT, 'node_modules/better-sqlite3'), 'build/Release/better_sqlite3.node']);
  return into;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'gatefs-pack-'));
  prefix = join(work, 'prefix');
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' });
  packed = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  const clean = join(work, 'clean');
  mkdirSync(clean);
  const tarball = readdirSync(work).find((f) => /^gatefs-.*\.tgz$/.test(f))!;
  const fromSource = process.env.GATEFS_PACK_FROM_SOURCE === '1';
  const installEnv = {
    ...process.env,
    ...(fromSource ? {} : { npm_config_better_sqlite3_local_prebuilds: localPrebuild(join(work, 'prebuilds')) }),
  };
  execFileSync('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', join(work, tarball)], {
    cwd: clean,
    env: installEnv,
    stdio: 'pipe',
  });
  // PATH holds the installed gatefs and node, nothing of the checkout.
  env = { PATH: `${join(prefix, 'bin')}:/usr/local/bin:/usr/bin:/bin`, HOME: process.env.HOME ?? work, GATEFS_DEBUG: '' };
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed files', () => {
  it('hold what users run, and none of the tests or benchmarks', () => {
    expect(packed).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'SECURITY.md', 'dist/src/cli/main.js', 'dist/src/index.js']),
    );
    expect(packed).toContain('fixtures/sample-repo/gatefs.yaml');
    // The worker pool's modules, started by URL beside the code that starts them.
    expect(packed).toEqual(
      expect.arrayContaining(['dist/vfs/pool-worker.js', 'dist/vfs/host-read-program.js', 'dist/tools/grep/regex-search-program.js']),
    );
    expect(packed.filter((f) => /^dist\/(test|bench)\//.test(f))).toEqual([]);
    expect(packed.filter((f) => !/^(dist\/(src|tools|vfs)\/|fixtures\/sample-repo\/)/.test(f)).sort()).toEqual([
      'README.md',
      'SECURITY.md',
      'package.json',
    ]);
  });
});

describe('npm install -g of the tarball', () => {
  it('puts a gatefs on PATH that prints its version', () => {
    const r = spawnSync('gatefs', ['--version'], { cwd: work, env, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });

  it('runs the demo (SQLite, git and the sample repository all come with the install)', () => {
    const r = spawnSync('gatefs', ['demo'], { cwd: work, env, encoding: 'utf8', timeout: 120_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('READ_ONLY');
  });

  it('serve --help points at the installed command, never at npx from the registry', () => {
    const r = spawnSync('gatefs', ['serve', '--help'], { cwd: work, env, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('"command": "gatefs"');
    expect(r.stdout).not.toMatch(/"npx"/);
  });

  it('status in a folder that is not a repository creates nothing there', () => {
    const plain = join(work, 'plain');
    mkdirSync(plain);
    const r = spawnSync('gatefs', ['status'], { cwd: plain, env, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(readdirSync(plain)).toEqual([]);
  });

  it("the README's Claude Code snippet serves a repository over stdio from another folder", async () => {
    const repo = sampleRepo();
    try {
      const config = readmeMcpConfig('claude-code-stdio');
      const args = config.args.map((a) => (a === '/path/to/repo' ? repo.dir : a));
      const elsewhere = join(work, 'elsewhere');
      mkdirSync(elsewhere, { recursive: true });
      writeFileSync(join(elsewhere, 'note.txt'), 'not a repository\n');
      const transport = new StdioClientTransport({ command: bin(), args, cwd: elsewhere, env, stderr: 'pipe' });
      const client = new Client({ name: 'pack-test', version: '1' });
      await client.connect(transport);
      try {
        const r = await client.callTool({ name: 'read', arguments: { path: 'README.md' } });
        expect(r.isError).toBeFalsy();
        expect((r.structuredContent as { content: string }).content).toBe(readFileSync(join(repo.dir, 'README.md'), 'utf8'));
        // A regex grep: the files are read and the regex runs in the installed package's worker threads.
        const g = await client.callTool({ name: 'grep', arguments: { pattern: 'greet\\w+\\(' } });
        expect(g.isError).toBeFalsy();
        expect((g.structuredContent as { files: string[] }).files).toEqual(
          expect.arrayContaining([expect.stringMatching(/docs\/usage\.md$/), expect.stringMatching(/src\/greeting\.js$/)]),
        );
      } finally {
        await client.close();
      }
      expect(existsSync(join(elsewhere, '.gatefs'))).toBe(false);
    } finally {
      repo.cleanup();
    }
  }, 120_000);

  it('gatefs/testing builds a memory host from the installed package, and importing gatefs alone loads no memfs', () => {
    // A script beside the global node_modules resolves 'gatefs' as an installed dependency would.
    const lib = join(prefix, 'lib');
    const testing = runLoggingPackages(
      `import { createMemoryHost, ManualClock } from 'gatefs/testing';
const host = await createMemoryHost({ files: { 'README.md': '# hi\\n' }, clock: new ManualClock() });
await host.prepare({ conversation: 'c1' });
const wrote = await host.gate.call('c1', 'write', { path: 'notes.md', content: 'hello\\n' });
console.log(JSON.stringify({ ok: wrote.ok, events: host.events().length > 0 }));
await host.close();
`,
      [],
      lib,
    );
    expect(JSON.parse(testing.stdout)).toEqual({ ok: true, events: true });
    expect(testing.packages).toContain('memfs');
    const root = runLoggingPackages(
      `import { createHost, GitError } from 'gatefs';\nconsole.log(typeof createHost, typeof GitError);\n`,
      [],
      lib,
    );
    expect(root.stdout.trim()).toBe('function function');
    expect(root.packages).toContain('gatefs');
    expect(root.packages).not.toContain('memfs');
    expect(root.packages).not.toContain('isomorphic-git');
  }, 120_000);
});
