/**
 * The JSON `data` gatefs keeps in a workspace record: the role's tools and mounts when it was
 * prepared, what the preparation created (so a rollback removes exactly that), and progressive
 * disclosure's state. Other steps keep their own records beside these fields (`data.release`,
 * release-record.ts; `data.lower`, src/host/lower/lower-record.ts).
 */
import type { DisclosureState } from '../../disclosure/index.js';
import type { MountSpec } from '../../manifest/index.js';
import type { WorkspaceRecord } from '../../state/index.js';

/** What gatefs created during a preparation, so a rollback removes exactly that. */
export interface CreatedByPreparation {
  branch?: boolean;
  worktree?: boolean;
  folder?: boolean;
}

/** The JSON `data` gatefs keeps in a workspace record. */
export interface WorkspaceData {
  tools: string[];
  mounts: MountSpec[];
  created: CreatedByPreparation;
  reused?: boolean;
  /**
   * gatefs made the workspace's branch (this preparation, or an earlier one of the same
   * conversation and branch). An explicit branch gatefs did not make is never deleted by it.
   */
  branchMade?: boolean;
  /** Progressive disclosure (worktree roles with a policy); see `src/disclosure/disclosure-state.ts`. */
  disclosure?: DisclosureState;
}

/** Reads a record's `data` with defaults for fields an older record may lack. */
export function workspaceData(record: WorkspaceRecord): WorkspaceData {
  const d = record.data as Partial<WorkspaceData>;
  return {
    tools: d.tools ?? [],
    mounts: d.mounts ?? [],
    created: d.created ?? {},
    ...(d.reused ? { reused: true } : {}),
    ...(d.branchMade === true ? { branchMade: true } : {}),
  };
}
