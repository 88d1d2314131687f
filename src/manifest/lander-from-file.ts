/**
 * Turns the `lander:` value as written (its shape already checked) into `LanderSettings`:
 * defaults filled in, each command split without a shell, names and branch checked.
 */
import { branchNameProblem } from './branch-name.js';
import { splitCommand } from './check-command.js';
import { ManifestError } from './manifest-error.js';
import type { LanderFile } from './lander-schema.js';
import type { CheckSpec } from '../ports/index.js';
import type { LanderSettings } from './types.js';

/** A check's timeout when the settings give none: 600 s. */
const DEFAULT_CHECK_TIMEOUT_SECONDS = 600;

/** Characters of the command text a check's default name keeps. */
const DEFAULT_NAME_CHARS = 60;

/** The settings when nothing is configured: no checks, no push, the current branch. */
export function defaultLanderSettings(): LanderSettings {
  return { checks: [], push: null, branch: null };
}

/**
 * Builds `LanderSettings` from `raw`, whose shape `lander-schema.ts` has accepted; `at` is its
 * key path ('lander'). Each check: argv from `splitCommand`, timeout in ms (default 600 s),
 * name from `name` or else the command with blanks collapsed, cut at 60 characters. Throws
 * `ManifestError`: `INVALID_VALUE` (a command a shell would be needed for, an empty command, a
 * branch git would refuse; at `lander.checks[i].command` / `lander.branch`) or `DUPLICATE` (two
 * checks with one name: give one a `name`).
 */
export function landerFromFile(raw: LanderFile, at = 'lander'): LanderSettings {
  const byName = new Map<string, number>();
  const checks = (raw.checks ?? []).map((entry, i): CheckSpec => {
    const spec = typeof entry === 'string' ? { command: entry } : entry;
    const keyPath = `${at}.checks[${i}]`;
    const name = spec.name ?? Array.from(spec.command.trim().replace(/\s+/g, ' ')).slice(0, DEFAULT_NAME_CHARS).join('');
    const argv = splitCommand(spec.command, { name, keyPath: typeof entry === 'string' ? keyPath : `${keyPath}.command` });
    if (argv.length === 0)
      throw new ManifestError('INVALID_VALUE', typeof entry === 'string' ? keyPath : `${keyPath}.command`, 'the command is empty');
    const first = byName.get(name);
    if (first !== undefined) {
      throw new ManifestError(
        'DUPLICATE',
        keyPath,
        `the check name '${name}' is already used by ${at}.checks[${first}]: give one of them a 'name'`,
      );
    }
    byName.set(name, i);
    const seconds = spec.timeout ?? DEFAULT_CHECK_TIMEOUT_SECONDS;
    return { name, argv, timeoutMs: Math.max(1, Math.round(seconds * 1000)), command: spec.command };
  });
  const branch = raw.branch ?? null;
  const problem = branch === null ? null : branchNameProblem(branch);
  if (problem !== null) throw new ManifestError('INVALID_VALUE', `${at}.branch`, `the branch name ${JSON.stringify(branch)} ${problem}`);
  return { checks, push: raw.push ?? null, branch };
}
