/**
 * The readable text of `gatefs run status RUN` and `gatefs artifacts RUN`: a run's visits,
 * handoffs, collected and rejected artifacts and auto-patches as tables. Everything an agent
 * could name (a path, a message, a rejection's reason) goes through `formatTable`, which keeps
 * each cell to one terminal-safe line; a handoff's message shows its first line only.
 */
import { terminalSafeLine } from '../../tools/text/index.js';
import type { RunArtifact, RunStatus } from '../host/artifacts/index.js';
import type { PatchRow } from '../state/index.js';
import { formatBytes } from './snapshot-text.js';
import { formatTable } from './table.js';

/** An auto-patch as the CLI lists it: its row and, when the host says it, its object's host path. */
export type ListedPatch = PatchRow & { storePath?: string | null };

/** One run as `gatefs run list` shows it. */
export interface ListedRun {
  run: string;
  createdAt: number;
  endedAt: number | null;
  endedBy: string | null;
  visits: number;
  handoffs: number;
  collected: number;
  rejected: number;
}

/** The text of `gatefs run list`: one row per run, oldest first. */
export function formatRunList(runs: readonly ListedRun[]): string {
  if (runs.length === 0) return 'No runs yet: gatefs prepare ID --role ROLE --run RUN starts one.';
  return formatTable(
    ['RUN', 'STARTED', 'STATE', 'VISITS', 'HANDOFFS', 'COLLECTED', 'REJECTED'],
    runs.map((r) => [
      r.run,
      whenOf(r.createdAt),
      r.endedAt === null ? 'open' : `ended by ${r.endedBy ?? '-'}`,
      r.visits,
      r.handoffs,
      r.collected,
      r.rejected,
    ]),
  );
}

/** The text of `gatefs run status RUN`. */
export function formatRunStatus(status: RunStatus & { patches: readonly ListedPatch[] }, artifacts: readonly RunArtifact[]): string {
  const { run, visits, handoffs } = status;
  const state = run.endedAt === null ? 'open' : `ended at ${whenOf(run.endedAt)} by ${run.endedBy ?? '-'}`;
  const sections = [`Run ${oneLine(run.run)}: ${state} (started ${whenOf(run.createdAt)})`];
  sections.push(
    section(
      'Visits',
      visits.length === 0
        ? null
        : formatTable(
            ['ROLE', 'VISIT', 'CONVERSATION', 'STATE', 'ENDED WITH'],
            visits.map((v) => [v.role, v.visit, v.conversation, v.endedAt === null ? 'active' : 'ended', v.ending]),
          ),
    ),
  );
  sections.push(
    section(
      'Handoffs',
      handoffs.length === 0
        ? null
        : formatTable(
            ['ID', 'FROM', 'TO', 'COLLECTED', 'REJECTED', 'MESSAGE'],
            handoffs.map((h) => [
              h.id,
              `${h.role}-v${h.visit}`,
              h.kind === 'end' ? '(end)' : h.to,
              h.artifacts.filter((a) => a.record === 'artifact_collected').length,
              h.artifacts.filter((a) => a.record === 'artifact_rejected').length,
              firstLine(h.message),
            ]),
          ),
    ),
  );
  sections.push(...artifactSections(artifacts, false));
  sections.push(patchSection(status.patches));
  return sections.join('\n\n');
}

/** The text of `gatefs artifacts RUN`: collected artifacts with their host store paths, rejections, patches. */
export function formatArtifacts(run: string, artifacts: readonly RunArtifact[], patches: readonly ListedPatch[]): string {
  return [`Artifacts of run ${oneLine(run)}`, ...artifactSections(artifacts, true), patchSection(patches)].join('\n\n');
}

/** The collected and the rejected artifacts, as two sections (with `paths`: the host store path of each collected one). */
function artifactSections(artifacts: readonly RunArtifact[], paths: boolean): string[] {
  const collected = artifacts.filter((a) => a.record === 'artifact_collected');
  const rejected = artifacts.filter((a) => a.record === 'artifact_rejected');
  const headers = ['HANDOFF', 'FROM', 'TO', 'PATH', 'BYTES', 'SHA256', ...(paths ? ['STORE PATH'] : [])];
  return [
    section(
      'Artifacts collected',
      collected.length === 0
        ? null
        : formatTable(
            headers,
            collected.map((a) => [
              a.handoff,
              `${a.role}-v${a.visit}`,
              a.to,
              a.path,
              a.bytes === null ? null : formatBytes(a.bytes),
              a.sha256?.slice(0, 12),
              ...(paths ? [a.storePath] : []),
            ]),
          ),
    ),
    section(
      'Artifacts rejected',
      rejected.length === 0
        ? null
        : formatTable(
            ['HANDOFF', 'FROM', 'PATH', 'CODE', 'REASON'],
            rejected.map((a) => [a.handoff, `${a.role}-v${a.visit}`, a.path, a.code, a.reason]),
          ),
    ),
  ];
}

function patchSection(patches: readonly ListedPatch[]): string {
  return section(
    'Auto-patches (kept, never applied)',
    patches.length === 0
      ? null
      : formatTable(
          ['CONVERSATION', 'N', 'ROLE', 'REASON', 'FILES', 'BYTES', 'SHA256', 'STORE PATH'],
          patches.map((p) => [
            p.conversation,
            p.n,
            `${p.role}-v${p.visit}`,
            p.reason,
            p.files,
            formatBytes(p.bytes),
            p.sha256.slice(0, 12),
            p.storePath,
          ]),
        ),
  );
}

function section(title: string, body: string | null): string {
  return `${title}:\n${body ?? '  (none)'}`;
}

/** The first line of a message (null stays null). */
function firstLine(message: string | null): string | null {
  if (message === null) return null;
  const line = message.split(/\r?\n/, 1)[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** A name printed outside a table, kept to one terminal-safe line. */
function oneLine(text: string): string {
  return terminalSafeLine(text);
}

/** A clock time as `2026-12-07 11:10:07` (UTC). */
function whenOf(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
