/**
 * A receiver's view is opened again each time a handoff is routed to it; the view it replaces is
 * closed once the calls in flight over it have finished, so a receiver that is handed work many
 * times holds the folder handles of one view, not one per handoff (disk host, real folders: the
 * process's open file descriptors are counted).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { makeTempRepo } from './temp-repo.js';

const manifest = {
  roles: [
    { name: 'maker', tools: ['read', 'write', 'handoff'], workspace: { backend: 'worktree' } },
    { name: 'taker', tools: ['read', 'list'], workspace: { backend: 'worktree' } },
  ],
};
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const openFds = () => readdirSync('/proc/self/fd').length;

describe('a receiver handed work many times', () => {
  it('holds the handles of its current view only: replaced views close once their calls finish', async () => {
    const repo = makeTempRepo({ 'README.md': '# r\n' });
    cleanups.push(() => repo.cleanup());
    const host = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'taker', role: 'taker', run: 'r' });
    const handOff = async (n: number) => {
      const maker = `maker-${n}`;
      await host.prepare({ conversation: maker, role: 'maker', run: 'r' });
      writeFileSync(join(repo.dir, '.gatefs', 'worktrees', maker, 'note.md'), `note ${n}\n`);
      const r = await host.gate.call(maker, 'handoff', { to: 'taker', files: ['note.md'] });
      expect(r.ok, JSON.stringify(r)).toBe(true);
      const read = await host.gate.call('taker', 'read', { path: `artifacts/maker-v${n}/note.md` });
      expect(read.ok && (read.value as { content: string }).content).toBe(`note ${n}\n`);
    };
    for (let n = 1; n <= 3; n++) await handOff(n);
    // Let the replaced views close (they wait for the calls in flight), then count.
    await new Promise((r) => setTimeout(r, 50));
    const before = openFds();
    for (let n = 4; n <= 23; n++) await handOff(n);
    await new Promise((r) => setTimeout(r, 50));
    const listed = await host.gate.call('taker', 'list', { path: 'artifacts' });
    expect(listed.ok && (listed.value as { entries: unknown[] }).entries).toHaveLength(23);
    // Twenty more handoffs: each maker's own workspace holds handles, and the receiver's one view
    // holds one more routed folder each; twenty kept views would hold hundreds.
    const perHandoff = (openFds() - before) / 20;
    expect(perHandoff).toBeLessThan(8);
  }, 120_000);
});
