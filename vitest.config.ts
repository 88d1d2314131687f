import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Node module hooks that run the TypeScript sources without a build (scripts/typescript-hooks.mjs).
 * Vitest runs the test files through Vite; a worker thread the code starts by URL (the worker
 * pool, vfs/worker-pool.ts) runs in plain Node, which inherits these `execArgv` and so runs the
 * same sources.
 */
const RUN_TYPESCRIPT = ['--import', fileURLToPath(new URL('./scripts/run-typescript.mjs', import.meta.url))];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Measured alone after everything else (vitest.timing.config.ts).
    exclude: ['test/security/l-matching.test.ts', '**/node_modules/**'],
    // A timeout catches a hang, it measures nothing: with both cores busy (CI beside another
    // build, two test files at once) tests that take 5 s alone took over 30 s here.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    execArgv: RUN_TYPESCRIPT,
    // Three files at once on two cores: most files wait on child processes, git and the disk,
    // not the CPU (the whole run measured 526 s with three, 646 s with two, on this 2-core
    // machine); the tests hold with the cores busy, which this also keeps exercised.
    maxWorkers: 3,
    // Builds dist/ once (only when stale) before the CLI and MCP tests spawn the real binary.
    globalSetup: ['test/build-once.ts'],
  },
});
