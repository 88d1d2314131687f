/** The front door of src/host/lower: the lower folders of copy workspaces. */
export { LowerFolders } from './lower-folders.js';
