/**
 * The run log's catalogue: every event type gatefs appends, the shape of its `data`, and what it
 * means in one line. `gatefs log --json`, `host.events()` and the status page show these
 * records as they are, so each type and its fields are a public interface: add fields, never
 * rename, remove or repurpose one. `RunLog.append` takes drafts of these types only (the type
 * system refuses any other), and test/state/run-log-catalogue.test.ts proves every type listed
 * is emitted somewhere in the source and every type emitted is listed (as tools/codes.ts does
 * for the tool error codes).
 *
 * Every event also has `seq`, `at` and `conversation` (the conversation it concerns, or null for
 * the host's own). Events are read back as written (`RunEvent`): a log written by an older
 * gatefs may hold types or fields this catalogue no longer lists.
 */
import type { ToolErrorCode } from '../../tools/index.js';
import type { DisclosureOutcome } from '../../tools/index.js';
import type { ToolCallRecord } from '../gate/index.js';
import type { BlockedReason } from '../git/index.js';
import type { Backend } from '../manifest/index.js';
import type { OccupancyMode } from './occupancy-table.js';
import type { BindingMode } from './binding-table.js';

/** What undoing a failed or interrupted preparation removed (`prepare.rolled_back`, `prepare.failed`). */
export interface PreparationRollback {
  removedWorktree: boolean;
  deletedBranch: boolean;
  removedFolder: boolean;
  /** What could not be removed, one line each (may name host paths: the run log is the operator's). */
  problems: string[];
}

/** The data of every event type, by type. */
export interface RunEventData {
  // The gate and the host's processes.
  tool_call: ToolCallRecord['data'];
  exec: {
    /** The task that ran it: `prepare`, `release`, `lander`, `submit`, `start`, … */
    tag: string;
    /** The conversation chain, parents first (empty for the host's own commands). */
    chain: string[];
    argv: string[];
    /** The working folder, relative to the repository where it is inside it. */
    cwd: string;
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    durationMs: number | null;
    /** The code of the error when the command could not be run at all. */
    error?: string;
    /** True for an agent's command run in its kernel sandbox (`exec`, `check`); `argv` is then `/bin/sh -c <command>` (the command cut at 2,000 characters). */
    sandboxed?: true;
    /** The limit that ended a sandboxed command (`memory`, `processes`, `output`). */
    limit?: string;
    /** How many paths a sandboxed command added, modified or deleted. */
    changed?: number;
  };
  'host.start': { confinement: string; workspaces: number };
  'registry.unavailable': { code: string; reason?: string; message: string };
  // Preparation.
  'prepare.start': { role: string; backend: Backend; baseRef: string | null; pinnedSha: string | null; branch?: string };
  'prepare.ready': { backend: Backend; pinnedSha: string | null; branch: string | null; reused: boolean };
  'prepare.reused': { pinnedSha: string | null };
  /** A conversation got its visit of a role in a run (`visit` is the role's n-th conversation there). */
  'run.visit': { run: string; role: string; visit: number };
  'prepare.resumed': { branch: string; head: string; pinnedSha: string; landed: boolean };
  'prepare.checkout_missing': { backend: Backend };
  'prepare.rolled_back': PreparationRollback & { interrupted?: true };
  'prepare.failed': { code: string; reason: string | null; message: string; rollback?: PreparationRollback };
  // Lower folders of copy workspaces.
  'lower.building': { pinnedSha: string };
  'lower.ready':
    | { pinnedSha: string; finished: true }
    | { pinnedSha: string; files: number; links: number; submodules: number; rewritten: number; durationMs: number };
  'lower.stopped': { pinnedSha: string };
  'lower.unavailable': { pinnedSha: string; reason: string; path?: string; message?: string };
  'lower.failed': { code: string; message: string };
  'lower.unusable': { message: string };
  'lower.removed': Record<string, never>;
  // Disclosure.
  'disclosure.initial_missing': { missing: string[]; pinnedSha: string };
  progressive_disclosure: {
    role: string;
    /** The conversation's visit of its role in its run (the number max_visits counts); null for a workspace prepared before runs existed. */
    visit: number | null;
    /** The 1-based number of this request in the conversation. */
    request: number;
    /** The paths as requested (cut at 300 characters each). */
    requested: string[];
    reason: string;
    outcome: DisclosureOutcome;
    /** Paths newly disclosed by this request (repository-relative); [] unless approved. */
    disclosed: string[];
    /** One per refused path; `detail` says what failed when the code is `INTERNAL` or `BUSY`. */
    problems: { path: string; code: ToolErrorCode; detail?: string }[];
  };
  // Occupancy.
  'occupancy.acquire': { holder: string; mode: OccupancyMode };
  'occupancy.release': { holder: string };
  'occupancy.holder_gone': { holder: string; mode: OccupancyMode; pid: number | null; by: 'acquire' | 'write' };
  'occupancy.forced_end': { holder: string; mode: OccupancyMode; by: string };
  // Release and recovery.
  'release.start': { holder: string; discard: boolean; force: boolean };
  release: {
    conversation: string;
    removed: boolean;
    branchDeleted: boolean;
    branchKeptReason?: string;
    discarded?: boolean;
    forcedHolders?: string[];
    backend: Backend;
  };
  'release.refused': { code: 'OCCUPIED'; holder: string } | { code: 'DIRTY_WORKTREE'; files: string[]; count: number };
  'release.aborted': { code: string };
  'release.restore_failed': { message: string };
  'release.finished': { holder: string; discard: boolean; backend: Backend };
  'release.undone': { holder: string; step: string; problem?: string };
  'recover.failed': { message: string };
  'recover.unavailable': { message: string };
  // Work and subagents.
  'work.commit': { sha: string; files: number };
  'work.failed': { op: string; code: string; message: string };
  'work.apply': {
    applied: number;
    conflicts: number;
    skipped: number;
    unchanged: number;
    resumed: boolean;
    /** The paths applied, then the conflicting ones, at most 100 (never contents). */
    paths: string[];
  };
  // Snapshots; `snapshot` is the number within the conversation.
  'snapshot.taken': {
    snapshot: number;
    reason: string;
    label: string | null;
    files: number;
    changed: number;
    storedBytes: number;
    /** Entries left out (special files, names that are not UTF-8), at most 20. */
    skipped?: string[];
  };
  'snapshot.restoring': { snapshot: number; before: number };
  'snapshot.restored': { snapshot: number; before: number; written: number; removed: number; resumed: boolean };
  'snapshot.dropped': { count: number };
  /**
   * An auto-patch of a worktree visit was kept in the artifact store: its number in the
   * conversation, object, size, files changed (0: nothing changed) and what made it.
   */
  'patch.kept': { n: number; sha256: string; bytes: number; files: number; reason: string };
  /** A handoff was accepted and recorded: the visit it ended, the role handed to, how many declared files were collected and rejected. */
  'handoff.accepted': { handoff: number; run: string; visit: number; to: string; collected: number; rejected: number };
  /** A declared file of a handoff was collected into the artifact store. */
  'artifact.collected': { handoff: number; path: string; sha256: string; bytes: number };
  /** A declared file of a handoff was not collected (`code`: src/host/artifacts/rejection-codes.ts). */
  'artifact.rejected': { handoff: number; path: string; code: string };
  /** An `end` ended its visit and the whole run. */
  'run.ended': { run: string; handoff: number };
  // The agent model (src/host/agents/): bindings are occupancy records of workspaces by conversations.
  /** A conversation bound a workspace (another conversation's id, or `canonical`) in a mode; `previous`: the mode it had (a mode change). */
  'binding.attach': { workspace: string; mode: BindingMode; previous?: BindingMode };
  /** A conversation ended its binding of a workspace. */
  'binding.detach': { workspace: string; mode: BindingMode };
  /** A conversation's active workspace changed (where relative paths resolve and commands start). */
  'binding.switch': { workspace: string; from: string };
  /** A binding ended because the workspace's own conversation was released (`holder` lost it). */
  'binding.end': { workspace: string; holder: string; mode: BindingMode; reason: 'workspace-released' };
  /** An agent's home was made (first conversation of that agent identity) or a missing part of its layout made again. */
  'home.seeded': { agent: string; made: string[] };
  /** An agent home's tmp/ was emptied by the host. */
  'home.tmp_cleaned': { agent: string; entries: number };
  'subagent.start': { parent: string; base: string; from?: 'working'; snapshot?: number };
  'subagent.land': { parent: string; from: string; to: string; commits: number };
  'subagent.landed': { parent: string; head: string; commits: number };
  'subagent.discarded': { parent: string };
  // The lander; `submission` is the submission's id.
  'lander.submitted': { submission: string; commit: string; target: string };
  'lander.merging': { submission: string; attempt: number };
  'lander.checking': { submission: string; base: string; candidate: string; fastForward: boolean };
  'lander.checked':
    | { submission: string; candidate: string; alreadyLanded: true }
    | { submission: string; candidate: string; checks: number };
  'lander.target_moved': { submission: string; expected: string; head: string | null };
  'lander.blocked': { submission: string; reason: BlockedReason; files: string[] };
  'lander.landed': { submission: string; landedSha: string; target: string };
  'lander.local': { submission: string };
  'lander.remote_unreachable': { submission: string; remote: string; detail: string };
  'lander.remerging': { submission: string; remote: string; local: string };
  'lander.rechecked': { submission: string; candidate: string; expected: string; checks: number };
  'lander.push_failed': {
    submission: string;
    remote: string | null;
    detail: string;
    conflicts?: string[];
    check?: string;
    exitCode?: number | null;
  };
  'lander.pushed': { submission: string; remote: string | null; pushedSha: string; accepted: boolean };
  'lander.reported': { submission: string; landedSha: string };
  'lander.failed': { submission: string; reason: string };
}

/** One event type of the catalogue. */
export type RunEventType = keyof RunEventData;

/** An event of one of `types` without its conversation: a type and its data. */
export type RunEventBody<T extends RunEventType = RunEventType> = { [K in T]: { type: K; data: RunEventData[K] } }[T];

/** What a caller appends: an event of one of `types`, for a conversation or (null) the host. `seq` and `at` are the log's. */
export type EventDraft<T extends RunEventType = RunEventType> = {
  [K in T]: { type: K; conversation: string | null; data: RunEventData[K] };
}[T];

/** One line per event type: what happened. */
export const RUN_EVENT_DOCS: Readonly<Record<RunEventType, string>> = {
  tool_call:
    'A tool call went through the gate: the tool (and clientTool, the name the client called where a profile maps it), its outcome (ok or the error code), how long it took and the paths it named (as resolved; for grep and list the folder searched); never other arguments or contents.',
  exec: "A command ran: git for a gatefs task that changes something (prepare, release, commit, submit, the lander; not the host's own looks), or an agent's or the lander's sandboxed command: its task tag, conversation chain, argv, folder, exit code, signal and duration; never output.",
  'host.start':
    'A host opened the state directory to serve or to change something (a command that only reads opens quietly and records nothing): how it confines workspaces and how many are recorded.',
  'registry.unavailable':
    'A recorded workspace could not be registered for tool calls (its folder is a link, its role is gone, …): the code and why.',
  'prepare.start':
    'A preparation recorded the workspace (preparing) with its role, backend, base ref and pinned commit, before creating anything.',
  'prepare.ready': 'A preparation finished: the workspace serves tool calls.',
  'prepare.reused': 'A workspace already ready was prepared again and is served as it is.',
  'run.visit':
    "A preparation gave the conversation its visit of its role in a run (the role's n-th conversation there), counted against max_visits.",
  'prepare.resumed':
    "A worktree's branch from an earlier preparation (or an existing branch asked for by name) was found: moved up to the base (its work landed; gatefs/<id> only) or kept, pinned at the merge base.",
  'prepare.checkout_missing': "A ready workspace's checkout was gone and is made again from the same branch and pin.",
  'prepare.rolled_back': 'What a preparation that failed or was interrupted had created was removed (interrupted: found at a restart).',
  'prepare.failed': 'A preparation failed and what it created was removed: the code, the reason and the message.',
  'lower.building':
    "A copy workspace's lower folder (its pinned commit checked out under the state directory) is being built in the background.",
  'lower.ready': 'A lower folder was built and verified (or found finished by an earlier build); the workspace reads from it from now on.',
  'lower.stopped': 'A lower folder build stopped because the host closed or the workspace was released; the next one starts over.',
  'lower.unavailable':
    'A lower folder cannot be made for this commit (git refused, or the files did not verify): the workspace keeps reading git objects.',
  'lower.failed': 'A lower folder build failed for a reason that may pass (no space, no descriptors); the next view tries again.',
  'lower.unusable': 'A finished lower folder could not be opened; the workspace keeps reading git objects.',
  'lower.removed': "A copy workspace's lower folder was removed (release, rollback, a new preparation).",
  'disclosure.initial_missing': "Some of a role's initial_paths are not in the pinned commit and were not disclosed.",
  progressive_disclosure:
    'A request_files call: the paths asked for and why, the outcome, what was disclosed and what was refused with which code.',
  'occupancy.acquire': 'A holder (an MCP session, a release) took a conversation in shared-read or exclusive-write mode.',
  'occupancy.release': 'A holder gave its occupancy of a conversation back.',
  'occupancy.holder_gone': 'A holder whose process is gone was released by the next caller (by: on acquire, or on a write).',
  'occupancy.forced_end': 'A release with force ended a live holder’s occupancy.',
  'release.start': 'A release began, recorded before anything is removed (holder, discard, force).',
  release:
    'A workspace was released: whether its checkout was removed, its branch deleted (or why kept), files discarded, holders forced out.',
  'release.refused':
    'A release was refused and nothing changed: the workspace is occupied (holder) or holds work (files that are not committed).',
  'release.aborted': 'A release failed part-way and was undone: the workspace serves again; the code of the failure.',
  'release.restore_failed': 'After a failed release, the workspace could not be registered again for tool calls.',
  'release.finished': 'A release a crash interrupted was finished at the next start.',
  'release.undone': 'A release a crash interrupted was undone at the next start (the step it had reached, and why it could not finish).',
  'recover.failed': 'Recovering a workspace at start-up (an interrupted preparation or release) failed; it is retried at the next start.',
  'recover.unavailable': 'A recovered workspace could not be registered for tool calls.',
  'work.commit': 'A commit was made on a workspace’s branch (the commit tool or gatefs commit): its sha and how many files it changed.',
  'work.failed': 'diff, commit or submit failed unexpectedly for a workspace: the operation, the code and the message.',
  'work.apply':
    'A copy workspace’s changes were applied to its source folder (gatefs apply; not for --dry-run): how many paths were applied, conflicted, skipped or already there, whether an interrupted apply was finished, and the paths.',
  'subagent.start': 'A subagent was started from its parent’s branch head (base).',
  'subagent.land': "A subagent's landing on its parent's branch began: the parent's head (from), the child's (to), the commits.",
  'subagent.landed': "A subagent landed on its parent's branch and was released.",
  'subagent.discarded': "A subagent's clean checkout was removed; its branch is kept.",
  'lander.submitted': 'Work was queued for the lander: the submission, its commit and the target branch.',
  'lander.merging': 'A landing attempt started (recorded before merging): the attempt number.',
  'binding.attach':
    "A conversation bound a workspace (another conversation's, or canonical: the source checkout) shared-read or exclusive-write; an occupancy record with holder, mode and time.",
  'binding.detach': 'A conversation ended its binding of a workspace (the occupancy record is released).',
  'binding.switch': "A conversation's active workspace changed: relative paths resolve there and commands start there.",
  'binding.end': "A binding ended because the workspace's own conversation was released: its holder no longer sees it.",
  'home.seeded': "An agent's home (/home) was made with its layout, or missing parts of the layout were made again.",
  'home.tmp_cleaned': "An agent home's tmp/ was emptied by the host.",
  'lander.checking': 'The candidate was made (a merge, or the submitted commit for a fast-forward) and recorded; the checks run next.',
  'lander.checked': 'Every check passed on the candidate (or the target already held the work: alreadyLanded); the target moves next.',
  'lander.target_moved': 'The target branch moved since the candidate was checked: the submission is merged and checked again.',
  'snapshot.taken':
    "A snapshot of the conversation's whole workspace was recorded (who took it, its label, its files, how many changed since the last one and the bytes it added to the store).",
  'snapshot.restoring':
    'A restore begins: the workspace as it was is snapshot `before`; a crash from here on is finished by the next host.',
  'snapshot.restored': 'The workspace holds exactly the snapshot again (written and removed entries; resumed: finished after a crash).',
  'snapshot.dropped': "A released workspace's snapshots were removed with it (release without --keep-snapshots).",
  'patch.kept':
    "A worktree visit's auto-patch (a binary git diff of the workspace against its pinned base, untracked files in, ignored ones out) was stored; never routed, never applied.",
  'handoff.accepted':
    'A handoff ended its visit: its collected files are in the run folder <role>-v<visit> of the artifact store, routed to the role it names.',
  'artifact.collected':
    "A declared file of a handoff was collected: its bytes are an object of the artifact store (sha256), linked into the handoff's folder.",
  'artifact.rejected':
    'A declared file of a handoff was not collected (a link, a folder, outside the workspace, over a cap, …); the code says which, the handoff still counts.',
  'run.ended': 'An end ended its visit and the whole run: preparing into the run is refused from now on, and so is every later handoff.',
  'lander.blocked':
    'Moving the target would overwrite files of the checkout that has it checked out: nothing moved; the next run tries again.',
  'lander.landed': 'The target branch points at the landed commit, recorded once and never changed.',
  'lander.local': 'A landing without a remote to push to is complete locally.',
  'lander.remote_unreachable': 'The remote could not be reached: the landing goes on locally and its push waits for a later run.',
  'lander.remerging': 'The remote moved on (another lander pushed first): the landing is merged onto its head, recorded before merging.',
  'lander.rechecked': 'The re-merge onto the remote passed the checks; the local branch moves to it next.',
  'lander.push_failed':
    'A push try failed or its re-merge could not be made: the landing stays local, why is recorded, the next run tries again.',
  'lander.pushed': 'The remote holds the landing (pushedSha: the remote commit that holds it; accepted: this push put it there).',
  'lander.reported': "The landing's report and note were delivered and the submission is done.",
  'lander.failed': 'A submission failed (a check, a merge conflict, no target, a protected path): the submitter has an input saying why.',
};

/** Every event type of the catalogue, in the order listed. */
export const RUN_EVENT_TYPES = Object.keys(RUN_EVENT_DOCS) as RunEventType[];
