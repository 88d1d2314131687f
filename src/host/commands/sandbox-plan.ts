/**
 * `sandboxPlan`: the sandbox a conversation's commands run in, built from the same facts its
 * namespace is built from (docs/ARCHITECTURE.md § Commands): the workspace folder at
 * `/worktrees/<id>`, each mount at its namespace path with its write flag, each `share:` folder
 * read-only at its place, and the protected entries covered:
 *
 * - the workspace's `.git` (a worktree's `.git` file names a host path: it is covered by an
 *   empty file; a shared checkout's `.git` folder by an empty read-only folder), and `.git` in
 *   an absolute mount the same way;
 * - `gatefs.yaml` at the workspace root, and the loaded manifest or settings file wherever a
 *   bound folder shows it: bound over themselves read-only;
 * - the state directory wherever a bound folder holds it: an empty read-only folder.
 *
 * A `copy` workspace has no folder that is its root: the plan asks for a kernel overlay of its
 * upper folder over its lower tree with the overlay's whiteouts hidden (`SandboxOverlay`), the
 * state directory inside a plain folder and a `.git` there hidden too; its relative mounts come
 * from the lower tree, as the view serves them from the pinned commit. What a command changes
 * there is kept by the host through the namespace afterwards (overlay-changes.ts), so nothing is
 * bound over `gatefs.yaml`: a change to it is refused then, like a tool's.
 *
 * Routed artifact folders (`artifacts`: a receiver's handoff folders at
 * `/worktrees/<id>/artifacts/<role>-v<visit>`, a `shared` receiver's inventory folder at
 * `/artifacts`) are bound read-only, like the view's read-only mounts of them. bwrap makes a
 * missing mount point inside the writable workspace folder, on the host: the registration takes
 * the empty folders it made away once the command has ended (`CommandTarget.settle`). A routed
 * folder whose place holds a file or a link is left out of the sandbox (the command runs without
 * it), as a shared folder is; so is one at the place of a relative mount or shared folder of the
 * role (the view shows the role's own there too), or inside one that holds no folder there
 * (bwrap cannot make a mount point in a read-only folder: the whole command would fail).
 *
 * The agent model (binding-facts.ts): each attached workspace at its anchor (`/worktrees/<w>`,
 * `/canonical`) with its write flag and the same covers (a worktree's `.git` file, the source
 * checkout's `.git` folder, the state directory, the authority files); the own root read-only
 * when the conversation gave its write up; the agent's home at `/home`, writable, with its
 * runtime-owned `/home/.gatefs` read-only (an empty read-only folder when it is missing). Another
 * conversation may write in an attached folder (and in a given-up own root, and in the source
 * checkout): a link or file on the way to a cover there refuses the command like one in the own
 * root (`SYMLINK_ESCAPE`), whether the folder is writable to this command or not.
 *
 * Paths inside the sandbox are namespace paths, so what a command prints names what the file
 * tools name. A folder that is missing on the host (a share not installed, a relative mount a
 * sparse worktree does not hold) is left out, as the file tools show nothing there either.
 */
import type { Backend, MountSpec } from '../../manifest/index.js';
import type { SandboxBind, SandboxPlan } from '../../ports/index.js';
import { OVERLAY_META } from '../../../vfs/index.js';
import type { FolderState } from '../platform/index.js';
import { ToolFailure } from '../../../tools/index.js';
import { type BindingFacts, HOME_AT } from './binding-facts.js';

/** What the plan is built from (host paths are the platform's; they never leave the plan's `host` fields). */
export interface PlanFacts {
  readonly conversation: string;
  readonly backend: Backend;
  /** The workspace folder (worktree, the shared checkout, an empty backend's scratch folder). */
  readonly checkoutPath: string;
  readonly repo: string;
  readonly stateDir: string;
  readonly mounts: readonly MountSpec[];
  readonly share: readonly string[];
  /** Host paths of the files granting authority (the loaded manifest and settings). */
  readonly authorityFiles: readonly string[];
  readonly network: boolean;
  readonly env: Readonly<Record<string, string>>;
  /** A `copy` workspace's overlay (required for `copy`; `checkoutPath` is its upper folder). */
  readonly copy?: CopyFacts;
  /** What the conversation's bindings show (binding-facts.ts); absent: its own workspace alone, writable. */
  readonly bindings?: Omit<BindingFacts, 'defaultCwd'>;
  /** Routed artifact folders, shown read-only: `at` a namespace path, `host` the store folder. */
  readonly artifacts?: readonly { readonly at: string; readonly host: string }[];
  /** What is at a host path (no link followed at the last component). */
  folderState(path: string): FolderState;
  join(path: string, tail: string): string;
  relativeInside(from: string, path: string): string | null;
}

/** What a `copy` workspace's overlay is made of (see `SandboxOverlay`). */
export interface CopyFacts {
  /** The lower tree: the pinned commit's lower folder, or the plain folder. */
  readonly lower: string;
  /** The overlay's whiteouts, relative to the root. */
  readonly whiteouts: readonly string[];
  /** The folder the sandbox keeps its per-command overlay folders in. */
  readonly scratch: string;
}

/** An empty file bound over a file that must not be seen (a worktree's `.git` names a host path): `SandboxBind.host` ''. */
const EMPTY_FILE = '';

/** The plan for a command whose working folder is `cwd` (a namespace path the caller checked). */
export function sandboxPlan(facts: PlanFacts, cwd: string): SandboxPlan {
  const root = `/worktrees/${facts.conversation}`;
  const binds: SandboxBind[] = [];
  const hidden: string[] = [];
  const prune: string[] = [];
  const roots: string[] = [];
  /**
   * A host folder bound at `at`, with what it holds of the protected entries covered; `coverGit`
   * false: a `.git` there is the workspace's own files (an empty backend's scratch folder has no
   * repository, so nothing named `.git` in it points at the host).
   */
  const bindFolder = (host: string, at: string, writable: boolean, coverGit = true) => {
    binds.push({ host, at, writable });
    if (writable) roots.push(at);
    else prune.push(at);
    const git = facts.join(host, '.git');
    const gitState = coverGit ? facts.folderState(git) : 'missing';
    if (gitState === 'folder') hidden.push(`${at}/.git`);
    else if (gitState !== 'missing') binds.push({ host: EMPTY_FILE, at: `${at}/.git`, writable: false });
    const state = facts.relativeInside(host, facts.stateDir);
    if (state !== null && state !== '' && facts.folderState(facts.stateDir) === 'folder') {
      hidden.push(`${at}/${state}`);
      prune.push(`${at}/${state}`);
    }
    for (const file of facts.authorityFiles) {
      const rel = facts.relativeInside(host, file);
      if (rel !== null && rel !== '' && facts.folderState(file) === 'other')
        binds.push({ host: file, at: `${at}/${rel}`, writable: false });
    }
  };
  const bindings = facts.bindings;
  if (facts.backend === 'copy' && bindings?.ownReadOnly) {
    throw new ToolFailure(
      'READ_ONLY',
      'your workspace is read-only to you (you gave its write up; attach it exclusive-write to take it back), and commands in a copy workspace need it writable: nothing ran',
    );
  }
  const copy = facts.backend === 'copy' ? copyOverlay(facts, root) : undefined;
  /** Folders another conversation may write in: a link planted there on the way to a mount point refuses the command. */
  const foreign: string[] = [];
  const bindCheckout = (host: string, at: string, writable: boolean, coverGit: boolean) => {
    bindFolder(host, at, writable, coverGit);
    const yaml = facts.join(host, 'gatefs.yaml');
    if (facts.folderState(yaml) === 'other') binds.push({ host: yaml, at: `${at}/gatefs.yaml`, writable: false });
  };
  if (!copy) {
    bindCheckout(facts.checkoutPath, root, !bindings?.ownReadOnly, facts.backend !== 'empty');
    if (bindings?.ownReadOnly) foreign.push(root);
  }
  for (const a of bindings?.attached ?? []) {
    bindCheckout(a.host, a.at, a.writable, a.kind === 'checkout');
    foreign.push(a.at);
  }
  if (bindings?.home !== undefined) {
    bindFolder(bindings.home, HOME_AT, true, false);
    const runtime = facts.join(bindings.home, '.gatefs');
    const runtimeState = facts.folderState(runtime);
    if (runtimeState === 'folder') binds.push({ host: runtime, at: `${HOME_AT}/.gatefs`, writable: false });
    else if (runtimeState === 'missing') hidden.push(`${HOME_AT}/.gatefs`);
    else binds.push({ host: EMPTY_FILE, at: `${HOME_AT}/.gatefs`, writable: false });
    prune.push(`${HOME_AT}/.gatefs`);
  }
  // Relative mounts and shared folders: a command goes without one whose place a link took.
  const optional: string[] = [];
  for (const m of facts.mounts.filter((m) => !m.path.startsWith('/'))) {
    const host = facts.join(copy?.lower ?? facts.checkoutPath, m.path);
    if (facts.folderState(host) === 'folder') bindFolder(host, `${root}/${m.path}`, false);
    optional.push(`${root}/${m.path}`);
  }
  if (facts.backend !== 'shared') {
    for (const rel of facts.share) {
      const host = facts.join(facts.repo, rel);
      // A read-only root cannot take a mount point bwrap would make: a shared folder without one there is left out.
      const unmakeable = bindings?.ownReadOnly === true && facts.folderState(facts.join(facts.checkoutPath, rel)) !== 'folder';
      if (facts.folderState(host) === 'folder' && !unmakeable) bindFolder(host, `${root}/${rel}`, false);
      optional.push(`${root}/${rel}`);
    }
  }
  for (const a of facts.artifacts ?? []) {
    if (facts.folderState(a.host) === 'folder' && !shadowedOrUnmakeable(facts, binds, a.at)) bindFolder(a.host, a.at, false);
    optional.push(a.at);
  }
  const absolute = facts.mounts.filter((m) => m.path.startsWith('/')).sort((a, b) => a.path.length - b.path.length);
  for (const m of absolute) bindFolder(m.path, m.path, m.writable);
  const dropped = linkedMountPoints(
    facts,
    [...binds.map((b) => b.at), ...hidden],
    [
      ...binds.filter((b) => b.writable || foreign.includes(b.at)).map((b) => ({ at: b.at, hosts: [b.host] })),
      ...(copy ? [{ at: root, hosts: [copy.upper, copy.lower] }] : []),
    ],
    new Set(optional),
  );
  const kept = (at: string) => !dropped.some((d) => at === d || at.startsWith(`${d}/`));
  return {
    binds: binds.filter((b) => kept(b.at)),
    ...(copy ? { overlay: copy } : {}),
    hidden: hidden.filter(kept),
    cwd,
    network: facts.network,
    env: facts.env,
    // A copy's root is reported by the overlay; a scan without roots would list the working folder.
    ...(copy && roots.length === 0 ? {} : { scan: { roots, prune } }),
  };
}

/** True when a routed folder is left out at `at` (see the file comment): a bind is there, or a read-only one holds no folder there. */
function shadowedOrUnmakeable(facts: PlanFacts, binds: readonly SandboxBind[], at: string): boolean {
  if (binds.some((b) => b.at === at)) return true;
  const holder = binds
    .filter((b) => !b.writable && b.host !== EMPTY_FILE && at.startsWith(`${b.at}/`))
    .sort((x, y) => y.at.length - x.at.length)[0];
  if (!holder) return false;
  const parts = at.slice(holder.at.length + 1).split('/');
  return parts.some((_, i) => facts.folderState(facts.join(holder.host, parts.slice(0, i + 1).join('/'))) !== 'folder');
}

/** The overlay of a `copy` workspace: its upper over its lower tree, with what the view hides there hidden. */
function copyOverlay(facts: PlanFacts, root: string): SandboxPlan['overlay'] {
  const copy = facts.copy;
  if (!copy) throw new Error('a copy workspace needs its overlay facts to run a command');
  const hiddenInLower: string[] = [];
  const state = facts.relativeInside(copy.lower, facts.stateDir);
  if (state !== null && state !== '') hiddenInLower.push(state);
  if (facts.folderState(facts.join(copy.lower, '.git')) !== 'missing') hiddenInLower.push('.git');
  return {
    at: root,
    upper: facts.checkoutPath,
    lower: copy.lower,
    whiteouts: [...copy.whiteouts, ...hiddenInLower],
    reserved: [OVERLAY_META],
    scratch: copy.scratch,
  };
}

/**
 * The places the sandbox shows something at (a mount point, a cover) that lie inside a writable
 * folder with a symbolic link (or a file) on their way or at their end: bwrap makes mount points
 * by path and would follow the link out of the workspace while it still sees the host (a command
 * can plant one for the next: rename a folder above a shared folder and put a link in its
 * place). What is missing is made inside the folder, which is fine. An `optional` place (a shared
 * folder, a relative mount) is left out of the sandbox then (the result: the command runs
 * without it, and can take the link away); any other (a cover) refuses the command with
 * `SYMLINK_ESCAPE`, nothing run. `containers`: the writable folders (a copy's overlay: its upper
 * and its lower).
 */
function linkedMountPoints(
  facts: PlanFacts,
  places: readonly string[],
  containers: readonly { at: string; hosts: readonly string[] }[],
  optional: ReadonlySet<string>,
): string[] {
  const dropped: string[] = [];
  for (const place of places) {
    const container = containers.filter((c) => place.startsWith(`${c.at}/`)).sort((a, b) => b.at.length - a.at.length)[0];
    if (!container) continue;
    const parts = place.slice(container.at.length + 1).split('/');
    for (const host of container.hosts) {
      for (let i = 0; i < parts.length; i++) {
        const state = facts.folderState(facts.join(host, parts.slice(0, i + 1).join('/')));
        const last = i === parts.length - 1;
        if (state === 'missing') break;
        if (state === 'link' || (!last && state !== 'folder')) {
          const shown = `${container.at}/${parts.slice(0, i + 1).join('/')}`;
          if (optional.has(place)) {
            dropped.push(place);
            break;
          }
          throw new ToolFailure(
            'SYMLINK_ESCAPE',
            `'${shown}' is a ${state === 'link' ? 'symbolic link' : 'file'} where the sandbox shows a mount at '${place}': remove it (delete) and run the command again; nothing ran`,
            shown,
          );
        }
      }
    }
  }
  return dropped;
}
