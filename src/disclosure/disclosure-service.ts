/**
 * `DisclosureService`: one conversation's progressive disclosure — the `DisclosureRequests`
 * (tools/disclosure-requests.ts) the host puts in the registration's `disclosure` slot and the
 * `request_files` tool calls.
 *
 * `request(paths, reason, namespace)`:
 * 1. checks every path (`checkRequestedPath`: grammar, workspace, policy, pinned commit)
 *    before anything changes; one bad path refuses the whole request (`denied` when a path is
 *    invalid or not permitted, else `unavailable`) and the projection stays as it was;
 * 2. materializes the paths not yet disclosed through `materialize` — the preparation side's
 *    git port (`git sparse-checkout add`), injected by the host, never called for a refused or
 *    already-disclosed request; a failure there is `unavailable` (`INTERNAL`, or `BUSY` when out
 *    of descriptors) and nothing is disclosed; the record says what failed;
 * 3. persists the new state and appends the `progressive_disclosure` record in one store
 *    transaction (`commit`), then widens the projection.
 * Requests of one conversation run one at a time, in call order, so concurrent requests leave
 * a projection equal to some serial order of them. Already-disclosed paths are approved again
 * without any change.
 *
 * It is also the `DisclosureHints` of the workspace's hint layer: `isUndisclosed` answers
 * from the policy and the pinned commit, and visible-set changes are persisted.
 */
import type { Namespace } from '../../vfs/index.js';
import type { SparseProjection } from '../../vfs/index.js';
import type { DisclosureHints } from '../../vfs/index.js';
import { checkRequestedPath } from './check-request.js';
import { isInsideAllowed } from './disclosure-policy.js';
import type { DisclosureOutcome, DisclosureRequests, RequestFilesValue } from '../../tools/index.js';
import { disclosureRecord, errorDetail, type DisclosureRecord, type RecordedProblem } from './disclosure-record.js';
import { isDescriptorShortage } from '../../vfs/index.js';
import type { DisclosureState } from './disclosure-state.js';
import type { PinnedSnapshot } from './pinned-snapshot.js';

interface DisclosureServiceOptions {
  conversation: string;
  role: string;
  /** The conversation's visit of its role in its run (null: prepared before runs existed), read for each record. */
  visit(): number | null;
  snapshot: PinnedSnapshot;
  projection: SparseProjection;
  /** The state as persisted (the service keeps its own copy from here on). */
  state: DisclosureState;
  /** Checks out `paths` (repository-relative files of the pinned commit) in the workspace. */
  materialize(paths: readonly string[]): Promise<void>;
  /** Persists `state` and appends `record`, atomically. */
  commit(state: DisclosureState, record: DisclosureRecord | null): void;
}

export class DisclosureService implements DisclosureHints, DisclosureRequests {
  private state: DisclosureState;
  private disclosed: Set<string>;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: DisclosureServiceOptions) {
    this.state = { ...options.state };
    this.disclosed = new Set(options.state.disclosed);
  }

  /** The disclosed paths, sorted. */
  disclosedPaths(): string[] {
    return [...this.disclosed].sort();
  }

  /** Handles one request (see the module comment). Serialized per conversation. */
  request(paths: readonly string[], reason: string, namespace: Namespace): Promise<RequestFilesValue> {
    const run = this.queue.then(() => this.handle(paths, reason, namespace));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * True when `path` is not visible, lies inside the policy's allowed paths and names an entry
   * of the pinned commit (a file, when `forWrite`). Throws the snapshot's `INTERNAL` / `BUSY`
   * when the commit cannot be read: an unreadable snapshot is never taken for an absent file.
   */
  async isUndisclosed(path: string, forWrite: boolean): Promise<boolean> {
    if (this.options.projection.isVisible(path) || !isInsideAllowed(path, this.state)) return false;
    const type = await this.options.snapshot.entryType(path);
    return type !== null && (!forWrite || type !== 'directory');
  }

  onVisibleChange(projection: SparseProjection): void {
    this.state = { ...this.state, visible: projection.visiblePaths() };
    this.options.commit(this.state, null);
  }

  private async handle(paths: readonly string[], reason: string, namespace: Namespace): Promise<RequestFilesValue> {
    const { snapshot } = this.options;
    const checked = await Promise.all(paths.map((p) => checkRequestedPath(p, namespace, this.state.allowedPaths, snapshot)));
    const problems: RecordedProblem[] = [];
    let denied = false;
    const wanted: string[] = [];
    for (const c of checked) {
      if (c.ok) {
        if (!wanted.includes(c.path)) wanted.push(c.path);
      } else {
        problems.push(c.problem);
        denied ||= c.verdict === 'denied';
      }
    }
    if (problems.length > 0) return this.finish(paths, reason, denied ? 'denied' : 'unavailable', [], [], problems);
    const fresh = wanted.filter((p) => !this.disclosed.has(p));
    if (fresh.length > 0) {
      try {
        await this.options.materialize(fresh);
      } catch (e) {
        // The run-log record says what failed; the agent gets the code (BUSY: retry later).
        const code = isDescriptorShortage(e) ? 'BUSY' : 'INTERNAL';
        const message = 'the workspace could not check this file out; nothing was disclosed';
        const failed = fresh.map((p): RecordedProblem => ({ path: p, code, message, detail: errorDetail(e) }));
        return this.finish(paths, reason, 'unavailable', [], [], failed);
      }
    }
    return this.finish(paths, reason, 'approved', wanted, fresh, []);
  }

  private finish(
    requested: readonly string[],
    reason: string,
    outcome: DisclosureOutcome,
    granted: string[],
    fresh: string[],
    problems: RecordedProblem[],
  ): RequestFilesValue {
    const request = this.state.requests + 1;
    const next: DisclosureState = {
      ...this.state,
      requests: request,
      disclosed: fresh.length > 0 ? sortedUnion(this.state.disclosed, fresh) : this.state.disclosed,
      visible: granted.length > 0 ? sortedUnion(this.state.visible, granted) : this.state.visible,
    };
    const { conversation, role } = this.options;
    // Persist first: a projection wider than the record would be lost on restart.
    const visit = this.options.visit();
    this.options.commit(
      next,
      disclosureRecord({ conversation, role, visit, request, requested, reason, outcome, disclosed: fresh, problems }),
    );
    this.state = next;
    for (const p of fresh) this.disclosed.add(p);
    if (granted.length > 0) this.options.projection.disclose(granted);
    if (problems.length === 0) return { outcome, disclosedPaths: granted };
    // `detail` is for the run log only (it may name host paths).
    return { outcome, disclosedPaths: granted, problems: problems.map(({ path, code, message }) => ({ path, code, message })) };
  }
}

function sortedUnion(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}
