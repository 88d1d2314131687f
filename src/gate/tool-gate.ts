/**
 * `ToolGate`: the one door between agents and files (DESIGN.md "The gate, step by step").
 *
 * `call(conversation, tool, args, context?)`:
 *   1. validate `args` against the tool's compiled schema → `INVALID_INPUT` naming the field
 *      (an unknown tool name → `TOOL_NOT_ALLOWED`);
 *   2. look the conversation up in the Registry → `UNKNOWN_CONVERSATION`, `WORKSPACE_NOT_READY`
 *      (preparing), `WORKSPACE_RELEASED`;
 *   3. the role must declare the tool → `TOOL_NOT_ALLOWED`;
 *   4. resolve the tool's paths in the conversation's namespace → the VFS path codes;
 *   5. for writing tools: the mount's write flag and protected paths (`READ_ONLY`,
 *      `PROTECTED_PATH` via `Namespace.checkWritable`), then occupancy (`OCCUPIED` when another
 *      holder has exclusive write), then the per-file lock;
 *   6. run the handler; append exactly one `tool_call` record to the run log.
 * It never throws: an unexpected exception becomes `INTERNAL`, here and only here. It imports
 * no process or git module: registration checks are Registry lookups, files go through the
 * Namespace.
 *
 * `tools(conversation)` lists the role's tools as MCP descriptors ([] for an unknown, not
 * ready or released conversation).
 */
import type { CallContext, ToolGateApi } from '../host/types.js';
import type { Clock } from '../ports/clock.js';
import type { Registry, Registration } from '../../vfs/registry.js';
import { isConversationId } from '../../vfs/registry.js';
import type { Resolved } from '../../vfs/mount-table.js';
import type { ToolDescriptor, ToolError, ToolResult } from '../../tools/result.js';
import type { ToolDefinition } from '../../tools/tool.js';
import { FILE_TOOLS } from '../../tools/file-tools.js';
import { FileLocks } from './file-lock.js';
import { toToolError } from './tool-error.js';
import { type RunLogSink, UNKNOWN_TOOL, toolCallRecord } from './audit-record.js';

/** Who holds exclusive write on a workspace (the occupancy table); absent means nobody. */
export interface OccupancyCheck {
  /** The holder blocking `holder` from writing in `conversation`, or undefined when free. */
  blockingHolder(conversation: string, holder: string | undefined): string | undefined;
}

/** The ports and tables a gate needs; `tools` lets request_files (or a test tool) join. */
export interface ToolGateOptions {
  registry: Registry;
  runLog: RunLogSink;
  clock: Clock;
  occupancy?: OccupancyCheck;
  /** The tools this gate knows (default: read, grep, list, edit, write). */
  tools?: readonly ToolDefinition[];
}

class Refusal extends Error {
  constructor(readonly error: ToolError) {
    super(error.message);
  }
}

/** The tool gate (see the module comment for the steps). */
export class ToolGate implements ToolGateApi {
  private readonly byName = new Map<string, ToolDefinition>();
  private readonly locks = new FileLocks();

  constructor(private readonly options: ToolGateOptions) {
    for (const tool of options.tools ?? FILE_TOOLS) {
      if (this.byName.has(tool.name)) throw new Error(`ToolGate: two tools are named ${tool.name}`);
      this.byName.set(tool.name, tool);
    }
  }

  /** One gated call. Never throws; appends exactly one `tool_call` record. */
  async call(conversation: string, tool: string, args: unknown, context: CallContext = {}): Promise<ToolResult> {
    const started = this.options.clock.now();
    const definition = typeof tool === 'string' ? this.byName.get(tool) : undefined;
    let result: ToolResult;
    try {
      result = await this.run(conversation, tool, definition, args, context);
    } catch (e) {
      result = { ok: false, error: e instanceof Refusal ? e.error : toToolError(e) };
    }
    const id = isConversationId(conversation) ? conversation : null;
    const outcome = result.ok ? 'ok' : result.error.code;
    this.options.runLog.append(toolCallRecord(id, definition?.name ?? UNKNOWN_TOOL, outcome, Math.max(0, this.options.clock.now() - started)));
    return result;
  }

  /** MCP descriptors of the tools the conversation's role declares; [] unless its workspace is ready. */
  tools(conversation: string): ToolDescriptor[] {
    const registration = isConversationId(conversation) ? this.options.registry.lookup(conversation) : undefined;
    if (!registration || registration.state !== 'ready') return [];
    return [...this.byName.values()].filter((t) => registration.tools.has(t.name)).map((t) => t.descriptor);
  }

  private async run(conversation: string, tool: string, definition: ToolDefinition | undefined, args: unknown, context: CallContext): Promise<ToolResult> {
    if (!definition) throw refuse('TOOL_NOT_ALLOWED', `there is no tool named ${JSON.stringify(String(tool).slice(0, 64))}`);
    const valid = definition.validate(args);
    if (!valid.ok) throw refuse('INVALID_INPUT', valid.message);
    const registration = this.registration(conversation);
    if (!registration.tools.has(definition.name)) {
      throw refuse('TOOL_NOT_ALLOWED', `the role '${registration.role}' does not declare the tool '${definition.name}'`);
    }
    const ns = registration.namespace;
    if (!ns) throw refuse('WORKSPACE_NOT_READY', `the workspace of '${conversation}' has no namespace yet`);
    const input = valid.value;
    let resolved: Resolved[];
    try {
      resolved = definition.paths(input).map((p) => ns.resolve(p, definition.name));
      if (definition.writes) for (const r of resolved) ns.checkWritable(r, definition.name);
    } catch (e) {
      return { ok: false, error: toToolError(e, ns) };
    }
    if (definition.writes) {
      const blocker = this.options.occupancy?.blockingHolder(conversation, context.holder);
      if (blocker !== undefined) throw refuse('OCCUPIED', `the workspace of '${conversation}' is held for exclusive write by another holder`);
    }
    const ctx = { conversation, registration, namespace: ns, resolved, holder: context.holder, chain: context.chain };
    const runHandler = async (): Promise<ToolResult> => {
      try {
        return await definition.handler(input, ctx);
      } catch (e) {
        return { ok: false, error: toToolError(e, ns) };
      }
    };
    if (!definition.writes || resolved.length === 0) return runHandler();
    return this.locked(resolved, runHandler);
  }

  /** Runs `fn` holding the lock of every resolved path (taken in a stable order: no deadlock). */
  private locked(resolved: readonly Resolved[], fn: () => Promise<ToolResult>): Promise<ToolResult> {
    const sorted = [...resolved].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const step = (i: number): Promise<ToolResult> =>
      i === sorted.length ? fn() : this.locks.run(sorted[i].mount.layer, sorted[i].rel, () => step(i + 1));
    return step(0);
  }

  private registration(conversation: string): Registration {
    const registration = isConversationId(conversation) ? this.options.registry.lookup(conversation) : undefined;
    if (!registration) {
      const shown = typeof conversation === 'string' ? JSON.stringify(conversation.slice(0, 64)) : 'a non-string id';
      throw refuse('UNKNOWN_CONVERSATION', `no workspace is registered for conversation ${shown}`);
    }
    if (registration.state === 'preparing') throw refuse('WORKSPACE_NOT_READY', `the workspace of '${conversation}' is still being prepared`);
    if (registration.state === 'released') throw refuse('WORKSPACE_RELEASED', `the workspace of '${conversation}' was released`);
    return registration;
  }
}

function refuse(code: ToolError['code'], message: string): Refusal {
  return new Refusal({ code, message });
}
