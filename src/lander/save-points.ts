/**
 * The lander's save points: the moments right after a step is recorded (or an irreversible act
 * is done) where a crash must be survivable. A `SavePointHook` is called at each; the crash test
 * kills the lander there (`GATEFS_LANDER_CRASH_AT`, read by the CLI's composition root), once
 * per point, and checks that a restarted lander lands every submission exactly once.
 */

/** Every save point, in the order a landing passes them. */
export const LANDER_SAVE_POINTS = [
  /** `merging` recorded (an attempt started), nothing merged yet. */
  'merging',
  /** The candidate merged in the lander's checkout and recorded (`checking`), no check run yet. */
  'checking',
  /** A check finished (its result not recorded yet). */
  'check-ran',
  /** Every check passed and the checked candidate is recorded (`checked`). */
  'checked',
  /** The target branch was moved to the candidate; `landed.sha` not recorded yet. */
  'fast-forwarded',
  /** `landed.sha` recorded. */
  'landed',
  /** The remote moved on (another lander pushed first): a re-merge onto its head recorded, nothing merged yet. */
  'remerging',
  /** The re-merged candidate passed the checks and is recorded; the local branch not moved yet. */
  'rechecked',
  /** The local branch was moved to the re-merged candidate; not pushed yet. */
  'remerge-moved',
  /** The remote accepted the push (of the landing or its re-merge); not recorded yet. */
  'push-accepted',
  /** `pushed` recorded. */
  'pushed',
  /** The project-memory line appended; the report not written yet. */
  'memory-appended',
  /** Report and note delivered and the submission `done`, in one transaction. */
  'reported',
] as const;

/** One save point. */
export type SavePoint = (typeof LANDER_SAVE_POINTS)[number];

/** Called at each save point with the submission being landed (a crash test kills the process here). */
export type SavePointHook = (point: SavePoint, submission: string) => void;

/** True when `name` is a save point. */
export function isSavePoint(name: unknown): name is SavePoint {
  return typeof name === 'string' && (LANDER_SAVE_POINTS as readonly string[]).includes(name);
}
