/**
 * Lander settings (docs/ARCHITECTURE.md § Manifest and settings): loaded from a JSON file
 * (`--settings F`), an object (`createHost({ settings })`), or the manifest's top-level `lander:`
 * key, and the rule that picks between them.
 */
import { authorityFileText } from './authority-file-text.js';
import { defaultLanderSettings, landerFromFile } from './lander-from-file.js';
import { findSettingsShapeError, type SettingsFile } from './lander-schema.js';
import { ManifestError } from './manifest-error.js';
import type { LanderSettings, Manifest } from './types.js';

export type { LanderSettings } from './types.js';

function readSettingsFile(file: string): unknown {
  const text = authorityFileText(file, 'settings');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ManifestError('PARSE_ERROR', '', `not valid JSON: ${(e as Error).message}`, { source: file }, { cause: e });
  }
}

/**
 * Loads lander settings. Input: a JSON file path (read synchronously), an already parsed
 * object of the same form (`{ "lander": { "checks": [...], "push": "origin", "branch": "main" } }`),
 * or `undefined` for the defaults (no checks, no push, branch null = the integration
 * checkout's current branch). Result: `LanderSettings`. Throws `ManifestError` naming the file
 * (or '(settings object)') and the key path (`lander.checks[1].timeout`): `FILE_NOT_FOUND`,
 * `FILE_UNREADABLE`, `PARSE_ERROR` (not JSON), `MISSING_KEY`, `UNKNOWN_KEY`, `INVALID_VALUE`
 * (wrong type or range, a command that needs a shell, a bad remote or branch name), `DUPLICATE`
 * (two checks with one name). Limits: errors carry no line number; nothing is written.
 */
export function loadSettings(source: string | object | undefined): LanderSettings {
  if (source === undefined) return defaultLanderSettings();
  const origin = { source: typeof source === 'string' ? source : '(settings object)' };
  if (typeof source !== 'string' && (typeof source !== 'object' || source === null)) {
    throw new ManifestError(
      'INVALID_VALUE',
      '',
      `expected a settings file path or object, got ${source === null ? 'null' : typeof source}`,
      origin,
    );
  }
  const value = typeof source === 'string' ? readSettingsFile(source) : source;
  try {
    const shapeError = findSettingsShapeError(value);
    if (shapeError) throw shapeError;
    const lander = (value as SettingsFile).lander;
    return lander === undefined ? defaultLanderSettings() : landerFromFile(lander);
  } catch (e) {
    throw e instanceof ManifestError ? e.at(origin) : e;
  }
}

/**
 * The lander settings a host uses. Inputs: the explicit settings (`--settings F` or
 * `createHost({ settings })`, as `loadSettings` takes them; undefined when none were given)
 * and the loaded manifest. Explicit settings win over the manifest's `lander:` key, whole:
 * the two are never merged key by key. With neither, the defaults. Throws what `loadSettings`
 * throws.
 */
export function chooseLanderSettings(explicit: string | object | undefined, manifest: Manifest): LanderSettings {
  if (explicit !== undefined) return loadSettings(explicit);
  return manifest.lander ?? defaultLanderSettings();
}
