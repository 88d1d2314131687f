/**
 * Turns one role as written in `gatefs.yaml` (shape already checked by `schema.ts`) into a
 * `Role`: checks the rules that span keys and fills in the defaults.
 */
import { WorkspaceError } from '../workspace-error.js';
import { normalizeDisclosurePath } from './disclosure-path.js';
import { ManifestError } from './manifest-error.js';
import { normalizeMountPath } from './mount-path.js';
import type { RoleFile } from './schema.js';
import type { DisclosurePolicy, MountSpec, Role } from './types.js';
import { execFromFile, shareFromFile } from './exec-settings.js';

/** Default artifact size cap per file (issue 3): 1 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 1_048_576;
/** Default artifact count cap (issue 3): 32 files. */
export const DEFAULT_MAX_FILES = 32;

/**
 * The names a role that declares `handoff` may have: its artifact folder is `<role>-v<visit>`
 * under the run's folder, so the name must be one folder name (the same grammar as
 * `ARTIFACT_FOLDER` in src/host/platform/workspace-paths.ts).
 */
const FOLDER_SAFE_ROLE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

function firstDuplicate<T>(items: readonly T[]): number {
  const seen = new Set<T>();
  for (let i = 0; i < items.length; i++) {
    if (seen.has(items[i]!)) return i;
    seen.add(items[i]!);
  }
  return -1;
}

function normalizePaths(raw: readonly string[], keyPath: string): string[] {
  const paths = raw.map((p, i) => normalizeDisclosurePath(p, `${keyPath}[${i}]`));
  const dup = firstDuplicate(paths);
  if (dup >= 0) throw new ManifestError('DUPLICATE', `${keyPath}[${dup}]`, `'${paths[dup]}' is listed twice`);
  return paths;
}

function mountsFrom(role: RoleFile, at: string): MountSpec[] {
  const mounts = (role.workspace?.mounts ?? []).map((m, i) => {
    const path = normalizeMountPath(m.path, `${at}.workspace.mounts[${i}].path`);
    // A relative mount shows the pinned commit, which no write can change: writable: true would
    // be served read-only without a word, so it is refused where it is written.
    if (m.writable && !path.startsWith('/')) {
      throw new ManifestError(
        'INVALID_VALUE',
        `${at}.workspace.mounts[${i}].writable`,
        `the relative mount '${path}' shows the pinned commit and is always read-only: write writable: false, or mount a host folder by its absolute path to make it writable`,
      );
    }
    return { path, writable: m.writable };
  });
  const dup = firstDuplicate(mounts.map((m) => m.path));
  if (dup >= 0) {
    throw new ManifestError('DUPLICATE', `${at}.workspace.mounts[${dup}].path`, `the mount '${mounts[dup]!.path}' is declared twice`);
  }
  return mounts;
}

function disclosureFrom(role: RoleFile, at: string, backend: string): DisclosurePolicy | null {
  const raw = role.workspace?.progressive_disclosure;
  const hasTool = role.tools.includes('request_files');
  if (raw === undefined) {
    if (hasTool) {
      throw new ManifestError(
        'INVALID_VALUE',
        `${at}.tools[${role.tools.indexOf('request_files')}]`,
        'request_files needs a workspace.progressive_disclosure policy (initial_paths, allowed_paths)',
      );
    }
    return null;
  }
  const key = `${at}.workspace.progressive_disclosure`;
  if (backend !== 'worktree') {
    throw new ManifestError('INVALID_VALUE', key, `progressive disclosure needs backend worktree, not ${backend}`);
  }
  if (!hasTool) throw new ManifestError('INVALID_VALUE', key, 'progressive disclosure needs request_files in tools');
  return {
    initialPaths: normalizePaths(raw.initial_paths, `${key}.initial_paths`),
    allowedPaths: normalizePaths(raw.allowed_paths, `${key}.allowed_paths`),
  };
}

/** True when `a` and `b` are the same path or one holds the other (whole segments). */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * A relative mount replaces the workspace's folder of that name with the pinned commit's,
 * read-only. Refused where that hides a folder of the workspace the role is meant to see
 * otherwise (`INVALID_VALUE` at the mount's `path`):
 * - inside another relative mount: the outer one already shows that folder, read-only;
 * - at, above or inside a progressive-disclosure path (`initial_paths`, `allowed_paths`): the
 *   mount would show every file there from the pinned commit without `request_files`.
 */
function refuseShadowingMounts(mounts: readonly MountSpec[], policy: DisclosurePolicy | null, at: string): void {
  const relative = mounts.map((m, i) => ({ path: m.path, key: `${at}.mounts[${i}].path` })).filter((m) => !m.path.startsWith('/'));
  for (const inner of relative) {
    const outer = relative.find((o) => inner.path.startsWith(`${o.path}/`));
    if (outer) {
      throw new ManifestError(
        'INVALID_VALUE',
        inner.key,
        `the relative mount '${inner.path}' lies inside the relative mount '${outer.path}', which already shows that folder read-only from the pinned commit: remove one of them`,
      );
    }
  }
  if (!policy) return;
  const disclosed = [
    ...policy.initialPaths.map((p, i) => ({ path: p, key: `progressive_disclosure.initial_paths[${i}]` })),
    ...policy.allowedPaths.map((p, i) => ({ path: p, key: `progressive_disclosure.allowed_paths[${i}]` })),
  ];
  for (const mount of relative) {
    const hit = disclosed.find((d) => overlaps(mount.path, d.path));
    if (hit) {
      throw new ManifestError(
        'INVALID_VALUE',
        mount.key,
        `the relative mount '${mount.path}' shadows the disclosed folder '${hit.path}' (${hit.key}): it would show every file there from the pinned commit without request_files; mount a folder outside initial_paths and allowed_paths`,
      );
    }
  }
}

/**
 * Builds the `Role` at `roles[index]`. Throws `WorkspaceError` `BACKEND_UNAVAILABLE` for
 * `backend: container` (there is no fallback), and `ManifestError` for: duplicate tools
 * (`DUPLICATE`), mount path rules (`INVALID_VALUE`) and duplicate mounts (`DUPLICATE`),
 * disclosure path rules, a policy on a non-worktree backend or without `request_files`,
 * `request_files` without a policy, a relative mount that shadows a folder of the workspace
 * (`refuseShadowingMounts`), a relative mount or `share:` on `backend: empty`
 * (`refuseRepositoryViews`), and a `handoff` role whose name is no folder name or `auto_patch:
 * true` off `worktree` (`refuseHandoffMistakes`) (`INVALID_VALUE`).
 */
export function roleFromFile(role: RoleFile, index: number): Role {
  const at = `roles[${index}]`;
  const backend = role.workspace?.backend ?? 'worktree';
  if (backend === 'container') {
    throw new WorkspaceError(
      'BACKEND_UNAVAILABLE',
      `${at}.workspace.backend: the container backend is not available in this gatefs (use shared, worktree, copy or empty); there is no fallback`,
      { role: role.name, backend, keyPath: `${at}.workspace.backend` },
    );
  }
  const dupTool = firstDuplicate(role.tools);
  if (dupTool >= 0) {
    throw new ManifestError('DUPLICATE', `${at}.tools[${dupTool}]`, `the tool '${role.tools[dupTool]}' is listed twice`);
  }
  const typedBackend = backend as Role['workspace']['backend'];
  const mounts = mountsFrom(role, at);
  const progressiveDisclosure = disclosureFrom(role, at, backend);
  refuseShadowingMounts(mounts, progressiveDisclosure, `${at}.workspace`);
  const share = shareFromFile(role.share, at);
  if (typedBackend === 'empty') refuseRepositoryViews(mounts, share, at);
  refuseHandoffMistakes(role, at, typedBackend);
  refuseDisclosedAttach(role, at, progressiveDisclosure !== null);
  return {
    name: role.name,
    maxVisits: role.max_visits ?? null,
    tools: [...role.tools],
    workspace: {
      backend: typedBackend,
      mounts,
      progressiveDisclosure,
    },
    artifacts: {
      autoPatch: role.artifacts?.auto_patch ?? typedBackend === 'worktree',
      maxFileBytes: role.artifacts?.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES,
      maxFiles: role.artifacts?.max_files ?? DEFAULT_MAX_FILES,
    },
    subagents: { isolate: role.subagents?.isolate ?? 'worktree' },
    exec: execFromFile(role.exec, at),
    share,
    attachMode: role.attach_mode ?? 'shared-read',
  };
}

/**
 * A role with progressive disclosure may not declare `attach`: attaching the source checkout or
 * another workspace would show every file disclosure holds back. Throws `ManifestError`
 * `INVALID_VALUE` at the tool.
 */
function refuseDisclosedAttach(role: RoleFile, at: string, disclosed: boolean): void {
  const i = role.tools.indexOf('attach');
  if (!disclosed || i < 0) return;
  throw new ManifestError(
    'INVALID_VALUE',
    `${at}.tools[${i}]`,
    'attach cannot be declared with workspace.progressive_disclosure: attaching a workspace or the source checkout would show files disclosure holds back; remove attach, or the policy',
  );
}

/**
 * `backend: empty` has no repository and no pinned commit: a relative mount (shown from the pinned
 * commit) or a `share:` folder (from the source checkout) would have nothing to show, so either is
 * refused here, at load, rather than when a conversation is prepared. Throws `ManifestError`
 * `INVALID_VALUE` naming the first one.
 */
function refuseRepositoryViews(mounts: readonly MountSpec[], share: readonly string[], at: string): void {
  const relative = mounts.findIndex((m) => !m.path.startsWith('/'));
  if (relative >= 0) {
    throw new ManifestError(
      'INVALID_VALUE',
      `${at}.workspace.mounts[${relative}].path`,
      `the relative mount '${mounts[relative]!.path}' needs a pinned commit to show, and backend empty has none (no repository): mount an absolute host folder instead, or use backend worktree or copy`,
    );
  }
  if (share.length > 0) {
    throw new ManifestError(
      'INVALID_VALUE',
      `${at}.share[0]`,
      `share: '${share[0]}' is a folder of the source checkout, and backend empty has none: mount an absolute host folder instead`,
    );
  }
}

/**
 * The artifact rules checked at load: a role that declares `handoff` needs a folder-safe name
 * (`FOLDER_SAFE_ROLE`: its artifacts land in `<role>-v<visit>`), and `artifacts.auto_patch: true`
 * is for `worktree` roles only (an auto-patch is a git diff against the pinned base, which only a
 * worktree has). Throws `ManifestError` `INVALID_VALUE` at `name` or `artifacts.auto_patch`.
 */
function refuseHandoffMistakes(role: RoleFile, at: string, backend: Role['workspace']['backend']): void {
  if (role.tools.includes('handoff') && !FOLDER_SAFE_ROLE.test(role.name)) {
    throw new ManifestError(
      'INVALID_VALUE',
      `${at}.name`,
      `the role '${role.name}' declares handoff, so its artifacts are kept in a folder named <role>-v<visit>: its name must be 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
  if (role.artifacts?.auto_patch === true && backend !== 'worktree') {
    throw new ManifestError(
      'INVALID_VALUE',
      `${at}.artifacts.auto_patch`,
      `auto_patch: true keeps a git diff of a worktree against its pinned base, and backend ${backend} has none: remove it, or use backend worktree`,
    );
  }
}
