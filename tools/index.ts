/**
 * The front door of tools: the tool lists the gate registers, the tool error codes and result
 * shapes, the values and limits the CLI and the MCP profiles name. tree-sitter stays behind the
 * syntax check's own `import()`: loading this door loads none of it.
 */
export { isToolErrorCode, TOOL_ERROR_CODES, type ToolErrorCode } from './codes.js';
export type { DisclosureOutcome, DisclosureProblem, DisclosureRequests, RequestFilesValue } from './disclosure-requests.js';
export { closestName } from './closest-name.js';
export { applyEditSteps, checkEditSteps, type EditStep, UnmatchedEditStep } from './edit-steps.js';
export { EDIT_MAX_STEPS, EDIT_STEP_MAX_CHARS, type EditValue } from './edit.js';
export { FILE_TOOLS } from './file-tools.js';
export type { GrepValue } from './grep/grep-results.js';
export { GREP_FILES_ONLY_HINT } from './grep.js';
export type { ListValue } from './list.js';
export { MAX_PATH_ARG_CHARS } from './path-arg.js';
export type { ReadImageValue, ReadValue } from './read.js';
export { requestFilesTool } from './request-files.js';
export { COMMAND_TOOLS } from './command-tools.js';
export { SNAPSHOT_TOOLS } from './snapshot-tools.js';
export { HANDOFF_TOOLS } from './handoff-tools.js';
export { BINDING_TOOLS } from './binding-tools.js';
export type { AttachMode, BindingRequests } from './binding-requests.js';
export type { DescribeRequest, ExecutionSnapshot, ProjectionKind, WorkspaceFacts } from './execution-snapshot.js';
export { whereamiTool } from './whereami.js';
export type { EndValue, HandoffRequests, HandoffValue, PatchSummary } from './handoff-requests.js';
export { CHECKPOINT_MAX_LABEL } from './checkpoint.js';
export type { CheckpointValue, RollbackValue, SnapshotListing, SnapshotRequests } from './snapshot-requests.js';
export type {
  BackgroundValue,
  ChangedPath,
  CheckValue,
  CommandRequests,
  ExecValue,
  RunOutputValue,
} from './command-requests.js';
export { type ToolDescriptor, type ToolError, ToolFailure, type ToolResult } from './result.js';
export { SyntaxReportSchema } from './syntax-check.js';
export { compileInput, type InputCheck, plainJsonSchema, type ToolDefinition } from './tool.js';
export type {
  CheckOutcome,
  CommitValue,
  DiffValue,
  MessagesValue,
  MessageView,
  PendingSubmission,
  SubmitValue,
  WorkRequests,
} from './work-requests.js';
export { WORK_TOOLS } from './work-tools.js';
export { WRITE_MAX_CONTENT_CHARS, type WriteValue } from './write.js';
