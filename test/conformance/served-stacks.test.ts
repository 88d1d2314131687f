/**
 * Conformance of every stack a backend serves (./served-stacks.ts), on the real disk and in
 * memory, each built by `openWorkspaceView` as the host builds it. The pinned commits are made
 * once per platform and only read.
 */
import { afterAll, describe, it } from 'vitest';
import { layerSuite } from './layer-suite.js';
import { SERVED_STACKS } from './served-stacks.js';
import { diskCommits, diskWorld, memoryCommits, memoryWorld, type PinnedCommits, type ServedWorld } from './served-world.js';

const platforms: { name: string; world: () => ServedWorld; commits: () => Promise<PinnedCommits> }[] = [];
let disk: PinnedCommits | undefined;
let memory: Promise<PinnedCommits> | undefined;
platforms.push({ name: 'disk', world: diskWorld, commits: async () => (disk ??= diskCommits()) });
platforms.push({ name: 'memory', world: memoryWorld, commits: () => (memory ??= memoryCommits()) });
afterAll(() => disk?.cleanup());

for (const platform of platforms) {
  for (const stack of SERVED_STACKS) {
    if (stack.diskOnly && platform.name !== 'disk') {
      describe(`layer conformance: ${stack.composition} — served by ${stack.servedBy} (${platform.name})`, () => {
        it.skip(`every check (${platform.name}: ${stack.diskOnly})`, () => {});
      });
      continue;
    }
    layerSuite({
      name: `${stack.composition} — served by ${stack.servedBy} (${platform.name})`,
      writable: stack.writable,
      ...(stack.lacks ? { lacks: stack.lacks } : {}),
      async setup() {
        const world = platform.world();
        try {
          const built = await stack.build(world, await platform.commits());
          const { close, ...under } = built;
          return { ...under, cleanup: async () => (close(), await world.cleanup()) };
        } catch (e) {
          await world.cleanup();
          throw e;
        }
      },
    });
  }
}
