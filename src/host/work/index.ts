/** The front door of src/host/work: diff, commit and submit for a workspace, the operator's work, the host's lander. */
export { type LanderParts, landerStatus, runLander, type SubmissionStatus } from './host-lander.js';
export { operatorWork } from './operator-work.js';
export { type WorkParts, WorkService } from './work-service.js';
