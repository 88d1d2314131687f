import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests that measure time (the event-loop bound of class L, issue 9), run after the rest of
 * the suite with nothing else running: on a 2-core CI machine, test files running in parallel
 * would otherwise be measured as event-loop delay of the gate.
 */
export const TIMING_TESTS = ['test/security/l-matching.test.ts'];

export default defineConfig({
  test: { ...base.test, include: TIMING_TESTS, exclude: [], fileParallelism: false },
});
