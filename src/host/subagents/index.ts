/** The front door of src/host/subagents: starting, landing and discarding child conversations. */
export { discardSubagent, refuseUnlanded } from './discard-subagent.js';
export { landSubagent, type LandSubagentResult } from './land-subagent.js';
export { startSubagent, type StartSubagentOptions } from './start-subagent.js';
export type { SubagentParts } from './subagent-parts.js';
