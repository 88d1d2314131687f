/**
 * `gatefs serve --run RUN` over stdio, in process: the session's `WorkspaceReadiness` prepares a
 * new conversation in that run (its visit there), and leaves a conversation prepared before in
 * its own run.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { WorkspaceReadiness } from '../../src/mcp/stdio/index.js';

describe('a stdio session with a run', () => {
  it('prepares a new conversation in its run; one prepared before keeps its own', async () => {
    const host = await createMemoryHost({ files: { 'README.md': '# r\n' } });
    try {
      await host.prepare({ conversation: 'earlier', run: 'first' });
      const session = (conversation: string) =>
        new WorkspaceReadiness({
          openHost: async () => host,
          conversation,
          run: 'review-1',
          holder: `holder-${conversation}`,
          log: () => undefined,
          explain: (e) => String(e),
        });
      expect((await session('fresh').ready()).ok).toBe(true);
      expect((await session('earlier').ready()).ok).toBe(true);
      const rows = host.status().map((w) => [w.conversation, w.run, w.visit]);
      expect(rows.sort()).toEqual([
        ['earlier', 'first', 1],
        ['fresh', 'review-1', 1],
      ]);
    } finally {
      await host.close();
    }
  });
});
