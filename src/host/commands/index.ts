/**
 * The front door of src/host/commands: an agent's commands in its kernel sandbox — the sandbox
 * plan of a workspace, the per-conversation command service, and the runs a release ends.
 */
export { CommandRuns, CommandService } from './command-service.js';
export { SandboxCheckRunner } from './sandbox-check-runner.js';
export { OverlayChangeKeeper } from './overlay-changes.js';
export { type CopyFacts, type PlanFacts, sandboxPlan } from './sandbox-plan.js';
export { bindingFactsOf } from './binding-facts.js';
