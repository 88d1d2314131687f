/**
 * `ToolGate`: the one door between agents and files (docs/ARCHITECTURE.md § Life of a tool call).
 *
 * `call(conversation, tool, args, context?)`:
 *   1. validate `args` against the tool's compiled schema → `INVALID_INPUT` naming the field
 *      (an unknown tool name → `TOOL_NOT_ALLOWED`);
 *   2. look the conversation up in the Registry → `UNKNOWN_CONVERSATION`, `WORKSPACE_NOT_READY`
 *      (preparing), `WORKSPACE_RELEASED`;
 *   3. the role must declare the tool → `TOOL_NOT_ALLOWED`;
 *   4. resolve the tool's paths in the conversation's namespace, following symbolic links
 *      beneath their mounts (`Namespace.resolveLinks`; a final link is kept for a tool that
 *      acts on links themselves: delete, move) → the VFS path codes, `SYMLINK_ESCAPE` for a
 *      link leading out of its mount; every later check and the handler see the link-free
 *      path, so a link is written through to its target only where the target may be written;
 *   5. for writing tools: what the paths as written already refuse (`READ_ONLY`,
 *      `PROTECTED_PATH` via `Namespace.checkWritable`); then, at the moment of the call and
 *      before step 4 reads the disk, the workspace's write door (held until the handler is
 *      done, so a release in any process waits for this write; src/ports/write-door.ts:
 *      `OCCUPIED` when a release has shut it) and occupancy (`OCCUPIED` when another holder
 *      has exclusive write); after step 4 the same write checks on the resolved paths; then
 *      the per-file locks: the process-wide lock of each file's identity (vfs/file-lock.ts),
 *      and for a compare-and-swap call on a host file (edit; write or delete with an
 *      expectedSha256 string) the cross-process lock too (`BUSY` when another process holds
 *      it past the wait bound; nothing is changed then);
 *   6. run the handler; append exactly one `tool_call` record to the run log: the tool (and the
 *      client's name for it, `context.clientTool`), the outcome, the duration and the paths the
 *      call named (as resolved in step 4 when it got there, else as written; never contents).
 * It never throws: an unexpected exception becomes `INTERNAL`, here and only here. It imports
 * no process or git module: registration checks are Registry lookups, files go through the
 * Namespace.
 *
 * `tools(conversation)` lists the role's tools as MCP descriptors ([] for an unknown, not
 * ready or released conversation).
 */
import type { CallContext, ToolGateApi } from './tool-gate-api.js';
import type { Clock } from '../ports/index.js';
import type { Registry, Registration } from './registry.js';
import { isConversationId } from '../../vfs/index.js';
import type { Resolved } from '../../vfs/index.js';
import type { Namespace } from '../../vfs/index.js';
import { isVfsError } from '../../vfs/index.js';
import { hasDotDotSegment } from '../../vfs/index.js';
import { ToolFailure, type ToolDescriptor, type ToolError, type ToolResult } from '../../tools/index.js';
import type { ToolDefinition } from '../../tools/index.js';
import { FILE_TOOLS } from '../../tools/index.js';
import { HOST_FILES, type LockKey } from '../../vfs/index.js';
import { type FileLocks, processFileLocks } from '../../vfs/index.js';
import type { CrossProcessHold, CrossProcessLocks } from '../ports/index.js';
import type { WriteDoor } from '../ports/index.js';
import { toToolError } from './tool-error.js';
import { type RunLogSink, UNKNOWN_TOOL, toolCallRecord } from './audit-record.js';

/** What one call's record learns as the call goes: its paths, as written, then as resolved. */
interface CallTrace {
  paths?: readonly string[];
}

/** Who holds exclusive write on a workspace (the occupancy table); absent means nobody. */
export interface OccupancyCheck {
  /** The holder blocking `holder` from writing in `conversation`, or undefined when free. */
  blockingHolder(conversation: string, holder: string | undefined): string | undefined;
}

/** The ports and tables a gate needs; `tools` lets request_files (or a test tool) join. */
interface ToolGateOptions {
  registry: Registry;
  runLog: RunLogSink;
  clock: Clock;
  occupancy?: OccupancyCheck;
  /** The tools this gate knows (default: read, grep, list, edit, write). */
  tools?: readonly ToolDefinition[];
  /** Cross-process locks for compare-and-swap calls on host files (absent: in-process only). */
  crossProcessLocks?: CrossProcessLocks;
  /** The workspaces' write doors, shut by a release in any process (absent: the host drains in-process calls only). */
  writeDoor?: WriteDoor;
  /** The in-process lock registry (default: `processFileLocks`, shared by every gate of the process). */
  fileLocks?: FileLocks;
}

/** The tool gate (see the module comment for the steps). */
export class ToolGate implements ToolGateApi {
  private readonly byName = new Map<string, ToolDefinition>();
  private readonly locks: FileLocks;

  constructor(private readonly options: ToolGateOptions) {
    this.locks = options.fileLocks ?? processFileLocks;
    for (const tool of options.tools ?? FILE_TOOLS) {
      if (this.byName.has(tool.name)) throw new Error(`ToolGate: two tools are named ${tool.name}`);
      this.byName.set(tool.name, tool);
    }
  }

  /** One gated call. Never throws; appends exactly one `tool_call` record. */
  async call(conversation: string, tool: string, args: unknown, context: CallContext = {}): Promise<ToolResult> {
    const started = this.options.clock.now();
    const definition = typeof tool === 'string' ? this.byName.get(tool) : undefined;
    const trace: CallTrace = {};
    let result: ToolResult;
    try {
      result = await this.run(conversation, tool, definition, args, context, trace);
    } catch (e) {
      result = { ok: false, error: toToolError(e) };
    }
    const id = isConversationId(conversation) ? conversation : null;
    const outcome = result.ok ? 'ok' : result.error.code;
    const clientTool = typeof context.clientTool === 'string' ? context.clientTool : undefined;
    this.options.runLog.append(
      toolCallRecord(id, definition?.name ?? UNKNOWN_TOOL, outcome, Math.max(0, this.options.clock.now() - started), {
        ...(trace.paths ? { paths: trace.paths } : {}),
        ...(clientTool !== undefined ? { clientTool } : {}),
      }),
    );
    return result;
  }

  /**
   * MCP descriptors of the tools the conversation's role declares; [] unless its workspace is
   * ready, and [] when its registration cannot be read: the registry has recorded why in the
   * run log, and every tool call answers the error itself (this list reaches the agent, and
   * the error's message may name host paths).
   */
  tools(conversation: string): ToolDescriptor[] {
    let registration: Registration | undefined;
    try {
      registration = isConversationId(conversation) ? this.options.registry.lookup(conversation) : undefined;
    } catch {
      return [];
    }
    if (registration?.state !== 'ready') return [];
    return [...this.byName.values()].filter((t) => registration.tools.has(t.name)).map((t) => t.descriptor);
  }

  private async run(
    conversation: string,
    tool: string,
    definition: ToolDefinition | undefined,
    args: unknown,
    context: CallContext,
    trace: CallTrace,
  ): Promise<ToolResult> {
    if (!definition) {
      throw refuse(
        'TOOL_NOT_ALLOWED',
        `there is no tool named ${JSON.stringify(String(tool).slice(0, 64))}; the tools are ${[...this.byName.keys()].join(', ')}`,
      );
    }
    const valid = definition.validate(args);
    if (!valid.ok) throw new ToolFailure('INVALID_INPUT', valid.message, undefined, { ...valid.details });
    const registration = this.registration(conversation);
    if (!registration.tools.has(definition.name)) {
      throw refuse('TOOL_NOT_ALLOWED', `the role '${registration.role}' does not declare the tool '${definition.name}'`);
    }
    const ns = registration.namespace;
    if (!ns) throw refuse('WORKSPACE_NOT_READY', `the workspace of '${conversation}' has no namespace yet`);
    const input = valid.value;
    trace.paths = definition.paths(input);
    if (!definition.writes) return this.runReading(conversation, definition, input, registration, context, trace);
    // The door is entered before the paths are resolved (which reads the disk), so a write
    // issued before a release began holds the door from the moment it is called; what the
    // paths alone refuse is refused first, without entering it.
    const refused = precheckWrite(ns, definition, input);
    if (refused) return refused;
    const pass = this.options.writeDoor?.enter(conversation);
    if (pass === 'shut') throw refuse('OCCUPIED', `the workspace of '${conversation}' is being released`);
    if (pass === 'unavailable') throw refuse('BUSY', 'out of file descriptors; nothing was changed: retry the call');
    try {
      // Occupancy is asked at the moment of the call too: a release that takes the workspace
      // after it has begun waits for it (src/host/occupancy/call-tracker.ts).
      const blocker = this.options.occupancy?.blockingHolder(conversation, context.holder);
      if (blocker !== undefined)
        throw refuse('OCCUPIED', `the workspace of '${conversation}' is held for exclusive write by another holder`);
      const resolved = await this.resolvePaths(ns, definition, input);
      if (!Array.isArray(resolved)) return resolved;
      return await this.runInside(conversation, definition, input, resolved, registration, context, trace);
    } finally {
      pass?.leave();
    }
  }

  /**
   * Steps 4 and 6 for a tool that only reads, optimistically: its paths as written (no '..'),
   * run, and only when the answer is `SYMLINK_ESCAPE` (a layer met a link, which it never
   * follows) resolved with links followed and run again on what they lead to. Reads change
   * nothing, so the second run is the answer the first would have given on the link-free path;
   * a path without links costs no extra lookup. A path with '..' is resolved physically first.
   */
  private async runReading(
    conversation: string,
    definition: ToolDefinition,
    input: unknown,
    registration: Registration,
    context: CallContext,
    trace: CallTrace,
  ): Promise<ToolResult> {
    const ns = registration.namespace!;
    const paths = definition.paths(input);
    let first: { written: Resolved[]; result: ToolResult } | undefined;
    if (!paths.some(hasDotDotSegment)) {
      let written: Resolved[];
      try {
        written = paths.map((p) => ns.resolve(p, definition.name));
      } catch (e) {
        return { ok: false, error: toToolError(e, ns) };
      }
      const result = await this.runInside(conversation, definition, input, written, registration, context, trace);
      if (result.ok || result.error.code !== 'SYMLINK_ESCAPE') return result;
      first = { written, result };
    }
    const resolved = await this.resolvePaths(ns, definition, input);
    if (!Array.isArray(resolved)) return resolved;
    // No link to follow after all (it changed meanwhile): the first answer stands.
    if (first && resolved.every((r, i) => r.path === first.written[i].path)) return first.result;
    return this.runInside(conversation, definition, input, resolved, registration, context, trace);
  }

  /**
   * Step 4 (and the checks of step 5 that need only the paths): the tool's paths resolved with
   * their links followed beneath their mounts, checked writable for a writing tool; or the
   * failure to answer.
   */
  private async resolvePaths(ns: Namespace, definition: ToolDefinition, input: unknown): Promise<Resolved[] | ToolResult> {
    try {
      const followFinal = !definition.keepsFinalLink;
      const resolved: Resolved[] = [];
      for (const p of definition.paths(input)) resolved.push(await ns.resolveLinks(p, definition.name, { followFinal }));
      if (definition.writes) for (const r of resolved) ns.checkWritable(r, definition.name);
      return resolved;
    } catch (e) {
      return { ok: false, error: toToolError(e, ns) };
    }
  }

  /** Steps 5 (locks) and 6 once the checks passed (and, for a write, inside the door). */
  private async runInside(
    conversation: string,
    definition: ToolDefinition,
    input: unknown,
    resolved: Resolved[],
    registration: Registration,
    context: CallContext,
    trace: CallTrace,
  ): Promise<ToolResult> {
    const ns = registration.namespace!;
    trace.paths = resolved.map((r) => ns.display(r.path));
    const ctx = {
      conversation,
      disclosure: registration.disclosure,
      work: registration.work,
      commands: registration.commands,
      snapshots: registration.snapshots,
      handoffs: registration.handoffs,
      bindings: registration.bindings,
      describe: registration.describe,
      namespace: ns,
      resolved,
      holder: context.holder,
      chain: context.chain,
    };
    const runHandler = async (): Promise<ToolResult> => {
      try {
        return await definition.handler(input, ctx);
      } catch (e) {
        return { ok: false, error: toToolError(e, ns) };
      }
    };
    if (!definition.writes || resolved.length === 0) return runHandler();
    let keys: { key: LockKey; shown: string }[];
    try {
      keys = resolved.map((r) => ({ key: ns.lockKey(r), shown: ns.display(r.path) }));
    } catch (e) {
      return { ok: false, error: toToolError(e, ns) };
    }
    return this.locked(keys, definition.compareAndSwap?.(input) ?? false, runHandler);
  }

  /**
   * Runs `fn` holding the in-process lock of every key and, for a compare-and-swap call, the
   * cross-process lock of every host key; each kind taken in one stable order (no deadlock),
   * released in reverse whatever happens.
   */
  private async locked(
    keys: readonly { key: LockKey; shown: string }[],
    compareAndSwap: boolean,
    fn: () => Promise<ToolResult>,
  ): Promise<ToolResult> {
    const sorted = dedupe([...keys].sort((a, b) => compareKeys(a.key, b.key)));
    const releases: (() => void)[] = [];
    try {
      for (const { key } of sorted) releases.push(await this.locks.acquire(key));
      const across = this.options.crossProcessLocks;
      if (compareAndSwap && across) {
        for (const { key, shown } of sorted) {
          if (key.scope !== HOST_FILES) continue;
          const hold: CrossProcessHold | null = await across.acquire(key.id);
          if (!hold) {
            const seconds = Math.round(across.waitMs / 100) / 10;
            return {
              ok: false,
              error: {
                code: 'BUSY',
                message: `another gatefs process kept '${shown}' locked for more than ${seconds} s; nothing was changed: retry the call`,
                path: shown,
              },
            };
          }
          releases.push(() => hold.release());
        }
      }
      return await fn();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  private registration(conversation: string): Registration {
    const registration = isConversationId(conversation) ? this.options.registry.lookup(conversation) : undefined;
    if (!registration) {
      const shown = typeof conversation === 'string' ? JSON.stringify(conversation.slice(0, 64)) : 'a non-string id';
      throw refuse('UNKNOWN_CONVERSATION', `no workspace is registered for conversation ${shown}`);
    }
    if (registration.state === 'preparing')
      throw refuse('WORKSPACE_NOT_READY', `the workspace of '${conversation}' is still being prepared`);
    if (registration.state === 'released') throw refuse('WORKSPACE_RELEASED', `the workspace of '${conversation}' was released`);
    return registration;
  }
}

/**
 * The checks of a write's paths that need no disk, run before the write door is entered: the
 * grammar, the mount's write flag and the protected names on the path as written (for a path
 * whose entry is taken away, also the authority files and mounts it holds), which the
 * resolved path passes again later. (So a path whose written form names a protected file is
 * refused even where a link on the way would lead elsewhere.) A written form whose '..' climbs
 * out lexically is left to the physical resolution, which may take it through a link. The
 * failure to answer, or undefined.
 */
function precheckWrite(ns: Namespace, definition: ToolDefinition, input: unknown): ToolResult | undefined {
  try {
    const removed = new Set(definition.removedPaths?.(input) ?? []);
    for (const p of definition.paths(input)) {
      let written: Resolved;
      try {
        written = ns.resolve(p, definition.name);
      } catch (e) {
        if (isVfsError(e, 'PATH_ESCAPE')) continue;
        throw e;
      }
      if (removed.has(p)) ns.checkRemovable(written, definition.name);
      else ns.checkWritable(written, definition.name);
    }
    return undefined;
  } catch (e) {
    return { ok: false, error: toToolError(e, ns) };
  }
}

/** A total order on lock keys: scopes by first use in this process, then ids. */
function compareKeys(a: LockKey, b: LockKey): number {
  const sa = scopeRank(a.scope);
  const sb = scopeRank(b.scope);
  if (sa !== sb) return sa - sb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const scopeRanks = new WeakMap<object, number>();
let nextScopeRank = 0;
function scopeRank(scope: object): number {
  let rank = scopeRanks.get(scope);
  if (rank === undefined) scopeRanks.set(scope, (rank = nextScopeRank++));
  return rank;
}

/** Sorted keys without repeats (two paths of one call naming one file take its lock once). */
function dedupe<T extends { key: LockKey }>(sorted: T[]): T[] {
  return sorted.filter((k, i) => i === 0 || compareKeys(sorted[i - 1].key, k.key) !== 0);
}

/** A refusal of the gate itself: the agent gets `code` and `message`, and no path. */
function refuse(code: ToolError['code'], message: string): ToolFailure {
  return new ToolFailure(code, message);
}
