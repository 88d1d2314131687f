/** The front door of src/lander: the lander, its save points, submitting work to its queue, and the words for a blocked move. */
export { blockedMoveText } from './blocked-move.js';
export { type DrainReport, Lander } from './lander.js';
export { LANDER_SAVE_POINTS, type SavePoint, type SavePointHook } from './save-points.js';
export { submitWork } from './submit-work.js';
