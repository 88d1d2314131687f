/** The front door of src/host/platform: the HostPlatform port, the disk platform, and where a workspace's folders live. */
export { DiskPlatform } from './disk-platform.js';
export { type AgentHome, cleanAgentTmp, homeFolderReady, listAgentHomes, seedAgentHome } from './agent-home.js';
export { defaultAgentOf, HOME_ANCHOR, HOME_RUNTIME_FOLDER } from './agent-home-layout.js';
export type { FolderState, HostPlatform, OpenedFolder } from './platform.js';
export {
  artifactFolderOf,
  branchOf,
  checkConversationId,
  checkoutOf,
  homeFolderOf,
  checkRunName,
  inventoryFolderOf,
  type PathBase,
  type WorkspaceArea,
} from './workspace-paths.js';
export { branchOfRecord, explicitBranchProblem, isConversationBranch } from './workspace-branch.js';
