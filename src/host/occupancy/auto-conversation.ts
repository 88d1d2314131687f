/**
 * `--conversation auto`: one conversation id per client window and working folder, without a
 * pile-up of workspaces.
 *
 * The id is `<folder key>-<slot>`: the folder key is the working folder's name (lower-cased,
 * other characters as `-`, at most 32) and 6 hex digits of the sha256 of its full path, so two
 * folders of the same name never share ids; the slot is a small number. A window is the process
 * that started `gatefs serve` (Claude Code, a Cursor window, Codex), named by pid and start time.
 *
 * `claimAutoConversation` decides, in one IMMEDIATE transaction (two windows starting together
 * never get the same slot):
 * 1. the slot this window already claimed (it reconnects, or restarted its server): the same id;
 * 2. else the lowest slot whose window is gone and whose workspace no live session occupies:
 *    the new window continues that workspace (its files and branch), so closed windows leave no
 *    workspaces behind;
 * 3. else the next free slot: a new workspace.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { ProcessIdentity, ProcessLiveness } from '../../ports/index.js';
import type { StateStore } from '../../state/index.js';

/** The longest folder name kept in an id (the id stays well under 63 characters). */
const NAME_CHARS = 32;

/** The folder key of `folder` (an absolute path): `<name>-<6 hex>`, e.g. `my-app-3fa2c1`. */
export function folderKeyOf(folder: string): string {
  const name =
    basename(folder)
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^[-_]+|[-_]+$/g, '')
      .slice(0, NAME_CHARS)
      .replace(/[-_]+$/, '') || 'folder';
  return `${name}-${createHash('sha256').update(folder).digest('hex').slice(0, 6)}`;
}

/** What `claimAutoConversation` needs. */
export interface AutoConversationRequest {
  /** The client's working folder (absolute). */
  folder: string;
  /** The client window's process. */
  window: ProcessIdentity;
}

/** The id chosen, and why (for the operator's log). */
export interface AutoConversation {
  conversation: string;
  /** `reconnected`: this window's own slot; `reused`: a closed window's slot; `new`: a slot never used. */
  how: 'reconnected' | 'reused' | 'new';
}

/** Chooses and records the conversation of `request.window` (see the file comment). */
export function claimAutoConversation(store: StateStore, liveness: ProcessLiveness, request: AutoConversationRequest): AutoConversation {
  const folderKey = folderKeyOf(request.folder);
  const { window } = request;
  return store.transaction(() => {
    const claims = store.windowClaims.ofFolder(folderKey);
    const own = claims.find((c) => sameProcess(c.window, window));
    if (own) return { conversation: store.windowClaims.claim(folderKey, own.slot, window).conversation, how: 'reconnected' };
    const free = claims.find((c) => !liveness.isAlive(c.window) && !isOccupied(store, liveness, c.conversation));
    if (free) return { conversation: store.windowClaims.claim(folderKey, free.slot, window).conversation, how: 'reused' };
    const used = new Set(claims.map((c) => c.slot));
    let slot = 1;
    while (used.has(slot) || hasWorkspace(store, `${folderKey}-${slot}`)) slot++;
    return { conversation: store.windowClaims.claim(folderKey, slot, window).conversation, how: 'new' };
  });
}

function sameProcess(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.pid === b.pid && (a.start === null || b.start === null || a.start === b.start);
}

/** True while a live session (its process runs) occupies `conversation`. */
function isOccupied(store: StateStore, liveness: ProcessLiveness, conversation: string): boolean {
  return store.occupancy.activeRecords(conversation).some((r) => r.process === undefined || liveness.isAlive(r.process));
}

/** True when a workspace of that id exists that no claim accounts for (prepared by hand): its slot is skipped. */
function hasWorkspace(store: StateStore, conversation: string): boolean {
  const record = store.workspaces.get(conversation);
  return record !== null && record.state !== 'failed';
}
