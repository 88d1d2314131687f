/** The front door of src/host/platform: the HostPlatform port, the disk platform, and where a workspace's folders live. */
export { DiskPlatform } from './disk-platform.js';
export type { FolderState, HostPlatform, OpenedFolder } from './platform.js';
export { branchOf, checkConversationId, checkoutOf, type PathBase, type WorkspaceArea } from './workspace-paths.js';
