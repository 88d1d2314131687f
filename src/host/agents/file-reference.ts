/**
 * What resolving a file reference answers (`Host.resolveReference`, src/host/agents/resolve-reference.ts):
 * plain JSON, the same on the host API, `gatefs resolve --json` and `POST /api/file-references/resolve`.
 * The operator's view: host paths appear here (never in anything an agent sees).
 */
import type { EntryType } from '../../../vfs/index.js';
import { WorkspaceError, type WorkspaceErrorReason } from '../../workspace-error.js';

/** How the reference was written. */
export type ReferenceForm = 'namespace' | 'host' | 'uri' | 'relative';

/** The same file in one root: its root id and anchor, its namespace path, its URI. */
export interface FileReferenceRoot {
  /** The execution root's id: `canonical`, a conversation id, or `home` (one root per workspace: the id is the workspace's). */
  root: string;
  /** The root's namespace anchor: `/canonical`, `/worktrees/<id>` or `/home`. */
  rootAnchor: string;
  /** The file's namespace path in that root (links on the way followed). */
  namespacePath: string;
  /** `workspace://<root>/<path>?root=<root>`, each segment percent-encoded. */
  uri: string;
  /** True where tools refuse every change (or a view hides it): `.git`, the state directory, a home's `.gatefs/`, `gatefs.yaml` at the root. */
  protected: boolean;
}

/** A resolved file reference: the answer's root first, then every other root holding the same host path (`alsoIn`). */
export interface FileReference extends FileReferenceRoot {
  /** The reference as given. */
  reference: string;
  form: ReferenceForm;
  /** The workspace the reference named (a `shared` conversation's id resolves to root `canonical`), else the answer's root. */
  workspace: string;
  /** For a `/home` root: whose home it is. */
  agent?: string;
  /** The host path of the file (a `copy`: its place in the copy's upper folder, where a change would be written). */
  hostPath: string;
  /** True when something is there (seen through the root: a `copy` shows its pinned tree under its folder). */
  exists: boolean;
  /** What is there, when something is. */
  type?: EntryType;
  /** The other roots that hold the same host path (the state directory inside the checkout puts every workspace inside `canonical`). */
  alsoIn: FileReferenceRoot[];
}

/** The options of a resolution. */
export interface ResolveReferenceOptions {
  /** The file a relative reference is relative to (any absolute form, or relative to `conversation`'s active workspace). */
  baseFile?: string;
  /** Whose `/home` a home reference means, and where a relative reference without `baseFile` resolves (its active workspace). */
  conversation?: string;
}

/** The reference as errors show it: cut at 300 characters. */
export function shownReference(reference: unknown): string {
  const text = typeof reference === 'string' ? reference : String(reference);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** A `WorkspaceError` `BAD_REFERENCE` with `reason` and the reference. */
export function badReference(
  reason: WorkspaceErrorReason,
  reference: unknown,
  why: string,
  data: Record<string, string | number | boolean | string[]> = {},
): WorkspaceError {
  const shown = shownReference(reference);
  return new WorkspaceError('BAD_REFERENCE', `'${shown}' is not a file reference gatefs resolves: ${why}`, {
    ...data,
    reference: shown,
    reason,
  });
}
