import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { disclosureRecords, files, manifest } from './fixture.js';

async function prepared(role = 'implementer', id = 'a') {
  const host = await createMemoryHost({ files, manifest });
  await host.prepare({ conversation: id, role });
  return host;
}

const listed = async (host: Awaited<ReturnType<typeof prepared>>, id = 'a') => {
  const r = await host.gate.call(id, 'list', { path: '.', pattern: '**' });
  if (!r.ok) throw new Error(r.error.code);
  return (r.value as { entries: { path: string; type: string }[] }).entries
    .filter((e) => e.type === 'file')
    .map((e) => e.path)
    .sort();
};

describe('progressive disclosure in the memory host', () => {
  it('starts with only the initial paths, through the tools and in the worktree folder', async () => {
    const host = await prepared();
    expect(await listed(host)).toEqual(['README.md', 'src/schema/card.ts']);
    expect(host.volume.readdirSync('/state/worktrees/a/src/schema')).toEqual(['card.ts']);
    expect(host.volume.existsSync('/state/worktrees/a/src/secret.ts')).toBe(false);
    const grep = await host.gate.call('a', 'grep', { pattern: 'export' });
    expect(grep).toMatchObject({ ok: true, value: { files: ['src/schema/card.ts'] } });
    expect(host.gate.tools('a').map((t) => t.name)).toContain('request_files');
    await host.close();
  });

  it('hints NOT_DISCLOSED inside allowed_paths and NOT_FOUND outside, like a missing file', async () => {
    const host = await prepared();
    const read = (path: string) => host.gate.call('a', 'read', { path });
    expect(await read('src/schema/deck.ts')).toMatchObject({ ok: false, error: { code: 'NOT_DISCLOSED', path: 'src/schema/deck.ts' } });
    expect(await read('tests/schema/card.test.ts')).toMatchObject({ ok: false, error: { code: 'NOT_DISCLOSED' } });
    const secret = await read('src/secret.ts');
    const missing = await read('src/nothing-here.ts');
    expect(secret).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(secret.ok ? null : secret.error.message.replace('secret', 'X')).toBe(
      missing.ok ? null : missing.error.message.replace('nothing-here', 'X'),
    );
    expect(await read('src/schema/nope.ts')).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await host.gate.call('a', 'edit', { path: 'src/schema/deck.ts', oldString: 'Deck', newString: 'D' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_DISCLOSED' },
    });
    expect(await host.gate.call('a', 'write', { path: 'src/schema/deck.ts', content: 'clobber' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_DISCLOSED' },
    });
    expect(host.volume.existsSync('/state/worktrees/a/src/schema/deck.ts')).toBe(false);
    await host.close();
  });

  it('never shows undisclosed files through list or grep, even when named', async () => {
    const host = await prepared();
    expect(await host.gate.call('a', 'grep', { pattern: 'Deck|hunter2|sibling', path: '.' })).toMatchObject({
      ok: true,
      value: { files: [] },
    });
    expect(await host.gate.call('a', 'grep', { pattern: 'export', path: 'src/schema', output: 'content' })).toMatchObject({
      ok: true,
      value: { matches: [{ path: 'src/schema/card.ts' }] },
    });
    expect(await host.gate.call('a', 'list', { path: 'src/schema' })).toMatchObject({
      ok: true,
      value: { entries: [{ path: 'src/schema/card.ts' }] },
    });
    expect(await host.gate.call('a', 'list', { path: 'src/schema/nested' })).toMatchObject({ ok: false, error: { code: 'NOT_DISCLOSED' } });
    expect(await host.gate.call('a', 'list', { path: 'docs' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await host.gate.call('a', 'grep', { pattern: 'x', path: 'src/secret.ts' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    await host.close();
  });

  it('treats a write over an undisclosed file outside the policy like a new file, revealing nothing', async () => {
    const host = await prepared();
    const created = await host.gate.call('a', 'write', { path: 'src/secret.ts', content: 'mine\n' });
    const fresh = await host.gate.call('a', 'write', { path: 'src/fresh.ts', content: 'mine\n' });
    expect(created).toMatchObject({ ok: true, value: { created: true } });
    expect(fresh).toMatchObject({ ok: true, value: { created: true } });
    expect(await host.gate.call('a', 'read', { path: 'src/secret.ts' })).toMatchObject({ ok: true, value: { content: 'mine\n' } });
    expect(JSON.stringify(host.events())).not.toContain('hunter2');
    await host.close();
  });

  it('approves exact files with the pinned bytes and records the request', async () => {
    const host = await prepared();
    host.volume.writeFileSync('/repo/src/schema/deck.ts', 'changed in the main checkout after pinning\n');
    const r = await host.gate.call('a', 'request_files', {
      paths: ['src/schema/deck.ts', '/worktrees/a/src/schema/nested/deep.ts'],
      reason: 'need the deck type',
    });
    expect(r).toEqual({ ok: true, value: { outcome: 'approved', disclosedPaths: ['src/schema/deck.ts', 'src/schema/nested/deep.ts'] } });
    expect(await host.gate.call('a', 'read', { path: 'src/schema/deck.ts' })).toMatchObject({
      ok: true,
      value: { content: files['src/schema/deck.ts'] },
    });
    expect(String(host.volume.readFileSync('/state/worktrees/a/src/schema/deck.ts', 'utf8'))).toBe(files['src/schema/deck.ts']);
    expect(await listed(host)).toEqual(['README.md', 'src/schema/card.ts', 'src/schema/deck.ts', 'src/schema/nested/deep.ts']);
    expect(disclosureRecords(host.events())).toEqual([
      {
        role: 'implementer',
        visit: 1,
        request: 1,
        requested: ['src/schema/deck.ts', '/worktrees/a/src/schema/nested/deep.ts'],
        reason: 'need the deck type',
        outcome: 'approved',
        disclosed: ['src/schema/deck.ts', 'src/schema/nested/deep.ts'],
        problems: [],
      },
    ]);
    await host.close();
  });

  it('is idempotent for already-disclosed paths', async () => {
    const host = await prepared();
    const ask = { paths: ['src/schema/card.ts', './src/schema/card.ts'], reason: 'again' };
    expect(await host.gate.call('a', 'request_files', ask)).toEqual({
      ok: true,
      value: { outcome: 'approved', disclosedPaths: ['src/schema/card.ts'] },
    });
    expect(disclosureRecords(host.events())[0]).toMatchObject({ outcome: 'approved', disclosed: [] });
    expect(await listed(host)).toEqual(['README.md', 'src/schema/card.ts']);
    await host.close();
  });

  it.each([
    ['a sibling of an allowed root', 'src/schemas/other.ts', 'denied', 'NOT_FOUND'],
    ['an allowed root itself (a folder)', 'src/schema', 'denied', 'IS_DIRECTORY'],
    ['a folder below an allowed root', 'src/schema/nested', 'denied', 'IS_DIRECTORY'],
    ['an existing file outside the policy', 'src/secret.ts', 'denied', 'NOT_FOUND'],
    ['a missing file outside the policy', 'src/missing.ts', 'denied', 'NOT_FOUND'],
    ['a climb out of the namespace', '../../etc/passwd', 'denied', 'PATH_ESCAPE'],
    ['a climb that re-enters', '../a/src/schema/deck.ts', 'denied', 'PATH_ESCAPE'],
    ['another conversation', '/worktrees/b/src/schema/deck.ts', 'denied', 'OUTSIDE_MOUNTS'],
    ['a host path', '/etc/passwd', 'denied', 'OUTSIDE_MOUNTS'],
    ['a backslash', 'src\\schema\\deck.ts', 'denied', 'BAD_NAME'],
    ['a NUL byte', 'src/schema/deck.ts\u0000', 'denied', 'BAD_NAME'],
    ['a line break', 'src/schema/a\nb.ts', 'denied', 'BAD_NAME'],
    ['a 256-byte name', `src/schema/${'x'.repeat(256)}`, 'denied', 'NAME_TOO_LONG'],
    ['the git dir', '.git/config', 'denied', 'PROTECTED_PATH'],
    ['the workspace root', '.', 'denied', 'IS_DIRECTORY'],
    ['a glob', 'src/schema/*.ts', 'unavailable', 'NOT_FOUND'],
    ['a file absent from the pinned commit', 'src/schema/missing.ts', 'unavailable', 'NOT_FOUND'],
    ['a path through a file', 'src/schema/card.ts/x', 'unavailable', 'NOT_FOUND'],
  ])('refuses %s (%s)', async (_what, path, outcome, code) => {
    const host = await prepared();
    const before = await listed(host);
    const r = await host.gate.call('a', 'request_files', { paths: [path], reason: 'try' });
    expect(r).toMatchObject({ ok: true, value: { outcome, disclosedPaths: [], problems: [{ code }] } });
    expect(await listed(host)).toEqual(before);
    expect(disclosureRecords(host.events())).toEqual([
      expect.objectContaining({ outcome, disclosed: [], problems: [expect.objectContaining({ code })] }),
    ]);
    await host.close();
  });

  it('is all or nothing: one bad path leaves the projection and the folder unchanged', async () => {
    const host = await prepared();
    const denied = await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts', 'src/secret.ts'], reason: 'mixed' });
    expect(denied).toMatchObject({
      ok: true,
      value: { outcome: 'denied', disclosedPaths: [], problems: [{ path: 'src/secret.ts', code: 'NOT_FOUND' }] },
    });
    const unavailable = await host.gate.call('a', 'request_files', {
      paths: ['src/schema/deck.ts', 'src/schema/gone.ts'],
      reason: 'mixed',
    });
    expect(unavailable).toMatchObject({
      ok: true,
      value: { outcome: 'unavailable', problems: [{ path: 'src/schema/gone.ts', code: 'NOT_FOUND' }] },
    });
    const both = await host.gate.call('a', 'request_files', { paths: ['src/schema/gone.ts', '../x'], reason: 'mixed' });
    expect(both).toMatchObject({ ok: true, value: { outcome: 'denied', problems: [{ code: 'NOT_FOUND' }, { code: 'PATH_ESCAPE' }] } });
    expect(await host.gate.call('a', 'read', { path: 'src/schema/deck.ts' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_DISCLOSED' },
    });
    expect(host.volume.existsSync('/state/worktrees/a/src/schema/deck.ts')).toBe(false);
    // `request` counts the conversation's requests; `visit` is its role's visit in the run (one conversation: 1).
    expect(disclosureRecords(host.events()).map((r) => [r.visit, r.request, r.outcome])).toEqual([
      [1, 1, 'denied'],
      [1, 2, 'unavailable'],
      [1, 3, 'denied'],
    ]);
    await host.close();
  });

  it('validates the arguments: 1–64 paths and a reason', async () => {
    const host = await prepared();
    const call = (args: unknown) => host.gate.call('a', 'request_files', args);
    expect(await call({ paths: [], reason: 'x' })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await call({ paths: Array.from({ length: 65 }, (_, i) => `src/schema/f${i}.ts`), reason: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT' },
    });
    expect(await call({ paths: ['src/schema/deck.ts'] })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await call({ paths: ['src/schema/deck.ts'], reason: '' })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await call({ paths: 'src/schema/deck.ts', reason: 'x' })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await call({ paths: [42], reason: 'x' })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await call({ paths: ['src/schema/deck.ts'], reason: 'x', glob: true })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT' },
    });
    expect(await call({ paths: Array.from({ length: 64 }, () => 'src/schema/deck.ts'), reason: 'x' })).toMatchObject({
      ok: true,
      value: { outcome: 'approved' },
    });
    await host.close();
  });

  it('never expands write authority: a read-only role gets disclosed files read-only', async () => {
    const host = await prepared('reviewer', 'r');
    expect(await host.gate.call('r', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'review' })).toMatchObject({
      ok: true,
      value: { outcome: 'approved' },
    });
    expect(await host.gate.call('r', 'write', { path: 'src/schema/deck.ts', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'TOOL_NOT_ALLOWED' },
    });
    expect(await host.gate.call('r', 'edit', { path: 'src/schema/deck.ts', oldString: 'Deck', newString: 'X' })).toMatchObject({
      ok: false,
      error: { code: 'TOOL_NOT_ALLOWED' },
    });
    expect(String(host.volume.readFileSync('/state/worktrees/r/src/schema/deck.ts', 'utf8'))).toBe(files['src/schema/deck.ts']);
    expect(await host.gate.call('r', 'read', { path: 'src/schema/card.ts' })).toMatchObject({ ok: true });
    await host.close();
  });

  it('discloses only what was requested', async () => {
    const host = await prepared();
    await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'one' });
    expect(await listed(host)).toEqual(['README.md', 'src/schema/card.ts', 'src/schema/deck.ts']);
    expect(host.volume.existsSync('/state/worktrees/a/src/schema/nested')).toBe(false);
    await host.close();
  });

  it('expands a folder in initial_paths to its files; a role without the policy sees everything', async () => {
    const host = await createMemoryHost({ files, manifest });
    await host.prepare({ conversation: 'd', role: 'docs' });
    await host.prepare({ conversation: 'w', role: 'worker' });
    expect(await listed(host, 'd')).toEqual(['docs/api.md', 'docs/guide.md']);
    expect((await listed(host, 'w')).filter((f) => f !== '.git')).toEqual(Object.keys(files).sort());
    expect(host.gate.tools('w').map((t) => t.name)).not.toContain('request_files');
    expect(await host.gate.call('w', 'request_files', { paths: ['src/secret.ts'], reason: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'TOOL_NOT_ALLOWED' },
    });
    expect(host.events().some((e) => e.type === 'progressive_disclosure')).toBe(false);
    await host.close();
  });

  it('lets the agent create and edit files as usual, and release sees disclosed edits as changes', async () => {
    const host = await prepared();
    expect(await host.gate.call('a', 'write', { path: 'src/schema/new.ts', content: 'new\n' })).toMatchObject({ ok: true });
    expect(await host.gate.call('a', 'edit', { path: 'src/schema/card.ts', oldString: 'id', newString: 'key' })).toMatchObject({
      ok: true,
    });
    expect(await listed(host)).toEqual(['README.md', 'src/schema/card.ts', 'src/schema/new.ts']);
    await expect(host.release('a')).rejects.toMatchObject({
      code: 'DIRTY_WORKTREE',
      data: { files: ['src/schema/card.ts', 'src/schema/new.ts'] },
    });
    await host.close();
  });

  it('releases a clean sparse worktree (undisclosed files are not "deleted")', async () => {
    const host = await prepared();
    await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'x' });
    expect(await host.release('a')).toMatchObject({ removed: true });
    await host.close();
  });

  it('1,000 sequential requests leave 1,000 records', async () => {
    const host = await prepared();
    const paths = ['src/schema/deck.ts', 'src/schema/nested/deep.ts', 'src/secret.ts', 'src/schema/missing.ts'];
    for (let i = 0; i < 1000; i++) await host.gate.call('a', 'request_files', { paths: [paths[i % 4]], reason: `r${i}` });
    const records = disclosureRecords(host.events());
    expect(records).toHaveLength(1000);
    expect(records.map((r) => r.request)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(new Set(records.map((r) => r.visit))).toEqual(new Set([1]));
    expect(records.filter((r) => r.outcome === 'approved')).toHaveLength(500);
    expect(records.filter((r) => (r.disclosed as string[]).length > 0)).toHaveLength(2);
    await host.close();
  });

  it('serializes concurrent requests of one conversation into a consistent projection', async () => {
    const host = await prepared();
    const asks = [
      ['src/schema/deck.ts'],
      ['src/schema/nested/deep.ts'],
      ['tests/schema/card.test.ts'],
      ['src/secret.ts'],
      ['src/schema/deck.ts', 'tests/schema/card.test.ts'],
    ];
    const results = await Promise.all(asks.map((paths, i) => host.gate.call('a', 'request_files', { paths, reason: `c${i}` })));
    expect(results.map((r) => (r.ok ? (r.value as { outcome: string }).outcome : r.error.code))).toEqual([
      'approved',
      'approved',
      'approved',
      'denied',
      'approved',
    ]);
    const records = disclosureRecords(host.events());
    expect(records.map((r) => r.reason)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(records.flatMap((r) => r.disclosed as string[]).sort()).toEqual([
      'src/schema/deck.ts',
      'src/schema/nested/deep.ts',
      'tests/schema/card.test.ts',
    ]);
    const expected = ['README.md', 'src/schema/card.ts', 'src/schema/deck.ts', 'src/schema/nested/deep.ts', 'tests/schema/card.test.ts'];
    expect(await listed(host)).toEqual(expected);
    expect(host.volume.existsSync('/state/worktrees/a/src/secret.ts')).toBe(false);
    await host.close();
  });

  it('gives a byte-identical run log for the same scenario', async () => {
    const run = async () => {
      const host = await prepared();
      await host.gate.call('a', 'read', { path: 'src/schema/deck.ts' });
      await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'x' });
      await host.gate.call('a', 'request_files', { paths: ['src/secret.ts'], reason: 'y' });
      const events = JSON.stringify(host.events());
      await host.close();
      return events;
    };
    expect(await run()).toBe(await run());
  });
});
