/**
 * `ToolGateApi`: what a host offers agents through its gate (`host.gate`), and `CallContext`,
 * who is calling. Declared beside `ToolGate`, which implements it; the host and the MCP server
 * use it without knowing the class.
 */
import type { ToolDescriptor, ToolResult } from '../../tools/index.js';

/** Who is calling: used for occupancy (`OCCUPIED`) and carried into the run log. */
export interface CallContext {
  /** The occupancy holder making the call (e.g. an MCP session); default: anonymous. */
  holder?: string;
  /** Conversation chain of the caller (parent conversations first), for the run log. */
  chain?: readonly string[];
  /** The tool name the client called, when a profile maps it onto the gate tool (recorded as `clientTool`). */
  clientTool?: string;
}

/** The gate as a host exposes it. */
export interface ToolGateApi {
  /** One gated tool call. Never throws: every failure is `{ ok: false, error }`. */
  call(conversation: string, tool: string, args: unknown, context?: CallContext): Promise<ToolResult>;
  /** The tools the conversation's role may use, as MCP-ready descriptors. */
  tools(conversation: string): ToolDescriptor[];
}
