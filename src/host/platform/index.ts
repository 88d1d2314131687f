/** The front door of src/host/platform: the HostPlatform port, the disk platform, and where a workspace's folders live. */
export { DiskPlatform } from './disk-platform.js';
export type { FolderState, HostPlatform, OpenedFolder } from './platform.js';
export {
  artifactFolderOf,
  branchOf,
  checkConversationId,
  checkoutOf,
  checkRunName,
  inventoryFolderOf,
  type PathBase,
  type WorkspaceArea,
} from './workspace-paths.js';
