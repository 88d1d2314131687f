import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Measured alone after everything else (vitest.timing.config.ts).
    exclude: ['test/security/l-matching.test.ts', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Both cores: most files wait on child processes, git and the disk, not the CPU.
    maxWorkers: 2,
    // Builds dist/ once (only when stale) before the CLI and MCP tests spawn the real binary.
    globalSetup: ['test/build-once.ts'],
  },
});
