/**
 * Turning a TypeBox schema violation into a `ManifestError` with a key path, for every schema
 * of the manifest module (`gatefs.yaml`, lander settings files).
 */
import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { ManifestError } from './manifest-error.js';

/** Turns a JSON pointer ('/roles/0/workspace/backend') into a key path ('roles[0].workspace.backend'). */
function keyPathOf(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out === '' ? key : `.${key}`;
  }
  return out;
}

function expected(schema: TSchema, fallback: string): string {
  return typeof schema.description === 'string' ? schema.description : fallback.replace(/^Expected /, '');
}

function describe(value: unknown): string {
  if (value === null) return 'null (an empty value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return String(value);
}

/**
 * For a value no variant of a union accepts: the first error of the variant that got furthest
 * into the value, when that is deeper than the union itself (a `{ command, timeout }` check
 * with a bad timeout is reported at its `timeout`, not as "not a string or a mapping").
 */
function deeperVariantError(e: ValueError): ValueError | undefined {
  let best: ValueError | undefined;
  for (const variant of e.errors) {
    const first = variant.First();
    if (first && first.path.length > (best?.path.length ?? e.path.length)) best = first;
  }
  return best;
}

function toManifestError(e: ValueError): ManifestError {
  const deeper = e.type === ValueErrorType.Union ? deeperVariantError(e) : undefined;
  if (deeper) return toManifestError(deeper);
  const keyPath = keyPathOf(e.path);
  const key = keyPath.slice(Math.max(keyPath.lastIndexOf('.'), keyPath.lastIndexOf(']')) + 1);
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return new ManifestError('MISSING_KEY', keyPath, `missing key '${key}': expected ${expected(e.schema, e.message)}`);
    case ValueErrorType.ObjectAdditionalProperties: {
      const known = Object.keys((e.schema as { properties?: object }).properties ?? {});
      return new ManifestError('UNKNOWN_KEY', keyPath, `unknown key '${key}': known keys are ${known.join(', ')}`);
    }
    default:
      return new ManifestError('INVALID_VALUE', keyPath, `expected ${expected(e.schema, e.message)}, got ${describe(e.value)}`);
  }
}

/**
 * Checks `value` with a compiled schema. Result: null when valid, otherwise a `ManifestError`
 * (`MISSING_KEY`, `UNKNOWN_KEY` or `INVALID_VALUE`) for the first violation in document order,
 * or `INVALID_VALUE` with `fallback` as detail when the checker names none. Limit: one error.
 */
export function firstShapeError<T extends TSchema>(checker: TypeCheck<T>, value: unknown, fallback: string): ManifestError | null {
  if (checker.Check(value)) return null;
  const first = checker.Errors(value).First();
  return first === undefined ? new ManifestError('INVALID_VALUE', '', fallback) : toManifestError(first);
}
