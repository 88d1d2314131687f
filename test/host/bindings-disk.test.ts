/**
 * The agent model's bindings on the disk host: attached worktrees and the source checkout over
 * real folders, a change made through another host instance (the CLI) seen on the next call,
 * two host instances on one state directory contending for exclusive-write, a reader while the
 * writer's conversation is released, and symbolic links inside an attached workspace staying
 * confined to it.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { gatefsInProcess } from '../cli/run-gatefs.js';
import { makeTempRepo } from './temp-repo.js';

const MANIFEST = [
  'roles:',
  '  - name: worker',
  '    tools: [read, list, write, attach, detach, switch]',
  '    attach_mode: exclusive-write',
  '    workspace: { backend: worktree }',
  '  - name: reader',
  '    tools: [read, list, write, attach, detach, switch]',
  '    workspace: { backend: worktree }',
  '  - name: sharer',
  '    tools: [read, write]',
  '    workspace: { backend: shared }',
  '',
].join('\n');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function repoWith() {
  const repo = makeTempRepo({ 'README.md': '# demo\n', 'gatefs.yaml': MANIFEST });
  cleanups.push(() => repo.cleanup());
  return repo;
}

async function hostOn(repo: string): Promise<Host> {
  const host = await createHost({ repo, manifest: join(repo, 'gatefs.yaml') });
  cleanups.push(() => host.close());
  return host;
}

const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);
const textOf = async (host: Host, c: string, path: string) => {
  const r = await host.gate.call(c, 'read', { path });
  return r.ok ? (r.value as { content: string }).content : `!${r.error.code}`;
};

describe('bindings on the disk host', () => {
  it('a binding made through the CLI shows on the serving host’s next call; switch and detach too', async () => {
    const repo = repoWith();
    const host = await hostOn(repo.dir);
    await host.prepare({ conversation: 'a', role: 'worker' });
    await host.prepare({ conversation: 'b', role: 'reader' });
    await host.gate.call('a', 'write', { path: 'from-a.md', content: 'A\n' });
    expect(code(await host.gate.call('b', 'read', { path: '/worktrees/a/from-a.md' }))).toBe('OUTSIDE_MOUNTS');
    const attached = await gatefsInProcess(repo.dir, ['attach', 'b', 'a']);
    expect(attached).toMatchObject({ code: 0 });
    expect(attached.stdout).toContain('b: /worktrees/a attached shared-read');
    expect(await textOf(host, 'b', '/worktrees/a/from-a.md')).toBe('A\n');
    expect(code(await host.gate.call('b', 'write', { path: '/worktrees/a/x.md', content: 'x' }))).toBe('READ_ONLY');
    expect(await gatefsInProcess(repo.dir, ['switch', 'b', '/worktrees/a'])).toMatchObject({ code: 0 });
    expect(await textOf(host, 'b', 'from-a.md')).toBe('A\n');
    const detached = await gatefsInProcess(repo.dir, ['detach', 'b', 'a', '--json']);
    expect(JSON.parse(detached.stdout)).toMatchObject({ workspace: 'a', anchor: '/worktrees/a', active: '/worktrees/b' });
    expect(code(await host.gate.call('b', 'read', { path: 'from-a.md' }))).toBe('NOT_FOUND');
    const refused = await gatefsInProcess(repo.dir, ['detach', 'b', 'a']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('NOT_ATTACHED');
    expect((await gatefsInProcess(repo.dir, ['attach', 'b', 'a', '--mode', 'both'])).code).toBe(2);
  });

  it('two host instances on one state directory: exactly one takes canonical exclusive-write; the shared conversation then gets OCCUPIED', async () => {
    const repo = repoWith();
    const one = await hostOn(repo.dir);
    await one.prepare({ conversation: 'a', role: 'worker' });
    await one.prepare({ conversation: 'b', role: 'worker' });
    await one.prepare({ conversation: 's', role: 'sharer' });
    const two = await hostOn(repo.dir);
    const outcomes = [
      [one, 'a'],
      [two, 'b'],
    ].map(([h, c]) => {
      try {
        return (h as Host).attach(c as string, 'canonical', 'exclusive-write').holder;
      } catch (e) {
        return (e as { code: string }).code;
      }
    });
    expect(outcomes).toEqual(['a', 'OCCUPIED']);
    expect(code(await two.gate.call('s', 'write', { path: 'by-s.md', content: 's' }))).toBe('OCCUPIED');
    expect(code(await two.gate.call('a', 'write', { path: '/canonical/by-a.md', content: 'a\n' }))).toBe('ok');
    expect(readFileSync(join(repo.dir, 'by-a.md'), 'utf8')).toBe('a\n');
    expect(code(await one.gate.call('a', 'read', { path: '/canonical/.gatefs/state.db' }))).toBe('NOT_FOUND');
    one.detach('a', '/canonical');
    expect(code(await two.gate.call('s', 'write', { path: 'by-s.md', content: 's' }))).toBe('ok');
  });

  it('a shared-read holder reads while the writer detaches and while the owner is released, then gets WORKSPACE_RELEASED', async () => {
    const repo = repoWith();
    const host = await hostOn(repo.dir);
    for (const c of ['a', 'w']) await host.prepare({ conversation: c, role: 'worker' });
    await host.prepare({ conversation: 'r', role: 'reader' });
    host.attach('a', 'a', 'shared-read');
    host.attach('w', 'a', 'exclusive-write');
    host.attach('r', 'a');
    await host.gate.call('w', 'write', { path: '/worktrees/a/by-w.md', content: 'w1\n' });
    expect(await textOf(host, 'r', '/worktrees/a/by-w.md')).toBe('w1\n');
    expect(code(await host.gate.call('a', 'write', { path: 'mine.md', content: 'm' }))).toBe('OCCUPIED');
    host.detach('w', 'a');
    expect(await textOf(host, 'r', '/worktrees/a/by-w.md')).toBe('w1\n');
    expect(code(await host.gate.call('a', 'write', { path: 'mine.md', content: 'm' }))).toBe('READ_ONLY');
    expect((await host.release('a', { discard: true })).bindingsEnded).toEqual(['r']);
    expect(code(await host.gate.call('r', 'read', { path: '/worktrees/a/by-w.md' }))).toBe('WORKSPACE_RELEASED');
    // Another instance (a later CLI) answers the same.
    const later = await hostOn(repo.dir);
    expect(code(await later.gate.call('r', 'read', { path: '/worktrees/a/by-w.md' }))).toBe('WORKSPACE_RELEASED');
    expect(
      later
        .events()
        .filter((e) => e.type === 'binding.end')
        .map((e) => e.conversation),
    ).toEqual(['r']);
    // The operator's CLI says what happened to the binding, not to prepare the caller again.
    const cli = await gatefsInProcess(repo.dir, ['call', 'r', 'read', JSON.stringify({ path: '/worktrees/a/by-w.md' })]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('the workspace attached at /worktrees/a was released by its own conversation');
    expect(cli.stderr).not.toContain('gatefs prepare');
  });

  it('symbolic links inside an attached workspace stay confined to it', async () => {
    const repo = repoWith();
    const host = await hostOn(repo.dir);
    await host.prepare({ conversation: 'a', role: 'worker' });
    await host.prepare({ conversation: 'b', role: 'worker' });
    await host.gate.call('b', 'write', { path: 'secret.md', content: 'b-secret\n' });
    const aDir = join(repo.dir, '.gatefs/worktrees/a');
    writeFileSync(join(aDir, 'inside.md'), 'inside\n');
    symlinkSync('inside.md', join(aDir, 'ok-link'));
    symlinkSync(join(repo.dir, '.gatefs/worktrees/b'), join(aDir, 'to-b'));
    symlinkSync('../b/secret.md', join(aDir, 'rel-to-b'));
    symlinkSync('/etc', join(aDir, 'to-etc'));
    host.attach('b', 'a', 'shared-read');
    expect(await textOf(host, 'b', '/worktrees/a/ok-link')).toBe('inside\n');
    for (const path of ['/worktrees/a/to-b/secret.md', '/worktrees/a/rel-to-b', '/worktrees/a/to-etc/passwd']) {
      expect(code(await host.gate.call('b', 'read', { path }))).toBe('SYMLINK_ESCAPE');
    }
    host.attach('a', 'a', 'shared-read');
    host.attach('b', 'a', 'exclusive-write');
    expect(code(await host.gate.call('b', 'write', { path: '/worktrees/a/rel-to-b', content: 'x' }))).toBe('SYMLINK_ESCAPE');
    expect(readFileSync(join(repo.dir, '.gatefs/worktrees/b/secret.md'), 'utf8')).toBe('b-secret\n');
  });
});
