/**
 * The tools a host's gate runs, and the tools a conversation will offer before its workspace is
 * ready (`serve` lists them while it prepares in the background).
 */
import { FILE_TOOLS } from '../../../tools/index.js';
import { requestFilesTool } from '../../../tools/index.js';
import type { ToolDescriptor } from '../../../tools/index.js';
import { WORK_TOOLS } from '../../../tools/index.js';
import { COMMAND_TOOLS } from '../../../tools/index.js';
import { SNAPSHOT_TOOLS } from '../../../tools/index.js';
import { HANDOFF_TOOLS } from '../../../tools/index.js';
import { BINDING_TOOLS } from '../../../tools/index.js';
import { whereamiTool } from '../../../tools/index.js';
import { findRole } from '../../manifest/index.js';
import type { Manifest } from '../../manifest/index.js';
import type { StateStore } from '../../state/index.js';

/** Every tool the gate runs, in the order clients list them. */
export const GATE_TOOLS = [
  ...FILE_TOOLS,
  requestFilesTool,
  ...WORK_TOOLS,
  ...COMMAND_TOOLS,
  ...SNAPSHOT_TOOLS,
  ...HANDOFF_TOOLS,
  whereamiTool,
  ...BINDING_TOOLS,
];

/**
 * The descriptors of the tools `conversation` will offer, as `gate.tools` lists them: its
 * recorded role's (a workspace exists), else `role`'s, else the manifest's first role's. Throws
 * `ManifestError` `UNKNOWN_ROLE`.
 */
export function declaredToolsOf(
  parts: { readonly manifest: Manifest; readonly store: Pick<StateStore, 'workspaces'> },
  conversation: string,
  role?: string,
): ToolDescriptor[] {
  const recorded = parts.store.workspaces.get(conversation);
  const name = recorded && recorded.state !== 'failed' ? recorded.role : role;
  const declared: ReadonlySet<string> = new Set(findRole(parts.manifest, name).tools);
  return GATE_TOOLS.filter((t) => declared.has(t.name)).map((t) => t.descriptor);
}
