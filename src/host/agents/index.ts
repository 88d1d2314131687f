/** The front door of src/host/agents: the agent model's bindings (attach, detach, switch) and what other rooms build on it. */
export { describeConversation, describeProbed } from './describe-conversation.js';
export {
  attachWorkspace,
  type BindingResult,
  detachWorkspace,
  type DetachResult,
  switchWorkspace,
  type SwitchResult,
} from './binding-service.js';
export { bindingRequestsOf } from './binding-requests-of.js';
export { canonicalWriterBlocking } from './canonical-writer.js';
export { guardCommit, guardRollback } from './own-writer.js';
export { resolveReference } from './resolve-reference.js';
export type { FileReference, ResolveReferenceOptions } from './file-reference.js';
