/**
 * The front door of src/host/state-trust: the state directory's names, creation, proof of origin
 * and trust checks, and its read-only opening (the CLI's `log` loads it with `import()`).
 */
export { stateDirNames } from './state-dir-names.js';
export { createStateDir, excludeStateDir } from './state-dir.js';
export { checkOrigin, recordOriginOf, waitForOrigin } from './state-origin-check.js';
export { openStateReader, type StateReader } from './state-reader.js';
export { inspectStateDir } from './state-trust.js';
export { refuseTracked } from './tracked-state.js';
export { DATABASE_FILE } from './untrusted-state.js';
