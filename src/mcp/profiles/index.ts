/**
 * The profiles room of src/mcp: the names and shapes under which an MCP server offers the
 * gate's tools (`ToolProfile`). `gatefs` offers them as they are (`GATEFS_PROFILE`, results
 * shaped by `tool-result.ts`); `claude-code` under Claude Code's tool and argument names
 * (`claude-code.ts`). `profileNamed` picks one by its `serve --profile` name; `gateOf` is the
 * gate a profile's calls go through. `CLAUDE_CODE_INPUTS` are that profile's input schemas,
 * which the message limits are derived from.
 *
 * Loading this door compiles the claude-code profile's schemas (TypeBox): the CLI imports it
 * only once it serves.
 */
export { CLAUDE_CODE_INPUTS } from './claude-code-schemas.js';
export { profileNamed } from './profile-named.js';
export { GATEFS_PROFILE, gateOf, type ToolProfile } from './tool-profile.js';
