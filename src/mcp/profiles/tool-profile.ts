/**
 * `ToolProfile`: the names and shapes under which an MCP server offers the gate's tools. The
 * default profile, `gatefs`, offers them as they are (docs/ARCHITECTURE.md § Tools, results and
 * error codes); another (`serve --profile claude-code`, `claude-code.ts`) maps another client's
 * tool names, argument names and result shapes onto the same tools. Whatever the profile, every
 * file access is a `host.gate.call`: a profile translates arguments and results, it never checks or
 * opens a path itself.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDescriptor, ToolError, ToolResult } from '../../../tools/index.js';
import type { Host } from '../../host/composition/index.js';
import { toCallToolResult, toMcpTool } from './tool-result.js';
import type { ProfileName } from '../initialize/index.js';

/** The gate as a profile's call sees it: one conversation, one holder, every call gated. */
export interface ProfileGate {
  /** The conversation every call is made for. */
  readonly conversation: string;
  /** One gated call of a gate tool (`read`, `edit`, …). Never throws. */
  call(tool: string, args: unknown): Promise<ToolResult>;
  /**
   * This gate for the calls one of the profile's own tools makes (`Glob`, `LS`, `Bash`, …): the
   * run log records that name as the call's `clientTool` where it differs from the gate tool.
   */
  as(clientTool: string): ProfileGate;
}

/** How an MCP server names and shapes the gate's tools (see the file comment). */
export interface ToolProfile {
  readonly name: ProfileName;
  /** `tools/list`: the profile's tools for the gate tools the role declares; `conversation` once known. */
  tools(declared: readonly ToolDescriptor[], conversation: string | undefined): Tool[];
  /** `tools/call` of the profile's tool `name`: the result, every file access through `gate`. Never throws. */
  call(name: string, args: unknown, gate: ProfileGate): Promise<CallToolResult>;
  /** The answer to a call refused before any gate call (the workspace is not ready), as this profile shapes errors. */
  refusal(name: string, error: ToolError): CallToolResult;
}

/** The default profile: the gate's tools under their own names, results as `toCallToolResult` shapes them. */
export const GATEFS_PROFILE: ToolProfile = {
  name: 'gatefs',
  tools: (declared) => declared.map(toMcpTool),
  async call(name, args, gate) {
    return toCallToolResult(name, await gate.call(name, args ?? {}));
  },
  refusal: (name, error) => toCallToolResult(name, { ok: false, error }),
};

/**
 * The `ProfileGate` of `host` for one conversation and occupancy holder. A throw from the gate
 * (it promises never to) becomes `INTERNAL` without its message, which could carry a host path.
 */
export function gateOf(host: Pick<Host, 'gate'>, conversation: string, holder: string | undefined, clientTool?: string): ProfileGate {
  const context = holder || clientTool ? { ...(holder ? { holder } : {}), ...(clientTool ? { clientTool } : {}) } : undefined;
  return {
    conversation,
    async call(tool, args) {
      try {
        return await host.gate.call(conversation, tool, args, context);
      } catch {
        return { ok: false, error: { code: 'INTERNAL', message: 'the gate failed unexpectedly' } };
      }
    },
    as: (name) => gateOf(host, conversation, holder, name),
  };
}
