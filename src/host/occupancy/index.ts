/** The front door of src/host/occupancy: who holds a workspace, the calls in flight, the auto conversation's claim. */
export { type AutoConversation, type AutoConversationRequest, claimAutoConversation } from './auto-conversation.js';
export { CallTracker } from './call-tracker.js';
export { OccupancyGuard } from './occupancy-guard.js';
export { TurnLocks } from './turn-locks.js';
export { asTool } from './as-tool.js';
