/**
 * `LanderSteps`: how the lander records a step of a landing (docs/ARCHITECTURE.md § Durable work:
 * recorded before it is acted on). The submission's new record and the step's run-log event are
 * written in one transaction and the record is read back in the state the step moved it to; `save`
 * then calls the save-point hook (where the crash test kills the lander).
 */
import type { RunEventBody, RunEventType } from '../state/index.js';
import type { StateStore } from '../state/index.js';
import { submissionIn, type LandedSubmission, type SubmissionIn, type SubmissionRecord, type SubmissionState } from '../state/index.js';
import type { SubmissionPatch } from '../state/index.js';
import type { SavePoint, SavePointHook } from './save-points.js';

/** The run-log events of the lander (each names its submission). */
type LanderEvent = RunEventBody<Extract<RunEventType, `lander.${string}`>>;

/** Records and saves the steps of landings (see the file comment). */
export class LanderSteps {
  constructor(
    private readonly store: Pick<StateStore, 'transaction' | 'submissions' | 'runLog'>,
    private readonly savePoint?: SavePointHook,
  ) {}

  /**
   * Records a step that moves `sub` to `patch.state`, with its event. Result: the record as
   * stored, in that state. Throws `StateError` `CORRUPT_RECORD` when it is not (nothing is kept).
   */
  record<S extends SubmissionState>(sub: SubmissionRecord, patch: SubmissionPatch & { state: S }, event: LanderEvent): SubmissionIn<S> {
    return this.store.transaction(() => submissionIn(this.write(sub, patch, event), patch.state));
  }

  /** Records a step of a landed submission that keeps it `landed` (a push try, a re-merge), with its event. */
  note(sub: LandedSubmission, patch: Omit<SubmissionPatch, 'state'>, event: LanderEvent): LandedSubmission {
    return this.store.transaction(() => submissionIn(this.write(sub, patch, event), 'landed'));
  }

  /** The save point `point` of `sub` (a crash test kills the process here). */
  save(point: SavePoint, sub: SubmissionRecord): void {
    this.savePoint?.(point, sub.id);
  }

  private write(sub: SubmissionRecord, patch: SubmissionPatch, event: LanderEvent): SubmissionRecord {
    const updated = this.store.submissions.update(sub.id, patch);
    this.store.runLog.append({ ...event, conversation: sub.conversation });
    return updated;
  }
}
