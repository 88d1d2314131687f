/**
 * The lifecycle rules on the memory host, deterministically: release keeps untracked and
 * ignored work unless discarded, refuses a live holder unless forced, and leaves the workspace
 * serving when refused; a holder recorded by an earlier incarnation of the process (a
 * `ManualLiveness` restart) is ended by the next write or acquire; the run log stays
 * byte-identical for the same scenario.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { ManualLiveness } from '../../src/ports/process-liveness.js';

const files = { 'README.md': '# demo\n', '.gitignore': 'scratch/\n', 'src/a.ts': 'export const a = 1;\n' };
const text = (v: unknown) => String(v);

describe('memory host: release keeps work', () => {
  it('an ignored file is work: refused, kept, serving; discard removes the worktree and keeps the branch', async () => {
    const host = await createMemoryHost({ files });
    await host.prepare({ conversation: 'a' });
    await host.gate.call('a', 'write', { path: 'scratch/notes.md', content: 'notes' });
    await expect(host.release('a')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['scratch/notes.md'] } });
    expect(text(host.volume.readFileSync('/state/worktrees/a/scratch/notes.md', 'utf8'))).toBe('notes');
    expect(await host.gate.call('a', 'write', { path: 'x.md', content: 'serving' })).toMatchObject({ ok: true });
    expect(host.status()).toMatchObject([{ state: 'ready', holder: null }]);
    expect(await host.release('a', { discard: true })).toMatchObject({ removed: true, discarded: true, branchDeleted: false });
    expect(host.volume.existsSync('/state/worktrees/a')).toBe(false);
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_RELEASED' } });
    await host.close();
  });

  it('a live holder refuses release unless forced', async () => {
    const host = await createMemoryHost({ files });
    await host.prepare({ conversation: 'a' });
    host.acquire('a', 'session-1');
    await expect(host.release('a')).rejects.toMatchObject({ code: 'OCCUPIED', data: { holder: 'session-1' } });
    expect(host.status()).toMatchObject([{ state: 'ready', holder: 'session-1' }]);
    expect(await host.release('a', { force: true })).toMatchObject({ removed: true, forcedHolders: ['session-1'] });
    expect(host.events().map((e) => e.type)).toEqual(expect.arrayContaining(['release.refused', 'occupancy.forced_end', 'release']));
    await host.close();
  });
});

describe('memory host: dead holders', () => {
  it('a holder of an earlier incarnation of the process is ended by the next write, with an event', async () => {
    const liveness = new ManualLiveness();
    const host = await createMemoryHost({ files, liveness });
    await host.prepare({ conversation: 'a' });
    host.acquire('a', 'old-serve');
    expect(await host.gate.call('a', 'write', { path: 'x.md', content: 'x' })).toMatchObject({ ok: false, error: { code: 'OCCUPIED' } });
    expect(host.status()).toMatchObject([{ holder: 'old-serve' }]);
    liveness.restart();
    expect(host.status()).toMatchObject([{ holder: null }]);
    expect(await host.gate.call('a', 'write', { path: 'x.md', content: 'x' })).toMatchObject({ ok: true });
    expect(host.events().filter((e) => e.type === 'occupancy.holder_gone')).toMatchObject([
      { conversation: 'a', data: { holder: 'old-serve', pid: 1, by: 'write' } },
    ]);
    expect(host.status()).toMatchObject([{ holder: null }]);
    await host.close();
  });

  it('a holder of another process that is gone is ended by acquire; a live one is not', async () => {
    const liveness = new ManualLiveness(1);
    const host = await createMemoryHost({ files, liveness });
    await host.prepare({ conversation: 'a' });
    host.acquire('a', 'mine');
    liveness.restart();
    expect(host.acquire('a', 'next')).toMatchObject({ holder: 'next' });
    expect(() => host.acquire('a', 'third')).toThrow(expect.objectContaining({ code: 'OCCUPIED' }));
    await host.close();
  });

  it('gives the same run log for the same scenario (deterministic liveness)', async () => {
    const run = async () => {
      const liveness = new ManualLiveness();
      const host = await createMemoryHost({ files, liveness });
      await host.prepare({ conversation: 'a' });
      host.acquire('a', 'old');
      liveness.restart();
      await host.gate.call('a', 'write', { path: 'scratch/x', content: 'x' });
      await host.release('a').catch(() => undefined);
      await host.release('a', { discard: true });
      const events = JSON.stringify(host.events());
      await host.close();
      return events;
    };
    expect(await run()).toBe(await run());
  });
});
