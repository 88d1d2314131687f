/** The front door of src/host/artifacts: handoffs, ends, the host-owned artifact store's records and recovery, seed inventories (docs/ARCHITECTURE.md § Runs, handoffs and artifacts). */
export { ArtifactService } from './artifact-service.js';
export type { ArtifactSavePoint, HandoffRequest, RunArtifact, RunStatus } from './artifact-types.js';
export { makeAutoPatch } from './auto-patch.js';
export { inventoryOf, type SeedInventory, writeInventory } from './inventory.js';
