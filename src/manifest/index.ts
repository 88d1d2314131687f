/** The manifest module: load and validate `gatefs.yaml`, pick a role; lander settings. */
export { loadManifest, parseManifestText } from './load.js';
export { defaultManifest } from './default.js';
export { findRole } from './find-role.js';
export { starterManifestText } from './starter.js';
export { manifestFromValue } from './manifest-from-value.js';
export { ManifestError, isManifestError, type ManifestErrorCode, type ManifestErrorOrigin } from './manifest-error.js';
export {
  TOOL_NAMES,
  BACKENDS,
  type Manifest,
  type Role,
  type ToolName,
  type MountSpec,
  type DisclosurePolicy,
  type ArtifactSettings,
} from './types.js';
export {
  loadSettings,
  chooseLanderSettings,
  defaultLanderSettings,
  DEFAULT_CHECK_TIMEOUT_SECONDS,
  type LanderSettings,
  type CheckSpec,
} from './settings.js';
export { splitCommand, joinCommand } from './check-command.js';
export { branchNameProblem } from './branch-name.js';
