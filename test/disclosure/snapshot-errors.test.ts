/**
 * An unreadable pinned commit is never taken for "no such file": with a tree object of the
 * pinned commit gone from the object store, a path the policy allows answers `INTERNAL` to
 * reads and writes (not `NOT_FOUND`, not a write over a hidden name), and `request_files`
 * answers `unavailable` / `INTERNAL` with what failed in the run-log record. A checkout that
 * fails says what failed in the record too.
 */
import git, { type FsClient } from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { disclosureRecords, files, manifest } from './fixture.js';

async function withTreeGone(folder: string) {
  const host = await createMemoryHost({ files, manifest });
  await host.prepare({ conversation: 'a' });
  const fs = host.volume as unknown as FsClient;
  const commit = host.status()[0].pinnedSha!;
  const { oid } = await git.readTree({ fs, dir: '/repo', oid: commit, filepath: folder });
  host.volume.unlinkSync(`/repo/.git/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
  return host;
}

describe('an unreadable pinned commit', () => {
  it('answers INTERNAL to reads and writes of a path the policy allows, and changes nothing', async () => {
    const host = await withTreeGone('tests/schema');
    const path = 'tests/schema/card.test.ts';
    expect(await host.gate.call('a', 'read', { path })).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(await host.gate.call('a', 'write', { path, content: 'x' })).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(host.volume.existsSync('/state/worktrees/a/tests')).toBe(false);
    // Outside the policy nothing asks the commit: absent stays NOT_FOUND.
    expect(await host.gate.call('a', 'read', { path: 'src/secret.ts' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    await host.close();
  });

  it('makes request_files unavailable with INTERNAL, and the record says what failed', async () => {
    const host = await withTreeGone('tests/schema');
    const r = await host.gate.call('a', 'request_files', { paths: ['tests/schema/card.test.ts'], reason: 'the test' });
    const problems = [{ path: 'tests/schema/card.test.ts', code: 'INTERNAL' }];
    expect(r).toMatchObject({ ok: true, value: { outcome: 'unavailable', problems } });
    expect(JSON.stringify(r)).not.toContain('detail');
    expect(disclosureRecords(host.events()).at(-1)).toMatchObject({
      outcome: 'unavailable',
      problems: [{ ...problems[0], detail: expect.stringContaining('INTERNAL: a git tree of the pinned commit cannot be read') }],
    });
    await host.close();
  });
});

describe('a checkout that fails', () => {
  it('is unavailable, and the record says what failed', async () => {
    const host = await createMemoryHost({ files, manifest });
    await host.prepare({ conversation: 'a' });
    // Another program made a folder where the requested file goes.
    host.volume.mkdirSync('/state/worktrees/a/src/schema/deck.ts');
    const r = await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'the deck' });
    expect(r).toMatchObject({ ok: true, value: { outcome: 'unavailable', problems: [{ path: 'src/schema/deck.ts', code: 'INTERNAL' }] } });
    const detail = expect.stringMatching(/^IS_DIRECTORY: /);
    expect(disclosureRecords(host.events()).at(-1)).toMatchObject({ problems: [{ code: 'INTERNAL', detail }] });
    await host.close();
  });
});
