/**
 * The progressive-disclosure stack for the conformance suite, built the way the host builds it
 * (src/disclosure/attach-disclosure.ts `attachDisclosure(...).wrapRoot(root)`):
 * `withDisclosureHints(sparse(root, visible), DisclosureService)` over a worktree's root layer.
 *
 * The pinned commit holds the fixture plus the hidden files (./sparse-fixture.ts); the visible
 * set is exactly the fixture, and the policy allows `secret` and `private`, so hidden files
 * there answer `NOT_DISCLOSED` and the others (`src/hidden.ts`, …) `NOT_FOUND`. No fixture file
 * lies in an allowed path: one the suite removes must then answer `NOT_FOUND`, as in any layer
 * (inside an allowed path it would be `NOT_DISCLOSED`, a hint to ask for the pinned bytes).
 */
import type { GitPort } from '../../src/git/git-port.js';
import type { GitObjectReader } from '../../vfs/git-object-reader.js';
import { attachDisclosure } from '../../src/disclosure/attach-disclosure.js';
import type { DisclosureState } from '../../src/disclosure/disclosure-state.js';
import type { StateStore } from '../../src/state/store.js';
import type { WorkspaceRecord } from '../../src/state/workspace-table.js';
import type { WritableLayer } from '../../vfs/layer.js';
import { FIXTURE_FILES } from './fixture.js';
import { HIDDEN_FILES, fixtureVisibleSet } from './sparse-fixture.js';

/** The files of the pinned commit: the fixture and the hidden files. */
export function pinnedFiles(): Record<string, Uint8Array> {
  const enc = new TextEncoder();
  return {
    ...Object.fromEntries(FIXTURE_FILES),
    ...Object.fromEntries(HIDDEN_FILES.map((p) => [p, enc.encode(`hidden content of ${p}\n`)])),
  };
}

/** What the stack is built from. */
export interface DisclosureStackInput {
  /** The worktree's root layer (the fixture, with the hidden files planted beside it). */
  root: WritableLayer;
  store: StateStore;
  git: GitPort;
  /** The object reader to read the pinned commit through (default `git.objects`). */
  objects?: GitObjectReader;
  pinnedSha: string;
  checkoutPath: string;
}

/** The hint layer over the projection of `root`, exactly as `attachDisclosure` wraps it. */
export function disclosureStack(input: DisclosureStackInput): WritableLayer {
  const visible = fixtureVisibleSet();
  const disclosed = [...FIXTURE_FILES.keys()];
  const state: DisclosureState = { initialPaths: [], allowedPaths: ['secret', 'private'], disclosed, visible, requests: 0 };
  const record: WorkspaceRecord = {
    conversation: 'conf',
    role: 'agent',
    backend: 'worktree',
    guarantee: 'confined',
    state: 'ready',
    branch: 'gatefs/conf',
    baseRef: null,
    pinnedSha: input.pinnedSha,
    checkoutPath: input.checkoutPath,
    error: null,
    data: { disclosure: state },
    createdAt: 0,
    updatedAt: 0,
  };
  // The host hands its git port; a failing object store is put in front of its objects only.
  const git = input.objects ? (Object.create(input.git, { objects: { value: input.objects } }) as GitPort) : input.git;
  const attached = attachDisclosure({ store: input.store, git }, record);
  if (!attached) throw new Error('the record carries a disclosure state: attachDisclosure must wrap it');
  return attached.wrapRoot(input.root);
}
