/**
 * Test support: the `node` arguments that run a TypeScript source of this project directly
 * (scripts/typescript-hooks.mjs), for a test's child process: `spawn(process.execPath,
 * [...RUN_TYPESCRIPT, 'test/x/child.ts', …])`. The child and the worker threads it starts (the
 * worker pool, vfs/worker-pool.ts) run the sources under test, as the tests themselves do.
 */
import { fileURLToPath } from 'node:url';

/** `--import` of the hooks' registration (scripts/run-typescript.mjs), by absolute path. */
export const RUN_TYPESCRIPT: readonly string[] = ['--import', fileURLToPath(new URL('../scripts/run-typescript.mjs', import.meta.url))];
