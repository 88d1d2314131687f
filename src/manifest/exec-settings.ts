/**
 * The command keys of a role and of the manifest (docs/ARCHITECTURE.md § Commands): a role's
 * `exec:` limits and `share:` folders, and the top-level `checks:` an agent may run by name.
 * Shapes are checked by schema.ts; the rules here span values (sizes, ranges, unique names).
 */
import { splitCommand } from './check-command.js';
import { ManifestError } from './manifest-error.js';
import { normalizeMountPath } from './mount-path.js';
import type { CommandCheck, ExecSettings } from './types.js';

/** The defaults of `exec:` (DESIGN.md § Commands). */
export const DEFAULT_EXEC: Readonly<ExecSettings> = Object.freeze({
  network: false,
  timeoutMs: 120_000,
  memoryBytes: 2 * 1024 ** 3,
  processes: 256,
  outputBytes: 1024 ** 2,
  env: ['PATH', 'LANG', 'TERM'],
  checkpoint: false,
});

/** The longest a command may run: 600 s. */
const MAX_TIMEOUT_SECONDS = 600;

/** The `exec:` block as written (shape checked). */
export interface ExecFile {
  network?: boolean;
  timeout?: number;
  memory?: string | number;
  processes?: number;
  output?: string | number;
  env?: string[];
  checkpoint?: boolean;
}

/** A check as written under `checks:` (shape checked). */
export interface CommandCheckFile {
  name: string;
  command?: string;
  argv?: string[];
  timeout?: number;
  paths?: boolean;
}

/**
 * A size as written: a whole number of bytes, or a number with `K`, `M`, `G` (powers of 1024,
 * an optional `i`/`B`: `512M`, `2G`, `1GiB`). Throws `ManifestError` `INVALID_VALUE` at `keyPath`.
 */
export function parseSize(raw: string | number, keyPath: string): number {
  if (typeof raw === 'number') {
    if (Number.isInteger(raw) && raw > 0) return raw;
    throw new ManifestError('INVALID_VALUE', keyPath, `${raw} is not a positive whole number of bytes`);
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMG]?)(?:i?B)?\s*$/i.exec(raw);
  if (!m)
    throw new ManifestError('INVALID_VALUE', keyPath, `'${raw}' is not a size: write bytes, or a number with K, M or G (like 512M or 2G)`);
  const power = { '': 0, K: 1, M: 2, G: 3 }[m[2]!.toUpperCase() as '' | 'K' | 'M' | 'G'];
  const bytes = Math.round(Number(m[1]) * 1024 ** power);
  if (bytes <= 0) throw new ManifestError('INVALID_VALUE', keyPath, `'${raw}' is not a positive size`);
  return bytes;
}

/** A role's `exec:` block with the defaults filled in; `at` is the role's key path. */
export function execFromFile(raw: ExecFile | undefined, at: string): ExecSettings {
  const key = `${at}.exec`;
  const timeout = raw?.timeout ?? DEFAULT_EXEC.timeoutMs / 1000;
  if (timeout > MAX_TIMEOUT_SECONDS) {
    throw new ManifestError(
      'INVALID_VALUE',
      `${key}.timeout`,
      `${timeout} s is longer than the ${MAX_TIMEOUT_SECONDS} s a command may run`,
    );
  }
  const env = raw?.env ?? [...DEFAULT_EXEC.env];
  const bad = env.findIndex((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name === 'HOME' || name === 'TMPDIR');
  if (bad >= 0) {
    throw new ManifestError(
      'INVALID_VALUE',
      `${key}.env[${bad}]`,
      `'${env[bad]}' cannot be passed through: give variable names (HOME and TMPDIR are the sandbox's own)`,
    );
  }
  return {
    network: raw?.network ?? DEFAULT_EXEC.network,
    timeoutMs: Math.max(1, Math.round(timeout * 1000)),
    memoryBytes: raw?.memory === undefined ? DEFAULT_EXEC.memoryBytes : parseSize(raw.memory, `${key}.memory`),
    processes: raw?.processes ?? DEFAULT_EXEC.processes,
    outputBytes: raw?.output === undefined ? DEFAULT_EXEC.outputBytes : parseSize(raw.output, `${key}.output`),
    env: [...new Set(env)],
    checkpoint: raw?.checkpoint ?? DEFAULT_EXEC.checkpoint,
  };
}

/**
 * A role's `share:` list: repository-relative folders (`node_modules`, `.venv`), normalized,
 * no duplicates, none inside another. Throws `ManifestError` at `<at>.share[i]`.
 */
export function shareFromFile(raw: readonly string[] | undefined, at: string): string[] {
  const out: string[] = [];
  (raw ?? []).forEach((entry, i) => {
    const key = `${at}.share[${i}]`;
    const path = normalizeMountPath(entry, key);
    if (path.startsWith('/')) {
      throw new ManifestError(
        'INVALID_VALUE',
        key,
        `'${entry}' is absolute: share names a folder of the source checkout, like node_modules`,
      );
    }
    const clash = out.find((p) => p === path || path.startsWith(`${p}/`) || p.startsWith(`${path}/`));
    if (clash) throw new ManifestError('DUPLICATE', key, `'${path}' overlaps the shared folder '${clash}'`);
    out.push(path);
  });
  return out;
}

/** The top-level `checks:` list as `CommandCheck`s (names unique; `command` split without a shell, or `argv`). */
export function checksFromFile(raw: readonly CommandCheckFile[] | undefined): CommandCheck[] {
  const seen = new Map<string, number>();
  return (raw ?? []).map((entry, i) => {
    const key = `checks[${i}]`;
    const first = seen.get(entry.name);
    if (first !== undefined)
      throw new ManifestError('DUPLICATE', `${key}.name`, `the check name '${entry.name}' is already used by checks[${first}]`);
    seen.set(entry.name, i);
    if ((entry.command === undefined) === (entry.argv === undefined)) {
      throw new ManifestError('INVALID_VALUE', key, 'a check gives exactly one of command (a string) or argv (a list)');
    }
    const argv = entry.argv ? [...entry.argv] : splitCommand(entry.command!, { name: entry.name, keyPath: `${key}.command` });
    if (argv.length === 0) throw new ManifestError('INVALID_VALUE', `${key}.${entry.argv ? 'argv' : 'command'}`, 'the command is empty');
    const timeout = entry.timeout ?? DEFAULT_EXEC.timeoutMs / 1000;
    if (timeout > MAX_TIMEOUT_SECONDS) {
      throw new ManifestError(
        'INVALID_VALUE',
        `${key}.timeout`,
        `${timeout} s is longer than the ${MAX_TIMEOUT_SECONDS} s a check may run`,
      );
    }
    return {
      name: entry.name,
      argv,
      timeoutMs: Math.max(1, Math.round(timeout * 1000)),
      paths: entry.paths ?? false,
      command: entry.command ?? argv.join(' '),
    };
  });
}
