/** The manifest module: load and validate `gatefs.yaml`, pick a role; lander settings. */
export { loadManifest, parseManifestText } from './load.js';
export { defaultManifest } from './default.js';
export { findRole } from './find-role.js';
export { starterManifestText } from './starter.js';
export { ManifestError, type ManifestErrorCode } from './manifest-error.js';
export { loadSettings, chooseLanderSettings } from './settings.js';
export { branchNameProblem } from './branch-name.js';
