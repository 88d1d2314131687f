/**
 * A tool's input schema in words, for people and models: each argument's name, type, whether it
 * is required, its description and default (`argumentRows`), and a type in a few words
 * (`typeWords`). Reads plain JSON Schemas (an MCP `Tool`'s `inputSchema`, a `ToolDescriptor`'s)
 * as well as TypeBox schemas, which are JSON Schemas too. Used by `gatefs tools`, `gatefs call
 * ID TOOL --help` and the `INVALID_INPUT` answers (`input-check.ts`), so they all say the same.
 */

/** A JSON Schema object, read field by field. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** One argument of a tool. */
export interface ArgumentRow {
  /** The argument's name; a field of the objects in an array argument reads `edits[].oldString`. */
  readonly name: string;
  /** Its type in words (`typeWords`). */
  readonly type: string;
  readonly required: boolean;
  readonly description?: string;
  /** The schema's `default`, when it declares one (most defaults are stated in the description). */
  readonly default?: unknown;
}

/**
 * The arguments of an object schema, in schema order; the fields of an array of objects follow
 * their array as `name[].field`. A schema that is not an object has none.
 */
export function argumentRows(schema: JsonSchema, prefix = ''): ArgumentRow[] {
  const properties = propertiesOf(schema);
  const required = new Set(requiredOf(schema));
  const rows: ArgumentRow[] = [];
  for (const [name, field] of Object.entries(properties)) {
    const description = typeof field.description === 'string' ? field.description : undefined;
    rows.push({
      name: `${prefix}${name}`,
      type: typeWords(field),
      required: required.has(name),
      ...(description === undefined ? {} : { description }),
      ...(field.default === undefined ? {} : { default: field.default }),
    });
    const items = field.items as JsonSchema | undefined;
    if (field.type === 'array' && items && items.type === 'object') rows.push(...argumentRows(items, `${prefix}${name}[].`));
  }
  return rows;
}

/** The fields an object schema declares, in order (none for another schema). */
export function fieldNames(schema: JsonSchema): string[] {
  return Object.keys(propertiesOf(schema));
}

/** The fields an object schema requires. */
export function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required) ? (schema.required as unknown[]).filter((r): r is string => typeof r === 'string') : [];
}

/**
 * A type in a few words: `string`, `boolean`, `integer ≥ 1`, `integer 0–20`,
 * `"files" | "content" | "count"`, `array of string (1–64)`, `object`, `string or null`,
 * `string matching ^[0-9a-fA-F]{64}$` (a pattern only where it says more than "not blank").
 */
export function typeWords(s: JsonSchema): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  const union = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as JsonSchema[] | undefined;
  if (union) {
    const parts = union.map(typeWords);
    return union.every((u) => u.const !== undefined) ? parts.join(' | ') : parts.join(' or ');
  }
  switch (s.type) {
    case 'integer':
    case 'number':
      return `${s.type}${range(s.minimum, s.maximum)}`;
    case 'string':
      return typeof s.pattern === 'string' && !TRIVIAL_PATTERNS.has(s.pattern) ? `string matching ${s.pattern}` : 'string';
    case 'array': {
      const items = s.items as JsonSchema | undefined;
      const of = items ? ` of ${items.type === 'object' ? 'objects' : typeWords(items)}` : '';
      const bounds = range(s.minItems, s.maxItems).trim();
      return `array${of}${bounds === '' ? '' : ` (${bounds} items)`}`;
    }
    default:
      return typeof s.type === 'string' ? s.type : 'any value';
  }
}

/** Patterns that only refuse blank text or NUL: said by the description, noise in a type. */
const TRIVIAL_PATTERNS: ReadonlySet<string> = new Set(['\\S', '^[^\\u0000]*$']);

function range(min: unknown, max: unknown): string {
  const lo = typeof min === 'number' ? min : undefined;
  const hi = typeof max === 'number' ? max : undefined;
  if (lo !== undefined && hi !== undefined) return ` ${lo}–${hi}`;
  if (lo !== undefined) return ` ≥ ${lo}`;
  if (hi !== undefined) return ` ≤ ${hi}`;
  return '';
}

function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  const p = schema.properties;
  return p !== null && typeof p === 'object' ? (p as Record<string, JsonSchema>) : {};
}
