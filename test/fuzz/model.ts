/**
 * The fuzzer's model: what each conversation may see and change, kept as plain maps, and what
 * each kind of call must answer. The model is deliberately simple — the point of the fuzzer is
 * that the real host (many layers, handles, locks, a database) agrees with it.
 *
 * - Each conversation has its own root files (starting as the pinned commit), a state
 *   (`ready` / `released`), links planted in its root by "the agent's shell", and whether its
 *   `src` folder was swapped for a link to the outside.
 * - The shared writable mount is one map seen by every conversation; the read-only mount and
 *   `.campaign` (the relative read-only mount from the pinned commit) never change.
 */
import { CONVERSATION_IDS, REPO_FILES, type Conversation } from './world.js';

/** Codes that are a refusal (never a success, never INTERNAL). */
export const DENIALS = new Set([
  'PATH_ESCAPE',
  'OUTSIDE_MOUNTS',
  'PROTECTED_PATH',
  'SYMLINK_ESCAPE',
  'READ_ONLY',
  'BAD_NAME',
  'NOT_FOUND',
  'NOT_DIRECTORY',
  'IS_DIRECTORY',
]);

export interface ConversationModel {
  state: 'ready' | 'released';
  /** Root-relative path → content (the workspace's own files; mounts excluded). */
  files: Map<string, string>;
  /** Names of links to the outside planted at the root. */
  links: Set<string>;
  /** True while `src` is a link to the outside and its files sit in `src-moved/`. */
  swapped: boolean;
  /** Written since its last preparation (a copy keeps every written file, even one written back unchanged). */
  touched: boolean;
}

export interface Model {
  conversations: Record<Conversation, ConversationModel>;
  /** Shared writable mount: mount-relative path → content. */
  shared: Map<string, string>;
  /** Next free counter slot per conversation. */
  nextSlot: Record<Conversation, number>;
  /** Operations run, by kind (reported at the end). */
  counts: Map<string, number>;
}

/** The pinned files of a workspace root (the relative mount `.campaign` is served separately). */
export function pinnedFiles(): Map<string, string> {
  return new Map(Object.entries(REPO_FILES).filter(([p]) => !p.startsWith('.campaign/')));
}

export function initialModel(sharedFiles: Record<string, string>): Model {
  const conversations = {} as Record<Conversation, ConversationModel>;
  for (const c of CONVERSATION_IDS)
    conversations[c] = { state: 'ready', files: pinnedFiles(), links: new Set(), swapped: false, touched: false };
  return {
    conversations,
    shared: new Map(Object.entries(sharedFiles)),
    nextSlot: Object.fromEntries(CONVERSATION_IDS.map((c) => [c, 0])) as Record<Conversation, number>,
    counts: new Map(),
  };
}

/** True when a workspace holds anything that is not exactly its pinned commit (work to keep). */
export function isDirty(m: ConversationModel): boolean {
  if (m.links.size > 0 || m.swapped) return true;
  const pinned = pinnedFiles();
  if (pinned.size !== m.files.size) return true;
  for (const [p, c] of m.files) if (pinned.get(p) !== c) return true;
  return false;
}

/** True when git (and so grep) ignores the root-relative path (the repo ignores `scratch/`). */
export function isIgnored(rel: string): boolean {
  return rel === 'scratch' || rel.startsWith('scratch/');
}

/**
 * How the model classifies a path an agent passes, for one conversation:
 * - `own`: a file of the workspace root (may or may not exist);
 * - `shared`: a file of the shared writable mount (mount-relative `rel`);
 * - `readonly`: inside the read-only mount or `.campaign` (reads: `content` when it exists);
 * - `denied`: anything the conversation may neither read nor change (`code` when the contract
 *   names one exactly, else any refusal).
 */
export type PathClass =
  | { kind: 'own'; rel: string }
  | { kind: 'shared'; rel: string }
  | { kind: 'readonly'; content: string | undefined }
  | { kind: 'denied'; code?: string };

/** Everything a parent folder of `rel` may be that blocks it: a planted link or the swapped `src`. */
export function throughLink(m: ConversationModel, rel: string): boolean {
  const first = rel.split('/')[0];
  return m.links.has(first) || (m.swapped && first === 'src');
}
