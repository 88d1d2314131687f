/**
 * Attack class M (concurrency and lost updates), inside one process: many edits racing on one
 * file through different conversations, layer objects, routes and hosts. The promise checked
 * is the user's: every edit reported ok is in the file at the end (and, where nothing else can
 * refuse them, every edit is reported ok).
 *
 * The cross-process cases (real `gatefs call` processes, a killed lock holder) are in
 * m-lost-updates-cli.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import type { Host } from '../../src/host/composition/host.js';
import type { ToolResult } from '../../tools/result.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SLOTS = 200;
/** One line per slot: `slot-007 = _`; an edit claims a slot by replacing its `_`. */
const slots = (n = SLOTS) => Array.from({ length: n }, (_, i) => `slot-${String(i).padStart(3, '0')} = _\n`).join('');
const claim = (slot: number, who: string) => ({
  oldString: `slot-${String(slot).padStart(3, '0')} = _\n`,
  newString: `slot-${String(slot).padStart(3, '0')} = ${who}\n`,
});

function repo(files: Record<string, string> = { 'README.md': '# demo\n' }): TempRepo {
  const r = makeTempRepo(files);
  cleanups.push(() => r.cleanup());
  return r;
}

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatefs-m-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

function manifest(backend: string, mounts: { path: string; writable: boolean }[] = []) {
  return { roles: [{ name: 'r', tools: ['read', 'grep', 'list', 'edit', 'write'], workspace: { backend, mounts } }] };
}

async function open(repoDir: string, m: object): Promise<Host> {
  const host = await createHost({ repo: repoDir, manifest: m });
  cleanups.push(() => host.close());
  return host;
}

/**
 * Fires `perCaller` edits from every caller at once (interleaved), each claiming its own slot,
 * and returns which slots were reported ok and what every call answered.
 */
async function race(callers: { who: string; call: (args: object) => Promise<ToolResult> }[], path: string, perCaller: number) {
  const calls: Promise<{ who: string; slot: number; result: ToolResult }>[] = [];
  for (let i = 0; i < perCaller; i++) {
    for (const [c, caller] of callers.entries()) {
      const slot = i * callers.length + c;
      calls.push(caller.call({ path, ...claim(slot, caller.who) }).then((result) => ({ who: caller.who, slot, result })));
    }
  }
  return Promise.all(calls);
}

/** Asserts every edit reported ok is in `text`, and that exactly those slots (no others) are claimed. */
function expectEveryOkPresent(outcomes: Awaited<ReturnType<typeof race>>, text: string): void {
  const missing = outcomes.filter((o) => o.result.ok && !text.includes(claim(o.slot, o.who).newString)).map((o) => o.slot);
  expect(missing, 'edits reported ok but missing from the file').toEqual([]);
  const claimed = text.split('\n').filter((l) => l !== '' && !l.endsWith('= _')).length;
  expect(claimed).toBe(outcomes.filter((o) => o.result.ok).length);
}

describe('no lost updates inside one process', () => {
  it('2 conversations × 100 concurrent edits on one file of a shared writable absolute mount: all ok, all present', async () => {
    const data = folder({ 'board.txt': slots() });
    const host = await open(repo().dir, manifest('worktree', [{ path: data, writable: true }]));
    await host.prepare({ conversation: 'a' });
    await host.prepare({ conversation: 'b' });
    const outcomes = await race(
      ['a', 'b'].map((who) => ({ who, call: (args: object) => host.gate.call(who, 'edit', args) })),
      `${data}/board.txt`,
      100,
    );
    expect(outcomes.filter((o) => !o.result.ok).map((o) => o.result)).toEqual([]);
    expectEveryOkPresent(outcomes, readFileSync(join(data, 'board.txt'), 'utf8'));
  });

  it('2 conversations × 100 concurrent edits on one file of the shared backend: all ok, all present', async () => {
    const r = repo({ 'README.md': '# demo\n', 'board.txt': slots() });
    const host = await open(r.dir, manifest('shared'));
    await host.prepare({ conversation: 'a' });
    await host.prepare({ conversation: 'b' });
    const outcomes = await race(
      ['a', 'b'].map((who) => ({ who, call: (args: object) => host.gate.call(who, 'edit', args) })),
      'board.txt',
      100,
    );
    expect(outcomes.filter((o) => !o.result.ok).map((o) => o.result)).toEqual([]);
    expectEveryOkPresent(outcomes, readFileSync(join(r.dir, 'board.txt'), 'utf8'));
  });

  it('two hosts over one repository in one process (shared backend): every edit of both lands', async () => {
    const r = repo({ 'README.md': '# demo\n', 'board.txt': slots() });
    const one = await open(r.dir, manifest('shared'));
    const two = await open(r.dir, manifest('shared'));
    await one.prepare({ conversation: 'a' });
    await two.prepare({ conversation: 'b' });
    const outcomes = await race(
      [
        { who: 'a', call: (args: object) => one.gate.call('a', 'edit', args) },
        { who: 'b', call: (args: object) => two.gate.call('b', 'edit', args) },
      ],
      'board.txt',
      100,
    );
    expect(outcomes.filter((o) => !o.result.ok).map((o) => o.result)).toEqual([]);
    expectEveryOkPresent(outcomes, readFileSync(join(r.dir, 'board.txt'), 'utf8'));
  });

  it('one file reached by two routes (the shared checkout and an absolute mount of its sub-folder) has one lock', async () => {
    const r = repo({ 'README.md': '# demo\n', 'data/board.txt': slots() });
    const host = await open(r.dir, manifest('shared', [{ path: join(r.dir, 'data'), writable: true }]));
    await host.prepare({ conversation: 'a' });
    await host.prepare({ conversation: 'b' });
    const outcomes = await race(
      [
        { who: 'a', call: (args: object) => host.gate.call('a', 'edit', args) },
        // b names the same file by the mount's absolute namespace path.
        { who: 'b', call: (args: object) => host.gate.call('b', 'edit', { ...args, path: `${join(r.dir, 'data')}/board.txt` }) },
      ],
      'data/board.txt',
      60,
    );
    expect(outcomes.filter((o) => !o.result.ok).map((o) => o.result)).toEqual([]);
    expectEveryOkPresent(outcomes, readFileSync(join(r.dir, 'data/board.txt'), 'utf8'));
  });

  it('edits racing read + write(expectedSha256) loops: every write answers ok or STALE_CONTENT, and nothing reported ok is lost', async () => {
    const data = folder({ 'board.txt': slots(60) });
    const host = await open(repo().dir, manifest('worktree', [{ path: data, writable: true }]));
    await host.prepare({ conversation: 'a' });
    await host.prepare({ conversation: 'b' });
    const path = `${data}/board.txt`;
    // b appends lines the way an agent would: read, write with the sha it read, again on STALE_CONTENT.
    const stale: number[] = [];
    const appends = (async () => {
      for (let i = 0; i < 10; i++) {
        for (;;) {
          const read = await host.gate.call('b', 'read', { path });
          const { content, sha256 } = (read as { value: { content: string; sha256: string } }).value;
          const written = await host.gate.call('b', 'write', { path, content: `${content}appended ${i}\n`, expectedSha256: sha256 });
          if (written.ok) break;
          expect(written.error.code).toBe('STALE_CONTENT');
          stale.push(i);
        }
      }
    })();
    const edits = race([{ who: 'a', call: (args: object) => host.gate.call('a', 'edit', args) }], path, 60);
    const [, edited] = await Promise.all([appends, edits]);
    const text = readFileSync(join(data, 'board.txt'), 'utf8');
    expect(edited.filter((o) => !o.result.ok)).toEqual([]);
    for (const o of edited) expect(text).toContain(claim(o.slot, 'a').newString);
    for (let i = 0; i < 10; i++) expect(text).toContain(`appended ${i}\n`);
  });

  it('copy backend: one conversation served by two hosts (two overlays over one upper folder), 2 × 50 edits of a file still in the lower', async () => {
    const r = repo({ 'README.md': '# demo\n', 'board.txt': slots(100) });
    const one = await open(r.dir, manifest('copy'));
    await one.prepare({ conversation: 'c' });
    const two = await open(r.dir, manifest('copy'));
    // Both overlays have looked at the upper before anything was copied up into it.
    for (const host of [one, two]) expect(await host.gate.call('c', 'read', { path: 'board.txt', limit: 1 })).toMatchObject({ ok: true });
    const outcomes = await race(
      [
        { who: 'one', call: (args: object) => one.gate.call('c', 'edit', args) },
        { who: 'two', call: (args: object) => two.gate.call('c', 'edit', args) },
      ],
      'board.txt',
      50,
    );
    expect(outcomes.filter((o) => !o.result.ok).map((o) => o.result)).toEqual([]);
    expectEveryOkPresent(outcomes, readFileSync(join(r.dir, '.gatefs/copies/c/board.txt'), 'utf8'));
    expect(readFileSync(join(r.dir, 'board.txt'), 'utf8')).toBe(slots(100));
  });

  it('memory host: 2 conversations × 100 concurrent edits on the shared backend all land', async () => {
    const host = await createMemoryHost({ files: { 'README.md': '# demo\n', 'board.txt': slots() }, manifest: manifest('shared') });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'a' });
    await host.prepare({ conversation: 'b' });
    const outcomes = await race(
      ['a', 'b'].map((who) => ({ who, call: (args: object) => host.gate.call(who, 'edit', args) })),
      'board.txt',
      100,
    );
    expect(outcomes.filter((o) => !o.result.ok).map((o) => o.result)).toEqual([]);
    expectEveryOkPresent(outcomes, String(host.volume.readFileSync('/repo/board.txt', 'utf8')));
  });
});
