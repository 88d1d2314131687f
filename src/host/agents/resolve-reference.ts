/**
 * `resolveReference`: a file reference (Holon's `POST /api/file-references/resolve`) resolved to
 * its root, its namespace path, its host path and its `workspace://` URI, in every root that
 * holds it (docs/ARCHITECTURE.md § Agent model, "File references"). The operator's API: the
 * answer names host paths.
 *
 * Forms (src/host/agents/reference-form.ts): a namespace path (`/worktrees/<id>/…`,
 * `/canonical/…`, `/home/…` with a conversation), a host path (inside the checkout, a workspace
 * folder `<stateDir>/worktrees|copies|scratch/<id>/…`, a home `<stateDir>/homes/<agent>/…`), a
 * `workspace://<workspace>/<path>?root=<root>` URI, and a relative path, resolved against the
 * folder of `baseFile` (itself any form) inside the base's root, or, without one, in
 * `conversation`'s active workspace.
 *
 * `root=` of a URI: each workspace has one execution root, whose id is the workspace's; `root`
 * may name it, or the root it is deduplicated to (`canonical` for a `shared` conversation's
 * workspace); any other is `UNKNOWN_ROOT`.
 *
 * Roots: `canonical` first, then the workspace or home folder inside the state directory (the
 * default state directory lies in the checkout, so every workspace folder is inside `canonical`
 * too): a host path answers in `canonical` with the deeper root in `alsoIn`; a namespace path or
 * URI answers in the root it names. Links are always followed in the deepest root holding the
 * path (the tightest confinement): a link out of a worktree is refused even where the checkout
 * around it would hold its target. A path whose deepest root is a released conversation's
 * answers `REFERENCE_GONE` (never another root's file).
 *
 * `.git`, the state directory, a home's `.gatefs/` and `gatefs.yaml` at a root resolve, marked
 * `protected: true`: tools refuse every change there (views hide the state directory); the
 * operator may still want to know where they are. Names are compared as written (no case folding).
 *
 * Cost: no scan of the workspaces — a namespace path or URI names its id, a host path names its
 * area and id; one indexed read of that record (bench/suites/references.ts).
 */
import { CANONICAL_WORKSPACE, HOME_WORKSPACE } from '../../state/index.js';
import { isDotGitName } from '../../../vfs/index.js';
import { isWorkspaceError } from '../../workspace-error.js';
import { HOME_RUNTIME_FOLDER } from '../platform/index.js';
import { stateDirNames } from '../state-trust/index.js';
import {
  badReference,
  type FileReference,
  type FileReferenceRoot,
  type ReferenceForm,
  type ResolveReferenceOptions,
} from './file-reference.js';
import { type ParsedReference, parseReference } from './reference-form.js';
import { canonicalRoot, type ReferenceParts, type ReferenceRoot, rootOfWorkspace, rootsOfHostPath } from './reference-roots.js';
import { walkInRoot, type WalkEnd } from './reference-walk.js';

/** A reference placed: the workspace it named, its roots in answer order, the one walked, and where the walk ended. */
interface Placed extends WalkEnd {
  workspace: string;
  roots: ReferenceRoot[];
  walked: ReferenceRoot;
}

/**
 * Resolves `reference` (see the file comment). Throws `WorkspaceError` `BAD_REFERENCE`
 * (data.reason `BAD_FORM`, `OUTSIDE_ROOTS`, `PATH_ESCAPE`, `SYMLINK_ESCAPE`, `NO_BASE`,
 * `NO_CONVERSATION`, `UNKNOWN_ROOT`), `REFERENCE_GONE` (data.workspace), `UNKNOWN_CONVERSATION`,
 * `BUSY` (a workspace being prepared).
 */
export async function resolveReference(
  parts: ReferenceParts,
  reference: string,
  options: ResolveReferenceOptions = {},
): Promise<FileReference> {
  const parsed = parseReference(parts.platform, reference);
  const placed = await place(parts, parsed, reference, options);
  return answer(parts, reference, parsed.form, placed);
}

async function place(parts: ReferenceParts, parsed: ParsedReference, reference: string, options: ResolveReferenceOptions): Promise<Placed> {
  switch (parsed.form) {
    case 'host': {
      const roots = rootsOfHostPath(parts, parsed.path, reference);
      const deepest = roots[roots.length - 1]!;
      const rel = parts.platform.relativeInside(deepest.folder, parsed.path) ?? '';
      return walked(parts, roots[0]!.id, roots, deepest, rel.split('/').filter(Boolean), reference);
    }
    case 'namespace':
    case 'uri': {
      const root = rootOfWorkspace(parts, parsed.workspace, options.conversation, reference);
      if (parsed.form === 'uri' && parsed.root !== null && parsed.root !== root.id && parsed.root !== parsed.workspace) {
        const roots = [...new Set([parsed.workspace, root.id])];
        throw badReference('UNKNOWN_ROOT', reference, `workspace '${parsed.workspace}' has the execution root ${roots.join(', ')}`, {
          roots,
        });
      }
      return walked(parts, parsed.workspace, containing(parts, root), root, parsed.segments, reference);
    }
    case 'relative': {
      if (options.baseFile !== undefined) {
        // The base may itself be relative: then to the conversation's active workspace (never to another base).
        const baseOptions = options.conversation === undefined ? {} : { conversation: options.conversation };
        const base = await place(parts, parseReference(parts.platform, options.baseFile), options.baseFile, baseOptions);
        const folder = base.rel.split('/').filter(Boolean).slice(0, -1);
        return walked(parts, base.workspace, base.roots, base.walked, [...folder, ...parsed.segments], reference);
      }
      if (options.conversation === undefined) {
        throw badReference('NO_BASE', reference, 'a relative path needs a base file (or a conversation whose active workspace it is in)');
      }
      const active = parts.store.bindings.stateOf(options.conversation)?.active ?? options.conversation;
      const root = rootOfWorkspace(parts, active, options.conversation, reference);
      return walked(parts, active, containing(parts, root), root, parsed.segments, reference);
    }
  }
}

/** `root`, then `canonical` when the checkout holds `root`'s folder (the state directory inside it). */
function containing(parts: ReferenceParts, root: ReferenceRoot): ReferenceRoot[] {
  const { platform } = parts;
  if (root.kind === 'canonical' || platform.relativeInside(platform.repo, root.folder) === null) return [root];
  return [root, canonicalRoot(platform)];
}

/**
 * Walks `segments` in `root` and places the end. A walk in `canonical` that ends inside a
 * workspace or home folder of the state directory also names that root (in `alsoIn`), and
 * answers `REFERENCE_GONE` when it was released.
 */
async function walked(
  parts: ReferenceParts,
  workspace: string,
  roots: ReferenceRoot[],
  root: ReferenceRoot,
  segments: readonly string[],
  reference: string,
): Promise<Placed> {
  const end = await walkInRoot(parts.platform, root, segments, reference);
  const placed = { workspace, roots, walked: root, ...end };
  if (root.kind !== 'canonical') return placed;
  const hostPath = hostPathOf(parts, root, end.rel);
  if (parts.platform.relativeInside(parts.platform.stateDir, hostPath) === null) return placed;
  try {
    const deeper = rootsOfHostPath(parts, hostPath, reference).filter((r) => r.kind !== 'canonical');
    return { ...placed, roots: [...roots, ...deeper.filter((d) => !roots.some((r) => r.anchor === d.anchor && r.folder === d.folder))] };
  } catch (e) {
    // A folder of the state directory no record names (a leftover) is only the checkout's.
    if (isWorkspaceError(e, 'UNKNOWN_CONVERSATION')) return placed;
    throw e;
  }
}

function hostPathOf(parts: ReferenceParts, root: ReferenceRoot, rel: string): string {
  return rel === '' ? root.folder : parts.platform.join(root.folder, rel);
}

/** The answer: the first root's entry, the host path and what is there, and the other roots. */
function answer(parts: ReferenceParts, reference: string, form: ReferenceForm, placed: Placed): FileReference {
  const hostPath = hostPathOf(parts, placed.walked, placed.rel);
  const [first, ...others] = placed.roots.map((root) => entryOf(parts, root, hostPath));
  return {
    reference,
    form,
    workspace: placed.workspace,
    ...first!,
    ...(placed.walked.agent === undefined ? {} : { agent: placed.walked.agent }),
    hostPath,
    exists: placed.type !== null,
    ...(placed.type === null ? {} : { type: placed.type }),
    alsoIn: others,
  };
}

/** `hostPath` (inside `root`'s folder) as seen in `root`. */
function entryOf(parts: ReferenceParts, root: ReferenceRoot, hostPath: string): FileReferenceRoot {
  const rel = parts.platform.relativeInside(root.folder, hostPath) ?? '';
  const segments = rel.split('/').filter(Boolean);
  return {
    root: root.id,
    rootAnchor: root.anchor,
    namespacePath: rel === '' ? root.anchor : `${root.anchor}/${rel}`,
    uri: `workspace://${root.id}/${segments.map(encodeURIComponent).join('/')}?root=${root.id}`,
    protected: isProtected(parts, root, segments),
  };
}

/** See the file comment: `.git`, the state directory, a home's runtime folder, `gatefs.yaml` at the root. */
function isProtected(parts: ReferenceParts, root: ReferenceRoot, segments: readonly string[]): boolean {
  if (segments.some(isDotGitName)) return true;
  if (segments.length === 1 && segments[0] === 'gatefs.yaml') return true;
  const first = segments[0];
  if (first === undefined) return false;
  if (root.id === HOME_WORKSPACE) return first === HOME_RUNTIME_FOLDER;
  if (stateDirNames(parts.platform).includes(first)) return true;
  if (root.id !== CANONICAL_WORKSPACE) return false;
  const state = parts.platform.relativeInside(parts.platform.repo, parts.platform.stateDir);
  if (state === null || state === '') return false;
  const rel = segments.join('/');
  return rel === state || rel.startsWith(`${state}/`);
}
