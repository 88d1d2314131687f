/**
 * A sparse projection holds for commands too: a command in a progressive-disclosure workspace
 * sees the disclosed files and nothing else of the repository, and a file disclosed by
 * `request_files` appears to the next command. Skips where bubblewrap cannot run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { files } from '../disclosure/fixture.js';

const support = await new BubblewrapSandbox().probe();
const policy = { initial_paths: ['src/schema/card.ts', 'README.md'], allowed_paths: ['src/schema'] };
const opened: { repo?: TempRepo; host?: Host } = {};
afterAll(async () => {
  await opened.host?.close();
  opened.repo?.cleanup();
});

describe.skipIf(!support.available)('commands in a sparse projection', () => {
  it('see only the disclosed files, then the ones request_files brings', async () => {
    const repo = (opened.repo = makeTempRepo(files));
    const host = (opened.host = await createHost({
      repo: repo.dir,
      manifest: {
        roles: [
          {
            name: 'implementer',
            tools: ['read', 'request_files', 'exec'],
            workspace: { backend: 'worktree', progressive_disclosure: policy },
          },
        ],
      },
    }));
    await host.prepare({ conversation: 'a', role: 'implementer' });
    const find = async () => {
      const r = await host.gate.call('a', 'exec', {
        command: 'find . -path ./.git -prune -o -type f -print | sort; cat src/secret.ts 2>&1 | head -1',
      });
      return (r as { value: { stdout: string } }).value.stdout;
    };
    expect(await find()).toBe('./README.md\n./src/schema/card.ts\ncat: src/secret.ts: No such file or directory\n');
    expect((await host.gate.call('a', 'request_files', { paths: ['src/schema/deck.ts'], reason: 'types' })).ok).toBe(true);
    expect(await find()).toContain('./src/schema/deck.ts\n');
  });
});
