import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { SwitchableExec } from '../host/switchable-exec.js';
import { disclosureRecords, files, manifest } from './fixture.js';

const open: { repo: TempRepo; hosts: Host[] }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    for (const h of o.hosts) await h.close();
    o.repo.cleanup();
  }
});

const odd = { 'src/schema/w[1] *.ts': 'odd name\n', 'src/schema/trailing ': 'trailing space\n', 'src/schema/#hash!.ts': 'hash\n' };

async function setup(role = 'implementer') {
  const repo = makeTempRepo({ ...files, ...odd });
  symlinkSync('../secret.ts', join(repo.dir, 'src/schema/link.ts'));
  writeFileSync(join(repo.dir, 'src/schema/run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  repo.commit('a link');
  const entry = { repo, hosts: [] as Host[] };
  open.push(entry);
  const exec = new SwitchableExec();
  const start = async () => {
    const host = await createHost({ repo: repo.dir, manifest, exec });
    entry.hosts.push(host);
    return host;
  };
  const host = await start();
  await host.prepare({ conversation: 'a', role });
  const worktree = join(repo.dir, '.gatefs/worktrees/a');
  /** Runs a command in a child process inside the worktree, as an agent's shell would. */
  const sh = (...argv: string[]) =>
    execFileSync(argv[0], argv.slice(1), { cwd: worktree, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }).trim();
  return { repo, host, exec, worktree, sh, start };
}

const filesOnDisk = (sh: (...a: string[]) => string) =>
  sh('find', '.', '-path', './.git', '-prune', '-o', '-type', 'f', '-print').split('\n').filter(Boolean).sort();

describe('progressive disclosure on disk (real git)', () => {
  it('materializes only the initial paths: absent for a process, skip-worktree in git, status clean', async () => {
    const { repo, sh } = await setup();
    expect(filesOnDisk(sh)).toEqual(['./README.md', './src/schema/card.ts']);
    expect(sh('ls', '-A', 'src')).toBe('schema');
    const tags = sh('git', 'ls-files', '-t').split('\n');
    expect(tags).toContain('H src/schema/card.ts');
    expect(tags).toContain('S src/secret.ts');
    expect(tags).toContain('S src/schema/deck.ts');
    expect(sh('git', 'status', '--porcelain')).toBe('');
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(repo.git('ls-files', '-t', 'src/secret.ts')).toBe('H src/secret.ts');
    expect(existsSync(join(repo.dir, 'src/secret.ts'))).toBe(true);
  });

  it('approves a request with the pinned bytes even after the main checkout changed', async () => {
    const { repo, host, sh, exec } = await setup();
    writeFileSync(join(repo.dir, 'src/schema/deck.ts'), 'edited in the main checkout\n');
    repo.commit('moved on');
    expect(await host.gate.call('a', 'request_files', { paths: ['src/schema/link.ts'], reason: 'a link' })).toMatchObject({
      ok: true,
      value: { outcome: 'unavailable', problems: [{ code: 'NOT_REGULAR_FILE' }] },
    });
    const r = await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts', ...Object.keys(odd)], reason: 'types' });
    expect(r).toEqual({ ok: true, value: { outcome: 'approved', disclosedPaths: ['src/schema/deck.ts', ...Object.keys(odd)] } });
    expect(readFileSync(join(sh('pwd'), 'src/schema/deck.ts'), 'utf8')).toBe(files['src/schema/deck.ts']);
    expect(await host.gate.call('a', 'read', { path: 'src/schema/w[1] *.ts' })).toMatchObject({
      ok: true,
      value: { content: 'odd name\n' },
    });
    expect(filesOnDisk(sh)).toEqual([
      './README.md',
      './src/schema/#hash!.ts',
      './src/schema/card.ts',
      './src/schema/deck.ts',
      './src/schema/trailing ',
      './src/schema/w[1] *.ts',
    ]);
    expect(sh('git', 'status', '--porcelain')).toBe('');
    await host.gate.call('a', 'request_files', { paths: ['src/schema/run.sh'], reason: 'a script' });
    expect(sh('./src/schema/run.sh')).toBe('hi');
    expect(sh('git', 'status', '--porcelain')).toBe('');
    rmSync(join(sh('pwd'), 'src/schema/run.sh'));
    sh('git', 'checkout', '--', 'src/schema/run.sh');
    sh('git', 'sparse-checkout', 'reapply');
    expect(filesOnDisk(sh)).toEqual([
      './README.md',
      './src/schema/#hash!.ts',
      './src/schema/card.ts',
      './src/schema/deck.ts',
      './src/schema/run.sh',
      './src/schema/trailing ',
      './src/schema/w[1] *.ts',
    ]);
    expect(exec.seen.filter((q) => q.tag === 'disclose')).toEqual([]);
  });

  it('makes disclosed files ordinary tracked files: an edit shows in git status and commits', async () => {
    const { host, sh } = await setup();
    await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'edit it' });
    expect(
      await host.gate.call('a', 'edit', { path: 'src/schema/deck.ts', oldString: 'Card[]', newString: 'readonly Card[]' }),
    ).toMatchObject({ ok: true });
    expect(sh('git', 'status', '--porcelain')).toBe('M src/schema/deck.ts');
    sh('git', '-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-qam', 'deck');
    expect(sh('git', 'show', '--stat', '--format=', 'HEAD')).toContain('src/schema/deck.ts');
    expect(sh('git', 'status', '--porcelain')).toBe('');
    expect(sh('git', 'ls-files', '-t', 'src/secret.ts')).toBe('S src/secret.ts');
  });

  it('checks, refuses and materializes without spawning any process', async () => {
    const { host, exec, sh } = await setup();
    exec.forbidden = true;
    const before = exec.seen.length;
    expect(await host.gate.call('a', 'request_files', { paths: ['src/secret.ts'], reason: 'x' })).toMatchObject({
      ok: true,
      value: { outcome: 'denied' },
    });
    expect(await host.gate.call('a', 'request_files', { paths: ['src/schema/gone.ts'], reason: 'x' })).toMatchObject({
      ok: true,
      value: { outcome: 'unavailable' },
    });
    expect(await host.gate.call('a', 'request_files', { paths: ['src/schema/card.ts'], reason: 'x' })).toMatchObject({
      ok: true,
      value: { outcome: 'approved' },
    });
    expect(await host.gate.call('a', 'read', { path: 'src/schema/deck.ts' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_DISCLOSED' },
    });
    expect(await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'x' })).toMatchObject({
      ok: true,
      value: { outcome: 'approved' },
    });
    expect(exec.seen.length).toBe(before);
    exec.forbidden = false;
    expect(filesOnDisk(sh)).toEqual(['./README.md', './src/schema/card.ts', './src/schema/deck.ts']);
    expect(sh('git', 'status', '--porcelain')).toBe('');
  });

  it('a workspace failure while materializing is unavailable and leaves disk and projection unchanged', async () => {
    const { host, sh, repo } = await setup();
    const patterns = join(repo.dir, '.git/worktrees/a/info/sparse-checkout');
    const saved = readFileSync(patterns, 'utf8');
    rmSync(patterns);
    mkdirSync(patterns);
    const r = await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts', 'src/schema/nested/deep.ts'], reason: 'x' });
    expect(r).toMatchObject({
      ok: true,
      value: {
        outcome: 'unavailable',
        disclosedPaths: [],
        problems: [
          { path: 'src/schema/deck.ts', code: 'INTERNAL' },
          { path: 'src/schema/nested/deep.ts', code: 'INTERNAL' },
        ],
      },
    });
    expect(filesOnDisk(sh)).toEqual(['./README.md', './src/schema/card.ts']);
    expect(await host.gate.call('a', 'read', { path: 'src/schema/deck.ts' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_DISCLOSED' },
    });
    rmSync(patterns, { recursive: true });
    writeFileSync(patterns, saved);
    expect(await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'x' })).toMatchObject({
      ok: true,
      value: { outcome: 'approved' },
    });
    expect(sh('git', 'sparse-checkout', 'list')).toBe('/README.md\n/src/schema/card.ts\n/src/schema/deck.ts');
    // A process in the worktree swaps a folder for a link to the outside: nothing is written there.
    const outside = join(repo.dir, '..', 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(sh('pwd'), 'tests'));
    const escape = await host.gate.call('a', 'request_files', { paths: ['tests/schema/card.test.ts'], reason: 'x' });
    expect(escape).toMatchObject({ ok: true, value: { outcome: 'unavailable', problems: [{ code: 'INTERNAL' }] } });
    expect(readdirSync(outside)).toEqual([]);
    expect(sh('git', 'sparse-checkout', 'list')).not.toContain('tests');
  });

  it('serializes concurrent requests: projection, files on disk and sparse patterns agree', async () => {
    const { host, sh } = await setup();
    const asks = [
      ['src/schema/deck.ts'],
      ['src/secret.ts'],
      ['tests/schema/card.test.ts', 'src/schema/nested/deep.ts'],
      ['src/schema/deck.ts'],
    ];
    const results = await Promise.all(asks.map((paths) => host.gate.call('a', 'request_files', { paths, reason: 'together' })));
    expect(results.map((r) => (r.ok ? (r.value as { outcome: string }).outcome : r.error.code))).toEqual([
      'approved',
      'denied',
      'approved',
      'approved',
    ]);
    const expected = ['README.md', 'src/schema/card.ts', 'src/schema/deck.ts', 'src/schema/nested/deep.ts', 'tests/schema/card.test.ts'];
    expect(filesOnDisk(sh)).toEqual(expected.map((p) => `./${p}`));
    const listing = await host.gate.call('a', 'list', { path: '.', pattern: '**' });
    expect(
      listing.ok &&
        (listing.value as { entries: { path: string; type: string }[] }).entries.filter((e) => e.type === 'file').map((e) => e.path),
    ).toEqual(expected);
    expect(sh('git', 'sparse-checkout', 'list').split('\n').sort()).toEqual(expected.map((p) => `/${p}`).sort());
    expect(sh('git', 'status', '--porcelain')).toBe('');
  });

  it('keeps a read-only role read-only on disclosed files', async () => {
    const { host, worktree } = await setup('reviewer');
    await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'review' });
    expect(await host.gate.call('a', 'write', { path: 'src/schema/deck.ts', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'TOOL_NOT_ALLOWED' },
    });
    expect(readFileSync(join(worktree, 'src/schema/deck.ts'), 'utf8')).toBe(files['src/schema/deck.ts']);
  });

  it('rebuilds the same projection after a restart, including files the agent created', async () => {
    const { host, start, repo } = await setup();
    await host.gate.call('a', 'request_files', { paths: ['tests/schema/card.test.ts'], reason: 'tests' });
    await host.gate.call('a', 'write', { path: 'src/schema/made.ts', content: 'made\n' });
    await host.close();
    const again = await start();
    const r = await again.gate.call('a', 'list', { path: '.', pattern: '**' });
    const paths = r.ok
      ? (r.value as { entries: { path: string; type: string }[] }).entries.filter((e) => e.type === 'file').map((e) => e.path)
      : r.error.code;
    expect(paths).toEqual(['README.md', 'src/schema/card.ts', 'src/schema/made.ts', 'tests/schema/card.test.ts']);
    expect(await again.gate.call('a', 'read', { path: 'src/schema/deck.ts' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_DISCLOSED' },
    });
    await again.gate.call('a', 'request_files', { paths: ['src/secret.ts'], reason: 'after restart' });
    // The request count goes on across the restart; the visit (the role's first conversation in the run) stays 1.
    expect(disclosureRecords(again.events()).map((x) => [x.visit, x.request, x.outcome])).toEqual([
      [1, 1, 'approved'],
      [1, 2, 'denied'],
    ]);
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('releases a clean sparse worktree with plain git worktree remove', async () => {
    const { host, worktree } = await setup();
    await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'x' });
    expect(await host.release('a', { deleteBranch: true })).toMatchObject({ removed: true, branchDeleted: true });
    expect(existsSync(worktree)).toBe(false);
  });
});
