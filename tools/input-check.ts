/**
 * Input validation of a tool (or of an MCP profile's tool): a TypeBox schema compiled once into a
 * validator that answers the value, or the first problem in words a model can act on, with the
 * same facts as data (`InputProblem`, the `details` of the `INVALID_INPUT` answer).
 *
 * An unknown field is named with the field it most likely meant (`closestName`: `outputMode` →
 * `output`, `file` → `path`) and the fields the tool takes; a missing required field with its
 * description and type (`submit` without `divergence` says what a divergence is); a bad value
 * with the type expected (and the closest allowed value, for a choice of words).
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { ValueError } from '@sinclair/typebox/errors';
import { closestName } from './closest-name.js';
import { fieldNames, requiredOf, typeWords, type JsonSchema } from './schema-words.js';

/** What an `INVALID_INPUT` answer carries as `details`: the problem as data. */
export interface InputProblem {
  /** `unknown_field`, `required` (a required field is missing), or `invalid` (a value of the wrong type or out of bounds). */
  readonly problem: 'unknown_field' | 'required' | 'invalid';
  /** The field at fault, dotted below the arguments (`edits.0.oldStr`); `arguments` for the whole. */
  readonly field: string;
  /** The fields the object holding it takes, in schema order. */
  readonly fields: readonly string[];
  /** Those of `fields` that are required. */
  readonly required: readonly string[];
  /** The field (for `unknown_field`) or value (for `invalid`) most likely meant, when one is close. */
  readonly suggestion?: string;
  /** The type the field takes, in words (`typeWords`), for `required` and `invalid`. */
  readonly expected?: string;
  /** Other unknown fields of the same call, when there are. */
  readonly alsoUnknown?: readonly string[];
  /** Required fields also missing, beside an unknown field. */
  readonly missing?: readonly string[];
}

/** What a compiled input validator answers: the value, or the first field at fault, a message naming it and the same as data. */
export type InputCheck<I> = { ok: true; value: I } | { ok: false; field: string; message: string; details: InputProblem };

/**
 * Compiles an input schema once (TypeBox's compiler) into a validator that answers the value or
 * the first problem, as every tool's `validate` does (also used by the MCP profiles, whose
 * schemas use another client's argument names). `name`, the tool's, is how messages introduce
 * the list of its fields (`grep takes: …`).
 */
export function compileInput<I>(schema: TObject, name?: string): (args: unknown) => InputCheck<I> {
  const check = TypeCompiler.Compile(schema);
  return (args) => validateWith<I>(check, schema, name, args);
}

/** The most errors looked at to find the unknown and missing fields of one call. */
const ERRORS_READ = 64;

function validateWith<I>(check: TypeCheck<TObject>, root: TObject, name: string | undefined, args: unknown): InputCheck<I> {
  if (check.Check(args)) return { ok: true, value: args as I };
  const errors: ValueError[] = [];
  for (const e of check.Errors(args)) {
    errors.push(e);
    if (errors.length >= ERRORS_READ) break;
  }
  const first = errors[0];
  if (!first)
    return failure('arguments', 'arguments: invalid', {
      problem: 'invalid',
      field: 'arguments',
      fields: fieldNames(root),
      required: requiredOf(root),
    });
  const unknown = errors.find((e) => e.message === 'Unexpected property');
  if (unknown) return unknownField(unknown, errors, args, name);
  return otherProblem(first, root, name);
}

/** An unknown field: the closest field it may have meant, what else is unknown or missing, the fields taken. */
function unknownField(error: ValueError, errors: readonly ValueError[], args: unknown, name: string | undefined): InputCheck<never> {
  const { segments, field, parent } = locate(error.path);
  const holder = error.schema as JsonSchema;
  const fields = fieldNames(holder);
  const required = requiredOf(holder);
  const given = segments.at(-1) ?? '';
  const sameHolder = (e: ValueError) => locate(e.path).parent === parent;
  // Names the agent wrote are echoed cut to 80 characters, at most 10 of them.
  const alsoUnknown = errors
    .filter((e) => e !== error && e.message === 'Unexpected property' && sameHolder(e))
    .slice(0, 10)
    .map((e) => shorten(locate(e.path).name));
  const missing = unique(errors.filter((e) => e.message === 'Expected required property' && sameHolder(e)).map((e) => locate(e.path).name));
  const holderValue = valueAt(args, segments.slice(0, -1));
  const suggestion = closestName(
    given,
    fields.filter((f) => !isGiven(holderValue, f)),
  );
  const words = [`${shorten(field)}: unknown field (not in the schema)`];
  if (suggestion !== undefined) words.push(`did you mean ${suggestion}?`);
  if (alsoUnknown.length > 0) words.push(`also unknown: ${alsoUnknown.join(', ')}`);
  const alsoMissing = missing.filter((m) => m !== suggestion);
  if (alsoMissing.length > 0) words.push(`missing: ${alsoMissing.join(', ')} (required)`);
  const said = words.join('; ');
  const message = `${said}${said.endsWith('?') ? '' : '.'} ${takes(owner(name, segments.slice(0, -1)), fields, required)}`;
  return failure(field, message, {
    problem: 'unknown_field',
    field,
    fields,
    required,
    ...(suggestion === undefined ? {} : { suggestion }),
    ...(alsoUnknown.length > 0 ? { alsoUnknown } : {}),
    ...(missing.length > 0 ? { missing } : {}),
  });
}

/** A missing required field (its description and type) or a value of the wrong type. */
function otherProblem(error: ValueError, root: TObject, name: string | undefined): InputCheck<never> {
  const { segments, field } = locate(error.path);
  const holder = objectAt(root, segments.slice(0, -1));
  const fields = holder ? fieldNames(holder) : [];
  const required = holder ? requiredOf(holder) : [];
  const schema = error.schema as JsonSchema;
  const expected = typeWords(schema);
  const intro = owner(name, segments.slice(0, -1));
  if (error.message === 'Expected required property') {
    const about = typeof schema.description === 'string' ? `: ${withoutStop(schema.description)}` : '';
    const message = `${shorten(field)}: required${about} (${allowedWords(schema)}). ${takes(intro, fields, required)}`;
    return failure(field, message, { problem: 'required', field, fields, required, expected });
  }
  const choices = constantsOf(schema);
  const suggestion =
    typeof error.value === 'string' && choices.length > 0 ? closestName(error.value, choices, { values: true }) : undefined;
  const hint = suggestion === undefined ? '' : `; did you mean ${JSON.stringify(suggestion)}?`;
  // Arguments that are not an object at all: say what the object holds.
  const fieldList = segments.length === 0 && fields.length > 0 ? `. ${takes(intro, fields, required)}` : '';
  const message = `${shorten(field)}: ${explain(error.message, schema)}${hint}${fieldList}`;
  return failure(field, message, {
    problem: 'invalid',
    field,
    fields,
    required,
    expected,
    ...(suggestion === undefined ? {} : { suggestion }),
  });
}

function failure(field: string, message: string, details: InputProblem): InputCheck<never> {
  return { ok: false, field: shorten(field), message, details: { ...details, field: shorten(details.field) } };
}

/** "grep takes: pattern (required), path, glob." */
function takes(intro: string, fields: readonly string[], required: readonly string[]): string {
  if (fields.length === 0) return '';
  const listed = fields.map((f) => (required.includes(f) ? `${f} (required)` : f));
  return `${intro}: ${listed.join(', ')}.`;
}

/** How a message introduces the fields: `grep takes`, `edits[0] takes`, `the fields are`. */
function owner(name: string | undefined, parentSegments: readonly string[]): string {
  if (parentSegments.length > 0) {
    const shown = parentSegments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
    return `${shown} takes`;
  }
  return name === undefined ? 'the fields are' : `${name} takes`;
}

/** A TypeBox error path (`/edits/0/oldStr`) as segments, the dotted field, its last name and its parent's path. */
function locate(path: string): { segments: string[]; field: string; name: string; parent: string } {
  const segments = path === '' ? [] : path.slice(1).split('/').map(unescapePointer);
  return {
    segments,
    field: segments.length === 0 ? 'arguments' : segments.join('.'),
    name: segments.at(-1) ?? 'arguments',
    parent: path.slice(0, Math.max(0, path.lastIndexOf('/'))),
  };
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The object schema at `segments` below `root` (through properties and array items), if there is one. */
function objectAt(root: JsonSchema, segments: readonly string[]): JsonSchema | undefined {
  let at: JsonSchema | undefined = root;
  for (const s of segments) {
    if (!at) return undefined;
    const properties = at.properties as Record<string, JsonSchema> | undefined;
    if (properties && Object.hasOwn(properties, s)) at = properties[s];
    else if (at.type === 'array' && at.items) at = at.items as JsonSchema;
    else return undefined;
  }
  return at && at.type === 'object' ? at : undefined;
}

/** The value at `segments` below the arguments (the object holding an unknown field). */
function valueAt(args: unknown, segments: readonly string[]): unknown {
  let at = args;
  for (const s of segments) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[s];
  }
  return at;
}

function isGiven(value: unknown, field: string): boolean {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, field);
}

function constantsOf(schema: JsonSchema): string[] {
  const union = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : [];
  return union.map((u) => u.const).filter((c): c is string => typeof c === 'string');
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}

/** A description without its closing full stop, to be followed by more words. */
function withoutStop(text: string): string {
  return text.replace(/\.$/, '');
}

/** The values a field allows, in words: its type, and for a string its length bounds (`string, not empty, up to 10000 characters`). */
function allowedWords(schema: JsonSchema): string {
  const words = [typeWords(schema)];
  if (schema.type === 'string') {
    if (typeof schema.minLength === 'number' && schema.minLength > 0) words.push('not empty');
    if (typeof schema.maxLength === 'number') words.push(`up to ${schema.maxLength} characters`);
  }
  return words.join(', ');
}

/** A field path cut to 80 characters (an agent can send a very long key). */
function shorten(field: string): string {
  return field.length > 80 ? `${field.slice(0, 80)}…` : field;
}

/** Turns TypeBox's message into words for a model, using the schema for unions. */
function explain(message: string, schema: TSchema | JsonSchema): string {
  if (message === 'Expected required property') return 'required';
  if (message === 'Unexpected property') return 'unknown field (not in the schema)';
  if (message === 'Expected union value' && Array.isArray(schema.anyOf)) {
    const parts = (schema.anyOf as JsonSchema[]).map(describe);
    return `expected ${parts.join(' or ')}`;
  }
  return message.charAt(0).toLowerCase() + message.slice(1);
}

function describe(s: JsonSchema): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type === 'string' && typeof s.pattern === 'string') return `a string matching ${s.pattern}`;
  return typeof s.type === 'string' ? s.type : 'a valid value';
}
