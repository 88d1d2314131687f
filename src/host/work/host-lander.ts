/**
 * The host's lander: builds a `Lander` (src/lander/lander.ts) over the host's store, landing
 * port, settings and check runner, with its checkout derived from the state directory
 * (`<stateDir>/lander/<target>`: a real folder gatefs made, never a link), and lists the queue
 * for `gatefs lander status`.
 */
import { blockedMoveText, Lander, type DrainReport } from '../../lander/index.js';
import type { SavePointHook } from '../../lander/index.js';
import type { CheckRunner } from '../../ports/index.js';
import type { SubmissionRecord } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { LanderSettings } from '../../manifest/index.js';
import type { Clock } from '../../ports/index.js';
import type { IdSource } from '../../ports/index.js';
import type { ProcessLiveness } from '../../ports/index.js';
import type { StateStore } from '../../state/index.js';
import type { HostPlatform } from '../platform/index.js';
import { stateDirNames } from '../state-trust/index.js';
import { GATEFS_COMMITTER } from './work-service.js';

/** One row of `gatefs lander status`. No host paths. */
export interface SubmissionStatus {
  id: string;
  requestId: string;
  conversation: string;
  /** The branch it lands on (`main`). */
  target: string;
  state: SubmissionRecord['state'];
  commit: string;
  candidateSha: string | null;
  landedSha: string | null;
  /** The remote commit that holds the landing: `landedSha`, or its re-merge onto a remote another lander moved; null until pushed. */
  pushedSha: string | null;
  attempts: number;
  pushAttempts: number;
  pushError: string | null;
  /** Why it failed (`CHECK_FAILED`, …), or why its move is blocked (`UNCOMMITTED_CHANGES`, `UNTRACKED_FILES`); null otherwise. */
  reason: string | null;
  /** A checked (or landed, re-merged) submission whose move onto its target is blocked right now: why, and what unblocks it. */
  blocked: { reason: string; files: string[]; since: number; why: string; unblock: string } | null;
  /** What a failed submission's submitter was told (one line), when it failed. */
  failure: string | null;
}

/** What the host's lander uses of the host: the store, git and folders through the platform, the settings, the clock, ids, this process. */
export interface LanderParts {
  readonly platform: HostPlatform;
  readonly store: StateStore;
  readonly settings: LanderSettings;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** This process (pid + start time), the owner of the lander lock. */
  readonly liveness: Pick<ProcessLiveness, 'self'>;
}

/** The host's lander hooks (the check runner, the crash test's save points, the wait between push tries). */
interface HostLanderOptions {
  checks: CheckRunner;
  savePoint?: SavePointHook;
  wait?: (ms: number) => Promise<void>;
}

/** Drains the queue of `target` (every target when omitted) once; see `Lander.drain`. */
export function runLander(parts: LanderParts, options: HostLanderOptions, target?: string): Promise<DrainReport> {
  const { platform } = parts;
  const { pid, start } = parts.liveness.self;
  const lander = new Lander({
    store: parts.store,
    git: platform.landing,
    checks: parts.settings.checks,
    runner: options.checks,
    push: parts.settings.push,
    checkoutFor: (t) => landerCheckout(platform, t),
    memory: { appendOnce: (key, line) => platform.appendProjectMemory(key, line) },
    clock: parts.clock,
    owner: { pid, start },
    token: parts.ids.next('lander'),
    committer: GATEFS_COMMITTER,
    protectedPaths: stateDirNames(platform),
    ...(options.savePoint ? { savePoint: options.savePoint } : {}),
    ...(options.wait ? { wait: options.wait } : {}),
  });
  return lander.drain(target === undefined ? undefined : target.startsWith('refs/') ? target : `refs/heads/${target}`);
}

/** The queue as status rows, oldest first. */
export function landerStatus(store: Pick<StateStore, 'submissions'>): SubmissionStatus[] {
  return store.submissions.list().map((s) => ({
    id: s.id,
    requestId: s.requestId,
    conversation: s.conversation,
    target: s.target.replace(/^refs\/heads\//, ''),
    state: s.state,
    commit: s.commitSha,
    candidateSha: s.candidateSha,
    landedSha: s.landedSha,
    pushedSha: s.pushedSha,
    attempts: s.attempts,
    pushAttempts: s.pushAttempts,
    pushError: s.pushError,
    reason: s.state === 'failed' ? s.outcome.reason : (blockedOf(s)?.reason ?? null),
    blocked: blockedOf(s),
    failure: s.state === 'failed' ? s.outcome.message : null,
  }));
}

/** The blocked move of a submission that is waiting for it (`checked`, or `landed` with a re-merge to move). */
function blockedOf(s: SubmissionRecord): SubmissionStatus['blocked'] {
  if (s.blocked === null || (s.state !== 'checked' && s.state !== 'landed')) return null;
  return { reason: s.blocked.reason, files: s.blocked.files, since: s.blocked.at, ...blockedMoveText(s.blocked, s.target) };
}

/**
 * `<stateDir>/lander/<name>`, the name derived from the target ref (`refs/heads/a/b` → `a%2Fb`).
 * Creates `<stateDir>/lander` when missing; throws `WorkspaceError` `STATE_UNTRUSTED` when it
 * or the checkout is a link or not a folder.
 */
function landerCheckout(platform: Pick<HostPlatform, 'stateDir' | 'join' | 'folderState' | 'makeFolder'>, target: string): string {
  const area = platform.join(platform.stateDir, 'lander');
  const areaState = platform.folderState(area);
  if (areaState === 'missing') platform.makeFolder(area);
  else if (areaState !== 'folder') throw untrusted(area);
  const name = target
    .replace(/^refs\/heads\//, '')
    .replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  const path = platform.join(area, name.startsWith('.') ? `%2E${name.slice(1)}` : name);
  const state = platform.folderState(path);
  if (state !== 'missing' && state !== 'folder') throw untrusted(path);
  return path;
}

function untrusted(path: string): WorkspaceError {
  return new WorkspaceError('STATE_UNTRUSTED', `'${path}' is not a folder gatefs made: the lander never works through it`, {
    reason: 'LINK_IN_STATE_DIR',
  });
}
