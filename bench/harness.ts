/**
 * The benchmark harness: every benchmark compares gatefs with a baseline measured in the same
 * run and reports a ratio against a target. No timing is ever asserted in tests; these numbers
 * go to `bench/results.md`.
 */
import { performance } from 'node:perf_hooks';

/** One comparison: gatefs vs a baseline, as a ratio of medians, with its target. */
export interface Comparison {
  suite: string;
  name: string;
  /** Median of the measured operation, microseconds. */
  subjectUs: number;
  /** Median of the baseline, microseconds. */
  baselineUs: number;
  baseline: string;
  /** subject / baseline. */
  ratio: number;
  /** The target ratio (`ratio <= target` meets it). */
  target: number;
  note?: string;
  /** What subjectUs/baselineUs measure when not microseconds (e.g. 'bytes'). */
  unit?: 'us' | 'bytes';
}

/** A benchmark that could not run here (for example ripgrep absent), with why. */
export interface Skipped {
  suite: string;
  name: string;
  reason: string;
}

export interface Report {
  compare(c: Omit<Comparison, 'ratio'>): void;
  skip(s: Skipped): void;
  note(suite: string, text: string): void;
}

export interface MeasureOptions {
  /** Timed iterations (default 200). */
  iterations?: number;
  /** Untimed warm-up iterations (default 20). */
  warmup?: number;
}

/** Median wall time of `fn` in microseconds. */
export async function measure(fn: () => unknown, options: MeasureOptions = {}): Promise<number> {
  const { iterations = 200, warmup = 20 } = options;
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await fn();
    times.push((performance.now() - t0) * 1000);
  }
  return median(times);
}

/**
 * Measures subject and baseline interleaved in rounds (so drift hits both alike) and returns
 * both medians in microseconds.
 */
export async function measurePair(
  subject: () => unknown,
  baseline: () => unknown,
  options: MeasureOptions & { rounds?: number } = {},
): Promise<{ subjectUs: number; baselineUs: number }> {
  const rounds = options.rounds ?? 5;
  const per = Math.max(1, Math.floor((options.iterations ?? 200) / rounds));
  const s: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    b.push(await measure(baseline, { iterations: per, warmup: r === 0 ? options.warmup : 2 }));
    s.push(await measure(subject, { iterations: per, warmup: r === 0 ? options.warmup : 2 }));
  }
  return { subjectUs: median(s), baselineUs: median(b) };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
