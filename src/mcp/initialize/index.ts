/**
 * The initialize room of src/mcp: what every gatefs MCP server says about itself in its
 * `initialize` result (name and version, capabilities, instructions under a tool profile's
 * name), and the early answer `gatefs serve` over stdio gives before anything else has loaded
 * (`answerInitializeEarly`).
 *
 * Loads nothing but node:stream and node:fs: the CLI imports this door on every start, before
 * the MCP SDK (which takes longer to load than the answer takes to write).
 */
export { answerInitializeEarly, type EarlyAnswer, type EarlyInitialize } from './early-initialize.js';
export { SERVER_CAPABILITIES, workspaceInstructions } from './instructions.js';
export { PROFILE_NAMES, isProfileName, type ProfileName } from './profile-name.js';
export { gatefsVersion } from './version.js';
export {
  problemInstructions,
  problemText,
  type WorkspaceProblem,
  type WorkspaceProblemDetails,
} from './workspace-problem.js';
