/**
 * The "Runs" section of the status page: each run (newest first, at most `RUNS_SHOWN`) with its
 * visits, its handoffs and ends, the artifacts they declared (collected, or rejected with code
 * and reason) and its auto-patches. No host paths: an artifact shows its workspace-relative path
 * and a short sha256, never its store path. Everything an agent could name (a path, a message,
 * a role handed to, a rejection's reason) is HTML-escaped by `esc`, control and bidi characters
 * included; a rejected artifact is a ✗ row.
 */
import type { Host } from '../../host/composition/index.js';
import { esc } from './status-rows.js';

/** Runs the page shows at most (the newest). */
const RUNS_SHOWN = 20;
/** Characters of a handoff message the page shows (its first line). */
const MESSAGE_SHOWN = 200;

/** One run as the page shows it. */
export interface RunView {
  run: string;
  state: 'open' | 'ended';
  endedBy: string | null;
  visits: { role: string; visit: number; conversation: string; state: 'active' | 'ended'; ending: string | null }[];
  handoffs: { id: number; from: string; kind: string; to: string | null; message: string | null }[];
  artifacts: {
    handoff: number;
    from: string;
    path: string;
    collected: boolean;
    bytes: number | null;
    sha256: string | null;
    code: string | null;
    reason: string | null;
  }[];
  patches: { conversation: string; n: number; reason: string; files: number; bytes: number; sha256: string }[];
}

/** The runs of `host`, newest first (at most `RUNS_SHOWN`). */
export function runViews(host: Host): RunView[] {
  return host.runs
    .list()
    .slice(-RUNS_SHOWN)
    .reverse()
    .map((r): RunView => {
      const status = host.runs.status(r.run);
      return {
        run: r.run,
        state: r.endedAt === null ? 'open' : 'ended',
        endedBy: r.endedBy,
        visits: status.visits.map((v) => ({
          role: v.role,
          visit: v.visit,
          conversation: v.conversation,
          state: v.endedAt === null ? 'active' : 'ended',
          ending: v.ending,
        })),
        handoffs: status.handoffs.map((h) => ({
          id: h.id,
          from: `${h.role}-v${h.visit}`,
          kind: h.kind,
          to: h.to,
          message: h.message === null ? null : (h.message.split(/\r?\n/, 1)[0] ?? '').slice(0, MESSAGE_SHOWN),
        })),
        artifacts: status.handoffs.flatMap((h) =>
          h.artifacts.map((a) => ({
            handoff: h.id,
            from: `${h.role}-v${h.visit}`,
            path: a.path,
            collected: a.record === 'artifact_collected',
            bytes: a.record === 'artifact_collected' ? a.bytes : null,
            sha256: a.record === 'artifact_collected' ? a.sha256.slice(0, 12) : null,
            code: a.record === 'artifact_rejected' ? a.code : null,
            reason: a.record === 'artifact_rejected' ? a.reason : null,
          })),
        ),
        patches: status.patches.map((p) => ({
          conversation: p.conversation,
          n: p.n,
          reason: p.reason,
          files: p.files,
          bytes: p.bytes,
          sha256: p.sha256.slice(0, 12),
        })),
      };
    });
}

const cells = (values: unknown[]) => values.map((v) => `<td>${esc(v)}</td>`).join('');
const table = (headers: string[], rows: string[]) =>
  `<div class="scroll"><table><thead><tr>${headers.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;

/** The HTML of the Runs section's body (the live feed sends it again when it changes). */
export function runsHtml(runs: readonly RunView[]): string {
  if (runs.length === 0) return '<p class="empty">No runs yet (gatefs prepare ID --run RUN starts one).</p>';
  return runs.map(runHtml).join('');
}

function runHtml(r: RunView): string {
  const state = r.state === 'open' ? 'open' : `ended by ${esc(r.endedBy)}`;
  const parts = [`<h3 class="run"><span class="id">${esc(r.run)}</span> <span class="badge">${state}</span></h3>`];
  parts.push(
    table(
      ['Role', 'Visit', 'Conversation', 'State', 'Ended by'],
      r.visits.map((v) => `<tr>${cells([v.role, v.visit, v.conversation, v.state, v.ending])}</tr>`),
    ),
  );
  if (r.handoffs.length > 0) {
    parts.push(
      table(
        ['Handoff', 'From', 'To', 'Message'],
        r.handoffs.map((h) => `<tr>${cells([h.id, h.from, h.kind === 'end' ? '(end)' : h.to, h.message])}</tr>`),
      ),
    );
  }
  if (r.artifacts.length > 0) {
    parts.push(
      table(
        ['Handoff', 'From', 'Artifact', 'Record', 'Bytes / code', 'SHA-256 / reason'],
        r.artifacts.map((a) =>
          a.collected
            ? `<tr>${cells([a.handoff, a.from, a.path, 'collected', a.bytes, a.sha256])}</tr>`
            : `<tr class="fail"><td><span class="mark" title="rejected">✗</span> ${esc(a.handoff)}</td>${cells([a.from, a.path, 'rejected', a.code, a.reason])}</tr>`,
        ),
      ),
    );
  }
  if (r.patches.length > 0) {
    parts.push(
      table(
        ['Auto-patch', 'Conversation', 'Reason', 'Files', 'Bytes', 'SHA-256'],
        r.patches.map((p) => `<tr>${cells([p.n, p.conversation, p.reason, p.files, p.bytes, p.sha256])}</tr>`),
      ),
    );
  }
  return `<div class="runbox">${parts.join('')}</div>`;
}
