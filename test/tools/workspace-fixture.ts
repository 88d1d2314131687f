/**
 * Test set-up for the tools and the gate: a Registry, a ToolGate with an in-memory run log and
 * a manual clock, and workspaces registered over memory (or any) layers.
 */
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import type { Layer } from '../../vfs/layer.js';
import type { Mount } from '../../vfs/mount-table.js';
import { Registry, type RegistrationState } from '../../src/gate/registry.js';
import { ManualClock } from '../../src/ports/clock.js';
import { ToolGate, type OccupancyCheck } from '../../src/gate/tool-gate.js';
import type { ToolDefinition } from '../../tools/tool.js';
import type { DisclosureRequests } from '../../tools/disclosure-requests.js';
import type { ToolResult } from '../../tools/result.js';

export const ALL_TOOLS = ['read', 'grep', 'list', 'edit', 'write'];

export interface LoggedEvent {
  type: string;
  conversation: string | null;
  data: Record<string, unknown>;
}

export interface GateSetup {
  gate: ToolGate;
  registry: Registry;
  log: LoggedEvent[];
  clock: ManualClock;
}

export function setupGate(options: { occupancy?: OccupancyCheck; tools?: ToolDefinition[] } = {}): GateSetup {
  const registry = new Registry();
  const log: LoggedEvent[] = [];
  const clock = new ManualClock(Date.UTC(2026, 0, 1), 1);
  const gate = new ToolGate({ registry, runLog: { append: (e) => log.push(e) }, clock, ...options });
  return { gate, registry, log, clock };
}

export interface WorkspaceOptions {
  files?: Record<string, string | Uint8Array>;
  layer?: Layer;
  /** Extra mounts beside the workspace root. */
  mounts?: Mount[];
  tools?: string[];
  state?: RegistrationState;
  role?: string;
  /** The registration's disclosure handle (request_files), if any. */
  disclosure?: DisclosureRequests;
}

/** Registers conversation `id` with a workspace at `/worktrees/<id>`; returns its namespace and root layer. */
export function addWorkspace(setup: GateSetup, id: string, options: WorkspaceOptions = {}) {
  const layer = options.layer ?? new MemoryLayer({ files: options.files ?? {} });
  const ns = new Namespace({
    root: `/worktrees/${id}`,
    mounts: [{ path: `/worktrees/${id}`, layer, writable: true }, ...(options.mounts ?? [])],
  });
  setup.registry.set({
    conversation: id,
    state: options.state ?? 'ready',
    role: options.role ?? 'agent',
    tools: new Set(options.tools ?? ALL_TOOLS),
    namespace: ns,
    disclosure: options.disclosure,
  });
  return { ns, layer };
}

/** Asserts success and returns the value. */
export function valueOf<T = any>(result: ToolResult): T {
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`);
  return result.value as T;
}

/** Asserts failure and returns the error. */
export function errorOf(result: ToolResult) {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value).slice(0, 200)}`);
  return result.error;
}

export const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
