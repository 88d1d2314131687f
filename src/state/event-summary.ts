/**
 * `summarizeEvent`: the few data fields of a run-log event a person scans for (tool, outcome
 * code, git argv, role, branch, holder, …), as one short line, for `gatefs log`, `gatefs demo`
 * and the status page. Never file contents: the run log holds none.
 */

const SHOWN_KEYS = ['tool', 'outcome', 'code', 'tag', 'argv', 'exitCode', 'role', 'backend', 'branch', 'holder', 'mode', 'paths'];

/** The summary of `data`: `key=value` pairs of the shown keys, at most `max` characters (default 100). */
export function summarizeEvent(data: Record<string, unknown>, max = 100): string {
  const parts: string[] = [];
  for (const key of SHOWN_KEYS) {
    const v = data[key];
    if (v === undefined || v === null) continue;
    const text = Array.isArray(v) ? v.join(key === 'argv' ? ' ' : ',') : typeof v === 'object' ? JSON.stringify(v) : String(v);
    parts.push(`${key}=${key === 'argv' ? `"${text}"` : text}`);
  }
  return parts.join(' ').slice(0, max);
}
