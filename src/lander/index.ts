/** The front door of src/lander: the lander, its save points, and submitting work to its queue. */
export { type DrainReport, Lander } from './lander.js';
export { LANDER_SAVE_POINTS, type SavePoint, type SavePointHook } from './save-points.js';
export { submitWork } from './submit-work.js';
