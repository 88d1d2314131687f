/**
 * The run tables (migration 10; docs/ARCHITECTURE.md § Runs, handoffs and artifacts):
 *
 * - `runs`: one row per run (a group of conversations whose roles take turns), made by the first
 *   conversation prepared in it; `ended_at` once a visit called `end`.
 * - `visits`: one row per conversation prepared in a run (listed in the order they were made): its run, role and visit number (the n-th
 *   conversation of a role in a run is its visit n). Rows are never removed, so a released
 *   conversation still counts against `max_visits` and its number is never given again.
 * - `handoffs`: a visit's ending, `handoff` (to a role, with artifacts) or `end`; `folder` is the
 *   artifact folder's name under `<stateDir>/artifacts/<run>/` (`<role>-v<visit>`) when it holds
 *   any collected artifact.
 * - `artifacts`: per declared file of a handoff, in declared order (`seq`), the record
 *   `artifact_collected` (its sha256 and size) or `artifact_rejected` (a code and the reason).
 * - `patches`: the auto-patches of worktree visits (the workspace against its pinned base), kept
 *   in the artifact store by sha256, never routed.
 *
 * A handoff and its artifact records are committed by one transaction (`recordHandoff`), after
 * every object it names is stored, so no record points at nothing.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/index.js';

/** One run. */
export interface RunRow {
  run: string;
  createdAt: number;
  endedAt: number | null;
  /** The conversation whose `end` ended it. */
  endedBy: string | null;
}

/** How a visit ended. */
export type VisitEnding = 'handoff' | 'end';

/** One conversation's visit of a role in a run. */
export interface VisitRow {
  conversation: string;
  run: string;
  role: string;
  /** 1 for the role's first conversation in the run, 2 for its second, … */
  visit: number;
  startedAt: number;
  endedAt: number | null;
  ending: VisitEnding | null;
}

/** One artifact record of a handoff (a declared file). */
export type ArtifactRecord =
  | { record: 'artifact_collected'; path: string; sha256: string; bytes: number }
  | { record: 'artifact_rejected'; path: string; code: string; reason: string };

/** A handoff or end as stored, with its artifact records in declared order. */
export interface HandoffRow {
  id: number;
  run: string;
  conversation: string;
  role: string;
  visit: number;
  kind: VisitEnding;
  /** The role handed to (null for `end`). */
  to: string | null;
  message: string | null;
  /** `<role>-v<visit>`: the artifact folder under `<stateDir>/artifacts/<run>/`; null when nothing was collected. */
  folder: string | null;
  createdAt: number;
  artifacts: ArtifactRecord[];
}

/** What `recordHandoff` stores (the id and time are given by the table). */
export type HandoffDraft = Omit<HandoffRow, 'id' | 'createdAt'>;

/** One auto-patch of a worktree visit. */
export interface PatchRow {
  conversation: string;
  /** Numbered per conversation from 1. */
  n: number;
  run: string;
  role: string;
  visit: number;
  /** What made it: `handoff`, `end` or `release`. */
  reason: string;
  /** The pinned base the workspace is compared with. */
  baseSha: string;
  /** The patch's object in the artifact store. */
  sha256: string;
  bytes: number;
  /** Files the patch changes. */
  files: number;
  createdAt: number;
}

interface HandoffDbRow {
  id: number;
  run: string;
  conversation: string;
  role: string;
  visit: number;
  kind: VisitEnding;
  to_role: string | null;
  message: string | null;
  folder: string | null;
  created_at: number;
}

interface ArtifactDbRow {
  handoff: number;
  seq: number;
  path: string;
  record: ArtifactRecord['record'];
  sha256: string | null;
  bytes: number | null;
  code: string | null;
  reason: string | null;
}

/** Prepared statements over the run tables. Construct once per connection. */
export class RunTable {
  private readonly s: Record<string, Statement>;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.s = {
      run: db.prepare('SELECT run, created_at AS createdAt, ended_at AS endedAt, ended_by AS endedBy FROM runs WHERE run = ?'),
      runs: db.prepare(
        'SELECT run, created_at AS createdAt, ended_at AS endedAt, ended_by AS endedBy FROM runs ORDER BY created_at, rowid',
      ),
      putRun: db.prepare('INSERT INTO runs (run, created_at) VALUES (?, ?) ON CONFLICT (run) DO NOTHING'),
      endRun: db.prepare('UPDATE runs SET ended_at = ?, ended_by = ? WHERE run = ? AND ended_at IS NULL'),
      visit: db.prepare(
        'SELECT conversation, run, role, visit, started_at AS startedAt, ended_at AS endedAt, ending FROM visits WHERE conversation = ?',
      ),
      visitsOf: db.prepare(
        'SELECT conversation, run, role, visit, started_at AS startedAt, ended_at AS endedAt, ending FROM visits WHERE run = ? ORDER BY started_at, rowid',
      ),
      maxVisit: db.prepare('SELECT MAX(visit) AS n FROM visits WHERE run = ? AND role = ?'),
      putVisit: db.prepare('INSERT INTO visits (conversation, run, role, visit, started_at) VALUES (?, ?, ?, ?, ?)'),
      endVisit: db.prepare('UPDATE visits SET ended_at = ?, ending = ? WHERE conversation = ? AND ended_at IS NULL'),
      putHandoff: db.prepare(
        `INSERT INTO handoffs (run, conversation, role, visit, kind, to_role, message, folder, created_at)
         VALUES (@run, @conversation, @role, @visit, @kind, @to, @message, @folder, @createdAt)`,
      ),
      putArtifact: db.prepare(
        `INSERT INTO artifacts (handoff, seq, path, record, sha256, bytes, code, reason)
         VALUES (@handoff, @seq, @path, @record, @sha256, @bytes, @code, @reason)`,
      ),
      handoffsOf: db.prepare('SELECT * FROM handoffs WHERE run = ? ORDER BY id'),
      handoff: db.prepare('SELECT * FROM handoffs WHERE id = ?'),
      handoffsTo: db.prepare("SELECT * FROM handoffs WHERE run = ? AND kind = 'handoff' AND to_role = ? ORDER BY id"),
      lastHandoff: db.prepare('SELECT MAX(id) AS id FROM handoffs WHERE run = ?'),
      artifactsOf: db.prepare('SELECT * FROM artifacts WHERE handoff = ? ORDER BY seq'),
      allFolders: db.prepare('SELECT run, folder FROM handoffs WHERE folder IS NOT NULL'),
      allObjects: db.prepare("SELECT sha256 FROM artifacts WHERE record = 'artifact_collected' UNION SELECT sha256 FROM patches"),
      putPatch: db.prepare(
        `INSERT INTO patches (conversation, n, run, role, visit, reason, base_sha, sha256, bytes, files, created_at)
         VALUES (@conversation, @n, @run, @role, @visit, @reason, @baseSha, @sha256, @bytes, @files, @createdAt)`,
      ),
      maxPatch: db.prepare('SELECT MAX(n) AS n FROM patches WHERE conversation = ?'),
      patchesOf: db.prepare(
        `SELECT conversation, n, run, role, visit, reason, base_sha AS baseSha, sha256, bytes, files, created_at AS createdAt
         FROM patches WHERE conversation = ? ORDER BY n`,
      ),
      patchesOfRun: db.prepare(
        `SELECT conversation, n, run, role, visit, reason, base_sha AS baseSha, sha256, bytes, files, created_at AS createdAt
         FROM patches WHERE run = ? ORDER BY created_at, conversation, n`,
      ),
    };
  }

  /** One run, or undefined. */
  run(run: string): RunRow | undefined {
    return this.s.run!.get(run) as RunRow | undefined;
  }

  /** Every run, oldest first. */
  runs(): RunRow[] {
    return this.s.runs!.all() as RunRow[];
  }

  /** The visit of `conversation`, or undefined (prepared before runs existed, or never). */
  visitOf(conversation: string): VisitRow | undefined {
    return this.s.visit!.get(conversation) as VisitRow | undefined;
  }

  /** The visits of a run, in the order they started. */
  visits(run: string): VisitRow[] {
    return this.s.visitsOf!.all(run) as VisitRow[];
  }

  /**
   * Gives `conversation` the next visit of `role` in `run` (making the run), in one IMMEDIATE
   * transaction so two processes never get one number; answers the existing visit when it has
   * one. `allowed(next)` is asked first with the number it would get: returning false gives
   * `undefined` and records nothing (`max_visits`).
   */
  startVisit(conversation: string, run: string, role: string, allowed: (next: number) => boolean): VisitRow | undefined {
    return this.db
      .transaction((): VisitRow | undefined => {
        const existing = this.visitOf(conversation);
        if (existing) return existing;
        const next = ((this.s.maxVisit!.get(run, role) as { n: number | null }).n ?? 0) + 1;
        if (!allowed(next)) return undefined;
        const now = this.clock.now();
        this.s.putRun!.run(run, now);
        this.s.putVisit!.run(conversation, run, role, next, now);
        return this.visitOf(conversation);
      })
      .immediate();
  }

  /**
   * Commits a handoff or end with its artifact records, and ends the visit (and, for `end`, the
   * run), in one transaction. Answers the stored row. Returns undefined, recording nothing, when
   * the visit already ended.
   */
  recordHandoff(draft: HandoffDraft): HandoffRow | undefined {
    return this.db
      .transaction((): HandoffRow | undefined => {
        const now = this.clock.now();
        if (this.s.endVisit!.run(now, draft.kind, draft.conversation).changes === 0) return undefined;
        const id = Number(
          this.s.putHandoff!.run({
            run: draft.run,
            conversation: draft.conversation,
            role: draft.role,
            visit: draft.visit,
            kind: draft.kind,
            to: draft.to,
            message: draft.message,
            folder: draft.folder,
            createdAt: now,
          }).lastInsertRowid,
        );
        draft.artifacts.forEach((a, seq) =>
          this.s.putArtifact!.run({
            handoff: id,
            seq,
            path: a.path,
            record: a.record,
            sha256: a.record === 'artifact_collected' ? a.sha256 : null,
            bytes: a.record === 'artifact_collected' ? a.bytes : null,
            code: a.record === 'artifact_rejected' ? a.code : null,
            reason: a.record === 'artifact_rejected' ? a.reason : null,
          }),
        );
        if (draft.kind === 'end') this.s.endRun!.run(now, draft.conversation, draft.run);
        return this.handoff(id);
      })
      .immediate();
  }

  /** One handoff with its artifact records, or undefined. */
  handoff(id: number): HandoffRow | undefined {
    const row = this.s.handoff!.get(id) as HandoffDbRow | undefined;
    return row ? this.withArtifacts(row) : undefined;
  }

  /** A run's handoffs and ends, oldest first, with their artifact records. */
  handoffs(run: string): HandoffRow[] {
    return (this.s.handoffsOf!.all(run) as HandoffDbRow[]).map((r) => this.withArtifacts(r));
  }

  /** The handoffs of a run addressed to `role`, oldest first (what a receiver of that role is routed). */
  handoffsTo(run: string, role: string): HandoffRow[] {
    return (this.s.handoffsTo!.all(run, role) as HandoffDbRow[]).map((r) => this.withArtifacts(r));
  }

  /**
   * The id of the run's newest handoff or end (0 when none): one indexed read, cheap enough for
   * every tool call, so a receiver's view can tell a handoff arrived since it was opened (any
   * process).
   */
  lastHandoffOf(run: string): number {
    return (this.s.lastHandoff!.get(run) as { id: number | null }).id ?? 0;
  }

  /** Every artifact folder a handoff names, as `{ run, folder }` (to tell a folder a crash left without a record). */
  folders(): { run: string; folder: string }[] {
    return this.s.allFolders!.all() as { run: string; folder: string }[];
  }

  /** Every object id a record names (collected artifacts and patches). */
  objects(): Set<string> {
    return new Set((this.s.allObjects!.pluck().all() as string[]).filter(Boolean));
  }

  /** Records an auto-patch (numbered per conversation); answers the row. */
  recordPatch(patch: Omit<PatchRow, 'n' | 'createdAt'>): PatchRow {
    return this.db
      .transaction((): PatchRow => {
        const n = ((this.s.maxPatch!.get(patch.conversation) as { n: number | null }).n ?? 0) + 1;
        const row: PatchRow = { ...patch, n, createdAt: this.clock.now() };
        this.s.putPatch!.run(row);
        return row;
      })
      .immediate();
  }

  /** A conversation's auto-patches, oldest first. */
  patches(conversation: string): PatchRow[] {
    return this.s.patchesOf!.all(conversation) as PatchRow[];
  }

  /** A run's auto-patches, oldest first. */
  patchesOfRun(run: string): PatchRow[] {
    return this.s.patchesOfRun!.all(run) as PatchRow[];
  }

  private withArtifacts(row: HandoffDbRow): HandoffRow {
    const artifacts = (this.s.artifactsOf!.all(row.id) as ArtifactDbRow[]).map(
      (a): ArtifactRecord =>
        a.record === 'artifact_collected'
          ? { record: a.record, path: a.path, sha256: a.sha256 ?? '', bytes: a.bytes ?? 0 }
          : { record: a.record, path: a.path, code: a.code ?? '', reason: a.reason ?? '' },
    );
    return {
      id: row.id,
      run: row.run,
      conversation: row.conversation,
      role: row.role,
      visit: row.visit,
      kind: row.kind,
      to: row.to_role,
      message: row.message,
      folder: row.folder,
      createdAt: row.created_at,
      artifacts,
    };
  }
}
