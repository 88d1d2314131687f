/**
 * `maxJsonBytes`: the most UTF-8 bytes any JSON encoding of a value valid against a JSON Schema
 * can take, without padding whitespace. Used to derive the MCP transports' message cap from the
 * tool schemas, so the transport never refuses a request the schemas accept.
 *
 * Worst case per part: a string of n UTF-16 code units (what TypeBox's `maxLength` counts) is
 * `2 + 6n` bytes, because an encoder may escape every unit as `\uXXXX` (Python's `json.dumps`
 * does so for all non-ASCII; every encoder does so for control characters); object keys count
 * the same way. A number counts as its longest shortest-round-trip form (24 characters, e.g.
 * `-2.2250738585072014e-308`), as encoders write them.
 */

/** Longest JavaScript `String(number)` form of a finite double. */
const MAX_JSON_NUMBER_BYTES = 24;

/** Bytes of a JSON string literal of `units` UTF-16 code units, every one escaped. */
export function maxJsonStringBytes(units: number): number {
  return 2 + 6 * units;
}

type Schema = Record<string, unknown>;

/**
 * The most bytes a schema-valid value can take as JSON. `Infinity` when the schema does not
 * bound it: a string without `maxLength` (or a fixed-length pattern such as `^[0-9a-f]{64}$`),
 * an array without `maxItems`, an object that allows extra properties, or a keyword this
 * function does not know. Never throws.
 */
export function maxJsonBytes(schema: unknown): number {
  if (typeof schema !== 'object' || schema === null) return Infinity;
  const s = schema as Schema;
  if ('const' in s) return constBytes(s.const);
  if (Array.isArray(s.enum)) return Math.max(...s.enum.map(constBytes));
  const alternatives = (s.anyOf ?? s.oneOf) as unknown;
  if (Array.isArray(alternatives)) return Math.max(...alternatives.map(maxJsonBytes));
  if (Array.isArray(s.type)) return Math.max(...s.type.map((type) => maxJsonBytes({ ...s, type })));
  switch (s.type) {
    case 'string':
      return maxJsonStringBytes(maxStringUnits(s));
    case 'integer':
    case 'number':
      return MAX_JSON_NUMBER_BYTES;
    case 'boolean':
      return 5;
    case 'null':
      return 4;
    case 'array':
      return arrayBytes(s);
    case 'object':
      return objectBytes(s);
    default:
      return Infinity;
  }
}

/** Worst-case bytes of one fixed value (a `const` or an `enum` member), strings fully escaped. */
function constBytes(value: unknown): number {
  if (typeof value === 'string') return maxJsonStringBytes(value.length);
  if (value === null || typeof value !== 'object') return JSON.stringify(value)?.length ?? Infinity;
  return Infinity; // object and array constants: none in the tool schemas; not worth bounding
}

/** `maxLength`, or the length fixed by a pattern of one repeated class (`^[0-9a-f]{64}$`, `^x{1,8}$`). */
function maxStringUnits(s: Schema): number {
  if (typeof s.maxLength === 'number') return s.maxLength;
  if (typeof s.pattern === 'string') {
    const m = /^\^(?:\[[^\]\\]*\]|[A-Za-z0-9])\{(?:\d+,)?(\d+)\}\$$/.exec(s.pattern);
    if (m) return Number(m[1]);
  }
  return Infinity;
}

function arrayBytes(s: Schema): number {
  if (typeof s.maxItems !== 'number') return Infinity;
  if (s.maxItems === 0) return 2;
  return 2 + s.maxItems * maxJsonBytes(s.items) + (s.maxItems - 1);
}

function objectBytes(s: Schema): number {
  if (s.additionalProperties !== false) return Infinity;
  const properties = Object.entries((s.properties ?? {}) as Record<string, unknown>);
  if (properties.length === 0) return 2;
  let total = 2 + (properties.length - 1); // braces and commas
  for (const [key, value] of properties) total += maxJsonStringBytes(key.length) + 1 + maxJsonBytes(value);
  return total;
}
