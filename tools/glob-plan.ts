/**
 * `globPlan`: which folders a glob walk must enter, so `src/*.ts` reads one folder instead of
 * the whole tree. Built from picomatch's `scan` (the literal base folder of the pattern) and
 * the number of segments when the pattern has no `**`.
 */
import picomatch from 'picomatch';
import { ToolFailure } from './result.js';

/** A pruning rule for one glob walk. */
export interface GlobPlan {
  /** False only when no path below the folder `rel` (relative to the walk start) can match. */
  mayContainMatches(rel: string): boolean;
}

/** Plans a walk for `pattern`. `field` names the argument in an `INVALID_INPUT` refusal. */
export function globPlan(pattern: string, field: string): GlobPlan {
  let base: string;
  let glob: string;
  try {
    ({ base, glob } = picomatch.scan(pattern));
  } catch (e) {
    throw new ToolFailure('INVALID_INPUT', `${field}: not a usable glob (${(e as Error).message})`);
  }
  if (pattern.startsWith('/')) {
    throw new ToolFailure('INVALID_INPUT', `${field}: must be relative to the searched folder (no leading '/')`);
  }
  const baseSegs = base === '' || base === '.' ? [] : base.split('/').filter((s) => s !== '' && s !== '.');
  const hasGlobstar = pattern.includes('**');
  const depth = pattern.split('/').filter(Boolean).length;
  // `**/…` with no literal base folder may match below any folder: decided once, not per folder.
  if (hasGlobstar && baseSegs.length === 0) return { mayContainMatches: () => true };
  return {
    mayContainMatches(rel: string): boolean {
      const segs = rel.split('/');
      for (let i = 0; i < Math.min(segs.length, baseSegs.length); i++) if (segs[i] !== baseSegs[i]) return false;
      if (!hasGlobstar && glob !== '' && segs.length >= depth) return false;
      if (!hasGlobstar && glob === '' && segs.length >= baseSegs.length) return false;
      return true;
    },
  };
}
