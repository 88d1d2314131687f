/**
 * `DisclosureRequests`: the port `request_files` calls to disclose files, and the value it
 * answers with. Declared here, by the tool that needs it, so tools/ depends on nothing outside
 * vfs/; src/disclosure's `DisclosureService` implements it, and a registration whose role has a
 * disclosure policy carries one (`Registration.disclosure`, handed to the tool as
 * `ToolContext.disclosure`).
 */
import type { Namespace } from '../vfs/index.js';
import type { ToolErrorCode } from './codes.js';

/** The three outcomes of a request. */
export type DisclosureOutcome = 'approved' | 'denied' | 'unavailable';

/** Why one requested path was not disclosed. */
export interface DisclosureProblem {
  /** The path as the agent wrote it (cut at 300 characters). */
  path: string;
  code: ToolErrorCode;
  message: string;
}

/** The value `request_files` returns. */
export interface RequestFilesValue {
  outcome: DisclosureOutcome;
  /** The requested paths, repository-relative, now disclosed (all of them, or none). */
  disclosedPaths: string[];
  /** Why the request was refused, one entry per refused path. */
  problems?: DisclosureProblem[];
}

/** One conversation's disclosure, as the tool sees it. */
export interface DisclosureRequests {
  /**
   * Checks and discloses `paths` (as the agent wrote them, resolved in `namespace`), all or
   * none; records `reason`. Refusals are values (`denied`, `unavailable` with `problems`), not
   * throws.
   */
  request(paths: readonly string[], reason: string, namespace: Namespace): Promise<RequestFilesValue>;
}
