/**
 * `host.apply` on the memory host: the same apply over memfs, for a plain folder (`git: false`)
 * and a git repository, with a run log that is byte-identical from one run of the same scenario
 * to the next; and a link swapped into the source between a file's temp write and its rename
 * (on disk) makes that file a conflict without a byte leaving the source.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { APPLY_MANIFEST } from './apply-manifest.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One scenario on a fresh memory host: edits, a conflict, a dry run, an apply; its report and run log. */
async function scenario(git: boolean) {
  const host = await createMemoryHost({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'd/c.txt': 'c\n' }, manifest: APPLY_MANIFEST, git });
  try {
    await host.prepare({ conversation: 'm' });
    for (const [tool, args] of [
      ['write', { path: 'a.txt', content: 'A\n' }],
      ['delete', { path: 'b.txt' }],
      ['write', { path: 'new/n.txt', content: 'n\n' }],
      ['write', { path: 'd/c.txt', content: 'C\n' }],
    ] as const)
      expect(await host.gate.call('m', tool, args)).toMatchObject({ ok: true });
    host.volume.writeFileSync('/repo/d/c.txt', 'theirs\n');
    const conflict = await host.apply('m');
    host.volume.writeFileSync('/repo/d/c.txt', 'c\n');
    const dry = await host.apply('m', { dryRun: true });
    const applied = await host.apply('m');
    const files = Object.fromEntries(
      ['a.txt', 'b.txt', 'd/c.txt', 'new/n.txt'].map((p) => [
        p,
        host.volume.existsSync(`/repo/${p}`) ? String(host.volume.readFileSync(`/repo/${p}`)) : null,
      ]),
    );
    const read = await host.gate.call('m', 'read', { path: 'new/n.txt' });
    const again = await host.apply('m');
    return { conflict, dry, applied, files, read, again, events: JSON.stringify(host.events()) };
  } finally {
    await host.close();
  }
}

describe('apply on the memory host', () => {
  it.each([
    ['a plain folder', false],
    ['a git repository', true],
  ])('applies over %s, and the same scenario gives the same run log', async (_name, git) => {
    const first = await scenario(git);
    expect(first.conflict.entries.find((e) => e.path === 'd/c.txt')).toMatchObject({ status: 'conflict' });
    expect(first.dry.entries.filter((e) => e.status === 'would-apply').map((e) => e.path)).toEqual([
      'a.txt',
      'b.txt',
      'd/c.txt',
      'new',
      'new/n.txt',
    ]);
    expect(first.applied).toMatchObject({ complete: true, overlayReset: !git, counts: { applied: 5, conflicts: 0 } });
    expect(first.files).toEqual({ 'a.txt': 'A\n', 'b.txt': null, 'd/c.txt': 'C\n', 'new/n.txt': 'n\n' });
    expect(first.read).toMatchObject({ ok: true, value: { content: 'n\n' } });
    expect(first.again.entries).toEqual([]);
    expect(first.events).toContain('"work.apply"');
    const second = await scenario(git);
    expect(second.events).toBe(first.events);
  });
});

describe('a link swapped into the source during an apply', () => {
  it('between the temp write and the rename: that file is a conflict and nothing is written outside', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gatefs-apply-swap-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const src = join(root, 'src');
    const outside = join(root, 'outside');
    mkdirSync(join(src, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(src, 'sub/f.txt'), 'inside\n');
    writeFileSync(join(outside, 'f.txt'), 'outside\n');
    const host = await createHost({ repo: src, manifest: APPLY_MANIFEST });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 's' });
    expect(await host.gate.call('s', 'write', { path: 'sub/f.txt', content: 'agent\n' })).toMatchObject({ ok: true });
    let swapped = false;
    const report = await host.apply('s', {
      savePoint: (point, path) => {
        if (point !== 'apply.temp_written' || path !== 'sub/f.txt') return;
        // The real folder (with the temp file in it) moves aside; a link to the outside takes its name.
        renameSync(join(src, 'sub'), join(root, 'moved'));
        symlinkSync(outside, join(src, 'sub'));
        swapped = true;
      },
    });
    expect(swapped).toBe(true);
    expect(report.entries).toEqual([expect.objectContaining({ path: 'sub/f.txt', status: 'conflict', code: 'SYMLINK_ESCAPE' })]);
    expect(readdirSync(outside)).toEqual(['f.txt']);
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('outside\n');
    expect(JSON.stringify(report)).not.toContain(root);
  });
});
