/**
 * What every landing command passes to git so that nothing a repository (or the user's global
 * or system config) names gets executed: the fixed `-c` flags and environment, and the
 * per-repository overrides of the filter, diff and merge drivers its config defines.
 *
 * Why drivers are overridden by name: `.gitattributes` (tracked, so it arrives with any branch)
 * selects a driver by name, and git 2.39 has no switch that ignores attributes. A driver only
 * runs when the config defines it, so every name the config defines gets its commands emptied:
 * in git 2.39 `convert.c` an empty `clean`/`smudge`/`process` means "no filter" (the file's bytes
 * pass unchanged) and `required=false` stops the missing filter from being an error. A custom
 * merge driver gets the command `false`: git runs it, it exits 1, and the merge of that file is
 * a conflict (an empty command would exit 0 and silently keep "ours"). External diff and
 * textconv commands are emptied and every diff also passes `--no-ext-diff --no-textconv`.
 *
 * The overrides travel in `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` rather
 * than `-c`, because a driver name may contain `=` (which `-c key=value` would split at) and
 * the list could be long. Command-line config outranks every config file, includes too.
 *
 * Limits: variables already in the host's environment (`GIT_DIR`, `GIT_INDEX_FILE`,
 * `GIT_EXTERNAL_DIFF`…) are the host's and are not cleared (the host-exec port merges over
 * them); `diff.<driver>.xfuncname` regexes still run (they execute no program).
 */

/** `-c` flags placed before every subcommand except fetch and push. */
export const NEUTRAL_CONFIG_ARGS: readonly string[] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.untrackedCache', 'false'],
  ['core.splitIndex', 'false'],
  ['core.attributesFile', '/dev/null'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['merge.verifySignatures', 'false'],
  // log and show would run gpg.program to verify every signed commit they print.
  ['log.showSignature', 'false'],
  ['rerere.enabled', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['diff.external', ''],
  // A repository's submodule.recurse would make checkout and merge run git in submodules too.
  ['submodule.recurse', 'false'],
  ['protocol.ext.allow', 'never'],
].flatMap(([key, value]) => ['-c', `${key}=${value}`]);

/**
 * Environment of every command except fetch and push: no global or system config, no prompt,
 * no editor or pager, C locale (messages parsed), literal pathspecs, no system attributes, and
 * no replacement objects (`refs/replace/*` must not change what a commit looks like).
 */
export const NEUTRAL_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  LC_ALL: 'C',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  GIT_PAGER: 'cat',
  GIT_LITERAL_PATHSPECS: '1',
  GIT_ATTR_NOSYSTEM: '1',
  GIT_NO_REPLACE_OBJECTS: '1',
};

/**
 * `-c` flags of fetch and push: the user's global config stays (credentials, ssh), but the
 * repository's hooks (pre-push, reference-transaction), fsmonitor, automatic gc/maintenance
 * and the `ext::` transport (a URL that is a shell command, also when `url.*.insteadOf`
 * rewrites to one) are off; fetch and push also pass `--upload-pack`/`--receive-pack` with
 * git's defaults, so `remote.<name>.uploadpack` and `receivepack` (run through a shell for a
 * local remote) are not used. The transport programs git would take from the repository's own
 * config are refused before the command runs (`TRANSPORT_PROGRAM_ARGS`).
 */
export const NETWORK_CONFIG_ARGS: readonly string[] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['protocol.ext.allow', 'never'],
].flatMap(([key, value]) => ['-c', `${key}=${value}`]);

/** Environment of fetch and push: no prompt (a missing credential fails), C locale. */
export const NETWORK_ENV: Readonly<Record<string, string>> = { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };

/**
 * The `git config` arguments that list, with their scope, the settings that make fetch or push
 * start a program: `core.sshCommand`, `core.gitProxy`, `core.askPass`, `credential.helper` and
 * `credential.<url>.helper`, `remote.<name>.vcs` (a remote helper, `git-remote-<vcs>`, whose
 * name may hold a path). Output: `scope\0name\0` pairs. Run with `NEUTRAL_ENV`, so only the
 * repository's own files (`local`, `worktree`, with what they include) and the host's
 * command-line config (`command`) can answer.
 */
export const TRANSPORT_PROGRAM_ARGS: readonly string[] = [
  'config',
  '-z',
  '--show-scope',
  '--name-only',
  '--get-regexp',
  '^(core\\.(sshcommand|gitproxy|askpass)|credential\\.(.*\\.)?helper|remote\\..*\\.vcs)$',
];

/**
 * The names in `listing` (the output of `TRANSPORT_PROGRAM_ARGS`) that the repository's own
 * config files set (scope `local` or `worktree`, includes counted where they are included),
 * sorted and without repeats. The operator's settings (global, system, the environment) are
 * never in it.
 */
export function repositoryTransportPrograms(listing: string): string[] {
  const parts = listing.split('\0');
  const names = new Set<string>();
  for (let i = 0; i + 1 < parts.length; i += 2) if (parts[i] === 'local' || parts[i] === 'worktree') names.add(parts[i + 1]);
  return [...names].sort();
}

/**
 * The `git config` arguments that list every filter, diff and merge setting (names only,
 * NUL-terminated). Run with `NEUTRAL_ENV`; reading config runs nothing. Exit 1 means none.
 */
export const DRIVER_LIST_ARGS: readonly string[] = ['config', '-z', '--name-only', '--get-regexp', '^(filter|diff|merge)\\.'];

const OVERRIDES: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  filter: [
    ['clean', ''],
    ['smudge', ''],
    ['process', ''],
    ['required', 'false'],
  ],
  diff: [
    ['command', ''],
    ['textconv', ''],
  ],
  merge: [['driver', 'false']],
};

/**
 * The environment that overrides every driver named in `listing` (the output of
 * `DRIVER_LIST_ARGS`): `GIT_CONFIG_COUNT` and its key/value pairs, `GIT_CONFIG_COUNT=0` when
 * there are none (which also drops config the host's environment carried). Two-level keys
 * (`diff.renames`, `merge.ff`) name no driver and are skipped. Names keep their case: a
 * subsection is case-sensitive.
 */
export function driverOverrideEnv(listing: string): Record<string, string> {
  const drivers = new Set<string>();
  for (const name of listing.split('\0')) {
    const first = name.indexOf('.');
    const last = name.lastIndexOf('.');
    if (first < 0 || last === first) continue;
    const section = name.slice(0, first).toLowerCase();
    if (section in OVERRIDES) drivers.add(`${section}.${name.slice(first + 1, last)}`);
  }
  const env: Record<string, string> = {};
  let count = 0;
  for (const driver of [...drivers].sort()) {
    const section = driver.slice(0, driver.indexOf('.'));
    for (const [key, value] of OVERRIDES[section]) {
      env[`GIT_CONFIG_KEY_${count}`] = `${driver}.${key}`;
      env[`GIT_CONFIG_VALUE_${count}`] = value;
      count++;
    }
  }
  env.GIT_CONFIG_COUNT = String(count);
  return env;
}
