/**
 * `gatefs apply` under SIGKILL: the apply runs in a real child process that kills itself at each
 * save point (src/host/apply/apply-types.ts `APPLY_SAVE_POINTS`; the per-file ones after the
 * first and after the second file). After the kill every source file holds its old bytes or its
 * new ones (never a mix, never missing when it should not be), nothing outside the source
 * changed, and the next apply finishes the work: the source holds every change, no temp file is
 * left, the overlay is reset and a third apply has nothing to do.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { APPLY_SAVE_POINTS } from '../../src/host/apply/apply-types.js';
import { APPLY_MANIFEST } from './apply-manifest.js';
import { runChildScript } from './run-child-script.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const OLD: Record<string, string | null> = {
  'a.txt': 'a old\n',
  'b.txt': 'b old\n',
  'd/c.txt': 'c old\n',
  'gone.txt': 'gone\n',
  'e/new.txt': null,
};
const NEW: Record<string, string | null> = {
  'a.txt': 'a new\n',
  'b.txt': 'b new\n',
  'd/c.txt': 'c new\n',
  'gone.txt': null,
  'e/new.txt': 'added\n',
};

/** A plain folder with `OLD`, a copy workspace of it holding `NEW`, and the host closed again. */
async function prepared(): Promise<{ src: string; outside: string }> {
  const root = mkdtempSync(join(tmpdir(), 'gatefs-apply-crash-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const src = join(root, 'src');
  const outside = join(root, 'outside.txt');
  writeFileSync(outside, 'outside\n');
  for (const [path, content] of Object.entries(OLD)) {
    if (content === null) continue;
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), content);
  }
  const host = await createHost({ repo: src, manifest: APPLY_MANIFEST });
  try {
    await host.prepare({ conversation: 'c' });
    for (const [path, content] of Object.entries(NEW)) {
      const result =
        content === null ? await host.gate.call('c', 'delete', { path }) : await host.gate.call('c', 'write', { path, content });
      expect(result).toMatchObject({ ok: true });
    }
  } finally {
    await host.close();
  }
  return { src, outside };
}

/** Runs one apply in a child process. */
const runChild = (input: object) => runChildScript('apply-child.ts', input);

/** The source's files (temp files of an apply listed apart). */
function sourceFiles(src: string): { files: Record<string, string>; temps: string[] } {
  const files: Record<string, string> = {};
  const temps: string[] = [];
  const walk = (d: string, p: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (p === '' && e.name === '.gatefs') continue;
      if (e.isDirectory()) walk(join(d, e.name), `${p}${e.name}/`);
      else if (e.name.startsWith('.gatefs-apply-')) temps.push(p + e.name);
      else files[p + e.name] = readFileSync(join(d, e.name), 'utf8');
    }
  };
  walk(src, '');
  return { files, temps };
}

/** Asserts every path holds its old or its new version, and names the paths already new. */
function oldOrNew(src: string): string[] {
  const { files } = sourceFiles(src);
  const paths = new Set([...Object.keys(OLD), ...Object.keys(files)]);
  const done: string[] = [];
  for (const path of paths) {
    const now = files[path] ?? null;
    expect([OLD[path], NEW[path]], `${path} holds ${JSON.stringify(now)}`).toContain(now);
    if (now === NEW[path] && now !== OLD[path]) done.push(path);
  }
  return done.sort();
}

const CASES: [string, number][] = APPLY_SAVE_POINTS.flatMap((point): [string, number][] =>
  point === 'apply.temp_written' || point === 'apply.changed'
    ? [
        [point, 1],
        [point, 2],
      ]
    : [[point, 1]],
);

describe('gatefs apply under SIGKILL', () => {
  it.each(CASES)('killed at %s (passage %i): every file old or new, and the next apply finishes it', async (point, after) => {
    const { src, outside } = await prepared();
    const crashed = await runChild({ repo: src, conversation: 'c', crashAt: point, crashAfter: after });
    expect(crashed.signal, `the apply never reached '${point}': ${crashed.stderr}${crashed.stdout}`).toBe('SIGKILL');
    const done = oldOrNew(src);
    // Killed between a temp file's write and its rename: the temp is there, the name still old.
    if (point === 'apply.temp_written') expect(sourceFiles(src).temps).toHaveLength(1);
    if (point === 'apply.journaled') expect(done).toEqual([]);
    if (point === 'apply.changes_done' || point === 'apply.based' || point === 'apply.reset')
      expect(done).toEqual(['a.txt', 'b.txt', 'd/c.txt', 'e/new.txt', 'gone.txt']);

    const finished = await runChild({ repo: src, conversation: 'c' });
    expect(finished.code, finished.stderr).toBe(0);
    const report = JSON.parse(finished.stdout) as { complete: boolean; resumed: boolean; overlayReset: boolean };
    expect(report).toMatchObject({ complete: true, resumed: true, overlayReset: true });
    const after1 = sourceFiles(src);
    expect(after1.temps).toEqual([]);
    expect(after1.files).toEqual({ 'a.txt': 'a new\n', 'b.txt': 'b new\n', 'd/c.txt': 'c new\n', 'e/new.txt': 'added\n' });
    expect(readFileSync(outside, 'utf8')).toBe('outside\n');
    expect(readdirSync(join(src, '.gatefs/copies/c'))).toEqual(['.gatefs-overlay']);
    expect(readdirSync(join(src, '.gatefs/copies/c/.gatefs-overlay')).sort()).not.toContain('apply-journal.json');

    const host = await createHost({ repo: src, manifest: APPLY_MANIFEST });
    try {
      expect((await host.apply('c')).entries).toEqual([]);
      expect(await host.gate.call('c', 'read', { path: 'd/c.txt' })).toMatchObject({ ok: true, value: { content: 'c new\n' } });
      expect(await host.gate.call('c', 'read', { path: 'gone.txt' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      expect(statSync(join(src, 'a.txt')).mode & 0o777).toBe(0o644);
    } finally {
      await host.close();
    }
  });
});
