import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/create-host.js';
import { makeTempRepo } from './temp-repo.js';

describe('disk host smoke', () => {
  it('prepares a worktree', async () => {
    const repo = makeTempRepo({ 'README.md': '# r\n', 'src/a.ts': 'A\n' });
    const host = await createHost({ repo: repo.dir });
    const st = await host.prepare({ conversation: 'a' });
    console.log(st);
    const r = await host.gate.call('a', 'read', { path: 'src/a.ts' });
    console.log(JSON.stringify(r));
    const w = await host.gate.call('a', 'write', { path: 'src/b.ts', content: 'B' });
    console.log(JSON.stringify(w));
    expect(readFileSync(join(repo.dir, '.gatefs/worktrees/a/src/b.ts'), 'utf8')).toBe('B');
    console.log(repo.git('status', '--porcelain'));
    await expect(host.release('a')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE' });
    console.log(JSON.stringify(host.events().slice(0, 30), null, 0));
    await host.close();
    repo.cleanup();
  });
});
