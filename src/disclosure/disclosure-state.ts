/**
 * What a workspace record keeps about progressive disclosure, in its JSON `data` under
 * `disclosure`, so a restarted host rebuilds the same projection: the policy as it was at
 * preparation (a later manifest edit does not widen a running workspace), the disclosed
 * paths, the visible paths (disclosed plus what the agent created through tools, minus what it
 * removed) and the number of `request_files` calls so far (the run log's `request`).
 */

/** The persisted disclosure state of one workspace. */
export interface DisclosureState {
  initialPaths: string[];
  allowedPaths: string[];
  /** Repository-relative files disclosed so far (initial ones included), sorted. */
  disclosed: string[];
  /** The projection's visible leaves, sorted (see `SparseProjection.visiblePaths`). */
  visible: string[];
  /** How many `request_files` calls the conversation has made. */
  requests: number;
}

/** The disclosure state stored in a record's `data`, or null when the workspace has none. */
export function disclosureStateOf(data: Record<string, unknown>): DisclosureState | null {
  const d = data.disclosure as Partial<DisclosureState> | undefined;
  if (!d || typeof d !== 'object' || !Array.isArray(d.disclosed) || !Array.isArray(d.allowedPaths)) return null;
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return {
    initialPaths: strings(d.initialPaths),
    allowedPaths: strings(d.allowedPaths),
    disclosed: strings(d.disclosed),
    visible: Array.isArray(d.visible) ? strings(d.visible) : strings(d.disclosed),
    requests: typeof d.requests === 'number' ? d.requests : 0,
  };
}

/** `data` with its disclosure state replaced (a new object; `data` is not changed). */
export function withDisclosureState(data: Record<string, unknown>, state: DisclosureState): Record<string, unknown> {
  return { ...data, disclosure: { ...state } };
}

/** The `sparsePaths` option for `GitPort.addWorktree` of a record's data (empty object without disclosure). */
export function sparseCheckoutOf(data: Record<string, unknown>): { sparsePaths?: string[] } {
  const state = disclosureStateOf(data);
  return state ? { sparsePaths: state.disclosed } : {};
}
