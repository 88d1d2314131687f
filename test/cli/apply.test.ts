/**
 * `gatefs apply` through the built binary on a plain folder (not a git repository): a dry run
 * lists what would be written and writes nothing; the apply writes the copy's changes home and
 * exits 0; a conflict exits 1 naming the file, writes nothing, and `--json` gives the report;
 * `gatefs diff` on the copy points at `gatefs apply`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatefs } from './run-gatefs.js';

let root: string;
let src: string;
let manifest: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatefs-apply-cli-'));
  src = join(root, 'notes');
  manifest = join(root, 'gatefs.yaml');
  rmSync(src, { recursive: true, force: true });
  writeFileSync(
    manifest,
    ['roles:', '  - name: writer', '    tools: [read, write, edit, delete, diff]', '    workspace: { backend: copy }', ''].join('\n'),
  );
  mkdirSync(src);
  writeFileSync(join(src, 'todo.md'), '- buy milk\n');
  writeFileSync(join(src, 'ideas.md'), 'ideas\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const run = (...args: string[]) => gatefs(['--repo', src, '--manifest', manifest, ...args], { cwd: root });

async function ok(...args: string[]) {
  const r = await run(...args);
  expect(r.code, `gatefs ${args.join(' ')}: ${r.stderr}${r.stdout}`).toBe(0);
  return r;
}

describe('gatefs apply', () => {
  it('dry-runs, applies, and says when nothing is left; diff on the copy points at apply', async () => {
    await ok('prepare', 'n');
    await ok('call', 'n', 'write', JSON.stringify({ path: 'todo.md', content: '- buy milk\n- call mum\n' }));
    await ok('call', 'n', 'write', JSON.stringify({ path: 'week/monday.md', content: 'gym\n' }));
    await ok('call', 'n', 'delete', JSON.stringify({ path: 'ideas.md' }));

    const logged = (await ok('--json', 'log')).stdout;
    const dry = await ok('apply', 'n', '--dry-run');
    expect((await ok('--json', 'log')).stdout).toBe(logged);
    expect(dry.stdout).toContain('would apply modified todo.md');
    expect(dry.stdout).toContain('would apply deleted  ideas.md');
    expect(dry.stdout).toContain('dry run: 4 paths would be applied; nothing was written');
    expect(readFileSync(join(src, 'todo.md'), 'utf8')).toBe('- buy milk\n');

    const applied = await ok('apply', 'n');
    expect(applied.stdout).toContain('applied     added    week/monday.md');
    expect(applied.stdout).toContain('applied 4 paths; the copy now reads the source again');
    expect(readFileSync(join(src, 'todo.md'), 'utf8')).toBe('- buy milk\n- call mum\n');
    expect(readFileSync(join(src, 'week/monday.md'), 'utf8')).toBe('gym\n');
    expect(() => readFileSync(join(src, 'ideas.md'))).toThrow();
    expect((await ok('apply', 'n')).stdout).toContain('nothing to apply');

    const diff = await run('diff', 'n');
    expect(diff.code).toBe(1);
    expect(diff.stderr).toContain('BACKEND_UNAVAILABLE');
    expect(diff.stderr).toContain('gatefs apply n');
  });

  it('exits 1 on a conflict, naming the file, and writes nothing', async () => {
    await ok('prepare', 'n');
    await ok('call', 'n', 'write', JSON.stringify({ path: 'todo.md', content: 'agent\n' }));
    await ok('call', 'n', 'write', JSON.stringify({ path: 'ideas.md', content: 'agent ideas\n' }));
    writeFileSync(join(src, 'todo.md'), 'person\n');
    const conflict = await run('apply', 'n');
    expect(conflict.code).toBe(1);
    expect(conflict.stdout).toContain('CONFLICT    modified todo.md (the source changed since the copy started)');
    expect(conflict.stdout).toContain('skipped     modified ideas.md');
    expect(readFileSync(join(src, 'todo.md'), 'utf8')).toBe('person\n');
    expect(readFileSync(join(src, 'ideas.md'), 'utf8')).toBe('ideas\n');
    const json = await run('--json', 'apply', 'n', '--dry-run');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      dryRun: true,
      complete: false,
      counts: { conflicts: 1, skipped: 1 },
      entries: [
        { path: 'ideas.md', status: 'skipped' },
        { path: 'todo.md', status: 'conflict', code: 'CONFLICT' },
      ],
    });
  });
});
