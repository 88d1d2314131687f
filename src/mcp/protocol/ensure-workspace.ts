/**
 * Makes sure a conversation has a ready workspace before an MCP session uses it: reuses a ready
 * one, prepares a missing one. Concurrent callers for the same conversation share one
 * preparation (two HTTP sessions opening the same URL at once prepare once).
 */
import type { Host, WorkspaceStatus } from '../../host/composition/index.js';

/** Options of `ensureWorkspace`. */
interface EnsureOptions {
  /** Role for a new workspace (default: the manifest's first role). Ignored when it exists. */
  role?: string;
  /** Run of a new workspace's visit (default: `default`). Ignored when it exists. */
  run?: string;
  /** Agent identity of a new workspace (default: its role's name). Ignored when it exists. */
  agent?: string;
  /** Called with a short line before a preparation starts (the CLI prints it on stderr). */
  onProgress?: (line: string) => void;
  /**
   * Called before this call starts a preparation (not when it joins one already running);
   * may throw to refuse it (the HTTP server's `CreationBudget`). Returns what to call once the
   * preparation settles.
   */
  reserve?: (conversation: string) => () => void;
}

const inFlight = new WeakMap<Host, Map<string, Promise<WorkspaceStatus>>>();

/**
 * Returns the ready workspace of `conversation`, preparing it first when it is missing or was
 * released. Preparation errors (`WorkspaceError`, `ManifestError`) and what `reserve` throws
 * propagate unchanged.
 */
export async function ensureWorkspace(host: Host, conversation: string, options: EnsureOptions = {}): Promise<WorkspaceStatus> {
  const existing = host.status().find((w) => w.conversation === conversation);
  if (existing?.state === 'ready') return existing;
  let pending = inFlight.get(host);
  if (!pending) inFlight.set(host, (pending = new Map()));
  const running = pending.get(conversation);
  if (running) return running;
  const settle = options.reserve?.(conversation);
  options.onProgress?.(`preparing workspace for conversation "${conversation}"…`);
  const job = host.prepare({
    conversation,
    ...(options.role ? { role: options.role } : {}),
    ...(options.run ? { run: options.run } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
  });
  pending.set(conversation, job);
  try {
    return await job;
  } finally {
    pending.delete(conversation);
    settle?.();
  }
}
