/**
 * `applyCopy`: writes a `copy` workspace's changes back to the folder it was copied from (the
 * repository folder: a plain folder, or a git checkout's working tree), each path only if the
 * source still holds what the copy started from (copy-plan.ts), and, after a complete apply of
 * a plain folder, resets the copy's overlay so it shows the source again (apply-finish.ts).
 *
 * All or nothing per apply: when any path conflicts, nothing is written (every other path is
 * reported `skipped`), so the source is never left holding half of a change set it has no
 * history to undo. Each path is written atomically (source-folder.ts), and just before a file
 * is published the source is looked at again: a change made in between makes that path a
 * conflict (the paths already written stay written; the report says which).
 *
 * Durable: before the first change the journal names every path with its old and new digests
 * (apply-records.ts); it moves to `resetting` once every change is made, and goes when the
 * overlay is reset. A run that finds a journal finishes that apply first: in `writing`, a path
 * holding the version the journal gave it counts as its base, and temp files left by a killed
 * write are removed; in `resetting`, the reset is done again (every step of it is safe to
 * repeat). So a SIGKILL at any moment leaves each file old or new, and the next apply finishes.
 *
 * The caller holds the workspace (no gated write runs meanwhile) and reopens its view after an
 * apply that was not a dry run (the overlay's whiteouts changed behind it). One `work.apply`
 * record per apply (not for a dry run): counts and paths, never contents.
 */
import { CodedError, codeOf } from '../../../vfs/index.js';
import type { EventDraft } from '../../state/index.js';
import type { HostPlatform } from '../platform/index.js';
import { readBase, readJournal, removeJournal, writeJournal, type JournalEntry } from './apply-records.js';
import { finishApply } from './apply-finish.js';
import type { ApplyEntry, ApplyOptions, ApplyReport, ApplySavePoint, CopyOverlay } from './apply-types.js';
import { planApply, type Step } from './copy-plan.js';
import { fileDigest } from './digest-of.js';
import { SourceFolder } from './source-folder.js';

/** What an apply works on. */
export interface ApplyParts {
  readonly conversation: string;
  readonly platform: HostPlatform;
  readonly overlay: CopyOverlay;
  /** True for a copy of a git checkout: its lower is the pinned commit (the base), not the source folder. */
  readonly pinned: boolean;
  readonly runLog: { append(draft: EventDraft<'work.apply'>): void };
}

/** Applies (or, with `dryRun`, plans) the copy's changes; see the file comment. Throws what the source folder or the records throw. */
export async function applyCopy(parts: ApplyParts, options: ApplyOptions = {}): Promise<ApplyReport> {
  const dryRun = options.dryRun === true;
  const save = (point: ApplySavePoint, path: string | null) => options.savePoint?.(point, path);
  const upper = parts.overlay.upper;
  const source = SourceFolder.open(parts.platform);
  try {
    let journal = await readJournal(upper);
    const resumed = journal !== undefined && !dryRun;
    let overlayReset = false;
    if (journal?.phase === 'resetting' && !dryRun) {
      overlayReset = await finishApply(parts, source, journal.entries, save);
      await removeJournal(upper);
      journal = undefined;
    }
    if (journal && !dryRun) for (const e of journal.entries) await source.removeTemp(e.path).catch(() => undefined);
    const steps = await planApply({ overlay: parts.overlay, source, base: await readBase(upper), lowerIsBase: parts.pinned, journal });
    const blocked = steps.some((s) => s.status === 'conflict');
    if (dryRun || blocked) return report(parts, steps, new Map(), { dryRun, blocked, resumed, overlayReset: false });
    const outcome = new Map<Step, Omit<ApplyEntry, 'path' | 'kind' | 'change'>>();
    const toApply = steps.filter((s) => s.status === 'apply');
    if (toApply.length > 0 || steps.some((s) => s.status === 'unchanged')) {
      await writeJournal(upper, { phase: 'writing', entries: toApply.map(journalEntry) });
      save('apply.journaled', null);
      for (const step of toApply) {
        try {
          await change(parts, source, step, save);
          outcome.set(step, { status: 'applied' });
          save('apply.changed', step.path);
        } catch (e) {
          const code = e instanceof SourceChanged ? 'CONFLICT' : (codeOf(e) ?? 'INTERNAL');
          const reason = e instanceof SourceChanged ? e.message : `the change could not be made (${code})`;
          outcome.set(step, { status: 'conflict', code, reason });
        }
      }
      const done = steps.filter((s) => s.status === 'unchanged' || outcome.get(s)?.status === 'applied').map(journalEntry);
      await writeJournal(upper, { phase: 'resetting', entries: done });
      save('apply.changes_done', null);
      overlayReset = await finishApply(parts, source, done, save);
      await removeJournal(upper);
    }
    return report(parts, steps, outcome, { dryRun, blocked, resumed, overlayReset });
  } finally {
    source.close();
  }
}

/** A path the source changed between the plan and its write (reported as that path's `CONFLICT`). */
class SourceChanged extends CodedError<'CONFLICT'> {
  constructor(message: string) {
    super('CONFLICT', message, {});
  }
}

/** Makes one planned change in the source, looking at the path again just before. */
async function change(parts: ApplyParts, source: SourceFolder, step: Step, save: (p: ApplySavePoint, path: string) => void): Promise<void> {
  const stillAsPlanned = async (also: readonly string[] = []) => {
    const now = (await source.digest(step.path)).digest;
    if (now !== step.have && !also.includes(now)) throw new SourceChanged('the source changed while the apply ran');
  };
  switch (step.op) {
    case 'remove':
      await stillAsPlanned();
      return source.remove(step.path);
    case 'rmdir':
      return source.rmdir(step.path);
    case 'mkdir':
      return source.mkdir(step.path);
    case 'write': {
      const bytes = await parts.overlay.upper.readFile(step.path);
      if (fileDigest(bytes) !== step.want) throw new SourceChanged('the copy changed while the apply ran');
      return source.writeFile(step.path, bytes, step.mode, async () => {
        save('apply.temp_written', step.path);
        await stillAsPlanned([step.want, ...(step.have === 'd' ? ['-'] : [])]);
      });
    }
  }
}

function journalEntry(step: Step): JournalEntry {
  return { path: step.path, old: step.have, new: step.want };
}

/** The report of an apply, and its run-log record (not for a dry run). */
function report(
  parts: ApplyParts,
  steps: readonly Step[],
  outcome: ReadonlyMap<Step, Omit<ApplyEntry, 'path' | 'kind' | 'change'>>,
  how: { dryRun: boolean; blocked: boolean; resumed: boolean; overlayReset: boolean },
): ApplyReport {
  const entries: ApplyEntry[] = [];
  let unchanged = 0;
  for (const step of steps) {
    if (step.status === 'unchanged') {
      unchanged++;
      continue;
    }
    const changeKind = step.want === '-' ? 'deleted' : step.have === '-' ? 'added' : 'modified';
    const base = { path: step.path, kind: step.kind, change: changeKind } as const;
    const decided = outcome.get(step);
    if (decided) entries.push({ ...base, ...decided });
    else if (step.status === 'apply')
      entries.push(
        how.blocked
          ? { ...base, status: 'skipped', reason: 'not applied: another path conflicts (an apply writes all or nothing)' }
          : { ...base, status: 'would-apply' },
      );
    else
      entries.push({
        ...base,
        status: step.status,
        ...(step.code ? { code: step.code } : {}),
        ...(step.reason ? { reason: step.reason } : {}),
      });
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const count = (status: ApplyEntry['status']) => entries.filter((e) => e.status === status).length;
  const counts = { applied: count('applied'), conflicts: count('conflict'), skipped: count('skipped'), unchanged };
  if (!how.dryRun) {
    const paths = [...entries.filter((e) => e.status === 'applied'), ...entries.filter((e) => e.status === 'conflict')]
      .map((e) => e.path)
      .slice(0, 100);
    parts.runLog.append({
      type: 'work.apply',
      conversation: parts.conversation,
      data: { applied: counts.applied, conflicts: counts.conflicts, skipped: counts.skipped, unchanged, resumed: how.resumed, paths },
    });
  }
  return {
    conversation: parts.conversation,
    dryRun: how.dryRun,
    complete: counts.conflicts === 0,
    resumed: how.resumed,
    overlayReset: how.overlayReset,
    entries,
    counts,
  };
}
