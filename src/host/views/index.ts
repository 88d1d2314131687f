/** The front door of src/host/views: a workspace's namespace over its folders. */
export { type CopyLower, openWorkspaceView, type WorkspaceView } from './workspace-view.js';
export { anchorOf, type AttachedWorkspace } from './attached-workspaces.js';
