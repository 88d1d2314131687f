/**
 * The contract between a waiting MCP server (`createWaitingMcpServer`) and what makes its
 * workspace ready in the background: over stdio `WorkspaceReadiness`, over HTTP `HttpReadiness`.
 * The server answers from the first moment and its tool calls wait on `ready()`.
 */
import type { Host, WorkspaceStatus } from '../../host/composition/index.js';
import type { ToolDescriptor, ToolError } from '../../../tools/index.js';

/** A ready workspace held by this session (`holder` makes its calls), or why not. */
export type Readiness =
  | { ok: true; host: Host; conversation: string; status: WorkspaceStatus; holder: string }
  | { ok: false; error: ToolError; cause: unknown; stopped?: true };

/** What an MCP server that answers before its workspace is ready waits on (`createWaitingMcpServer`). */
export interface ReadinessSource {
  /** True once the workspace is prepared and held. */
  readonly isReady: boolean;
  /** What it waits for now, for progress messages. */
  readonly phase: string;
  /** Resolves once the workspace is ready and held, or to why not. */
  ready(): Promise<Readiness>;
  /** The tools to list: the role's, ready or not. Rejects when the host cannot say. */
  tools(): Promise<ToolDescriptor[]>;
  /** The conversation, once known (after `tools()` resolves, always). */
  readonly conversationId: string | undefined;
  /**
   * Once, a note the agent must read with its next tool answer (the workspace it continues holds
   * uncommitted files from an earlier window), else undefined. Optional: HTTP has none.
   */
  takeNotice?(): string | undefined;
}
