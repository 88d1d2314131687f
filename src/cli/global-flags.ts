/**
 * The flags every `gatefs` command accepts: `--repo`, `--state-dir`, `--manifest`, `--json`,
 * and `--help`. Resolved to absolute paths against the working directory.
 */
import { defaultRepoFolder } from './repo-folder-check.js';
import { existsSync } from 'node:fs';
import { resolve, join } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import type { FlagValues } from './command.js';

/** Global flags after resolution. */
export interface GlobalFlags {
  /** The repository (integration checkout); default the top of the git work tree holding the working directory, else the working directory. */
  repo: string;
  /** True when `--repo` was given (false: `repo` was found from the working directory). */
  repoGiven: boolean;
  /** The state directory, when given (the host defaults to `<repo>/.gatefs`). */
  stateDir?: string;
  /** The manifest file: `--manifest`, else `<repo>/gatefs.yaml` when it exists, else none. */
  manifest?: string;
  /** The lander settings file (`--settings`, JSON), when given; else the manifest's `lander:` key applies. */
  settings?: string;
  json: boolean;
}

/** `parseArgs` options for the global flags. */
export const GLOBAL_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  repo: { type: 'string' },
  'state-dir': { type: 'string' },
  manifest: { type: 'string' },
  settings: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/** Help rows for the global flags. */
export const GLOBAL_HELP: [string, string][] = [
  ['--repo DIR', 'the repository to work on (default: the top of the git repository holding the current folder, else the current folder)'],
  ['--state-dir DIR', 'where gatefs keeps its state (default: <repo>/.gatefs)'],
  ['--manifest FILE', 'the manifest (default: <repo>/gatefs.yaml if present, else one role "agent")'],
  [
    '--settings FILE',
    'lander settings, JSON: {"lander": {"checks": [...], "push": REMOTE, "branch": B}} (default: the lander: key of the manifest)',
  ],
  ['--json', 'print machine-readable JSON instead of tables'],
  ['-h, --help', 'show help'],
];

/** Resolves the global flags from parsed values against `cwd`. */
export function resolveGlobalFlags(values: FlagValues, cwd: string): GlobalFlags {
  const repo = typeof values.repo === 'string' ? resolve(cwd, values.repo) : defaultRepoFolder(cwd);
  const stateDir = typeof values['state-dir'] === 'string' ? resolve(cwd, values['state-dir']) : undefined;
  let manifest = typeof values.manifest === 'string' ? resolve(cwd, values.manifest) : undefined;
  if (!manifest && existsSync(join(repo, 'gatefs.yaml'))) manifest = join(repo, 'gatefs.yaml');
  const settings = typeof values.settings === 'string' ? resolve(cwd, values.settings) : undefined;
  return {
    repo,
    repoGiven: typeof values.repo === 'string',
    stateDir,
    manifest,
    ...(settings ? { settings } : {}),
    json: values.json === true,
  };
}
