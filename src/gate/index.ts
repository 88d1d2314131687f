/** The front door of src/gate: the tool gate, its registry of workspaces, its API and its audit record. */
export type { ToolCallRecord } from './audit-record.js';
export { type Registration, Registry } from './registry.js';
export type { CallContext, ToolGateApi } from './tool-gate-api.js';
export { ToolGate } from './tool-gate.js';
