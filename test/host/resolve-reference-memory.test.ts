/**
 * The file-reference suite (resolve-reference-suite.ts) on the memory host (the state directory
 * `/state` outside the checkout `/repo`), and its determinism: the same scenario resolves to the
 * same answers, byte for byte, on two hosts.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { REFERENCE_FILES, REFERENCE_MANIFEST, resolveReferenceSuite } from './resolve-reference-suite.js';

async function memoryHost() {
  return createMemoryHost({ files: REFERENCE_FILES, manifest: REFERENCE_MANIFEST });
}

resolveReferenceSuite('memory host', async () => {
  const host = await memoryHost();
  const v = host.volume;
  return {
    host,
    repo: '/repo',
    stateDir: '/state',
    stateInRepo: false,
    writeText: (path, text) => {
      v.mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
      v.writeFileSync(path, text);
    },
    mkdir: (path) => v.mkdirSync(path, { recursive: true }),
    symlink: (target, path) => v.symlinkSync(target, path),
    close: () => host.close(),
  };
});

describe('file references on the memory host', () => {
  it('the same scenario gives the same answers and the same run log', async () => {
    const run = async () => {
      const host = await memoryHost();
      await host.prepare({ conversation: 'c', role: 'wt' });
      await host.prepare({ conversation: 'k', role: 'cp' });
      const answers = [];
      for (const ref of ['/worktrees/c/README.md', '/state/copies/k/src/a.ts', 'workspace://canonical/src/a.ts', '/home/AGENTS.md']) {
        answers.push(await host.resolveReference(ref, { conversation: 'c' }));
      }
      answers.push(await host.resolveReference('../README.md', { baseFile: '/worktrees/k/src/a.ts' }));
      const log = host.events();
      await host.close();
      return JSON.stringify({ answers, log });
    };
    const first = await run();
    expect(await run()).toBe(first);
    expect(first).toContain('"namespacePath":"/worktrees/k/src/a.ts"');
  });
});
