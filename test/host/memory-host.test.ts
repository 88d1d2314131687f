import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/create-memory-host.js';

const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n', '.campaign/plan.md': 'the plan\n' };

const text = (r: unknown) => r;

describe('memory host', () => {
  it('prepares a worktree and serves tools', async () => {
    const host = await createMemoryHost({ files });
    const status = await host.prepare({ conversation: 'a' });
    expect(status).toMatchObject({ conversation: 'a', backend: 'worktree', guarantee: 'confined', state: 'ready', branch: 'gatefs/a' });
    const read = await host.gate.call('a', 'read', { path: 'src/a.ts' });
    expect(read).toMatchObject({ ok: true, value: { content: expect.stringContaining('export const a') } });
    const write = await host.gate.call('a', 'write', { path: 'src/new.ts', content: 'x' });
    expect(write.ok).toBe(true);
    console.log(JSON.stringify(host.events(), null, 1).slice(0, 3000));
    text(0);
    await host.close();
  });
});
