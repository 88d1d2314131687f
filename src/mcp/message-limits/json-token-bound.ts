/**
 * `maxJsonTokens`: the most structural tokens (as `JsonTokenMeter` counts them: `{`, `[`, `,`,
 * `:` outside strings and each string's opening `"`) any JSON encoding of a value valid against a
 * JSON Schema can hold. Used with `maxJsonBytes` to derive the MCP transports' message limits
 * from the tool schemas. Whitespace and escapes add no tokens, so every encoder's output of a
 * value counts the same.
 */

type Schema = Record<string, unknown>;

/**
 * The most tokens a schema-valid value can hold: a string 1, a number, boolean or null 0, an
 * array of at most n items `1 + n·item + (n − 1)`, an object `1 + Σ(2 + value) + (k − 1)` over
 * its k properties. `Infinity` when the schema does not bound it (an array without `maxItems`, an
 * object that allows extra properties, a keyword this function does not know). Never throws.
 */
export function maxJsonTokens(schema: unknown): number {
  if (typeof schema !== 'object' || schema === null) return Infinity;
  const s = schema as Schema;
  if ('const' in s) return constTokens(s.const);
  if (Array.isArray(s.enum)) return Math.max(...s.enum.map(constTokens));
  const alternatives = (s.anyOf ?? s.oneOf) as unknown;
  if (Array.isArray(alternatives)) return Math.max(...alternatives.map(maxJsonTokens));
  if (Array.isArray(s.type)) return Math.max(...s.type.map((type) => maxJsonTokens({ ...s, type })));
  switch (s.type) {
    case 'string':
      return 1;
    case 'integer':
    case 'number':
    case 'boolean':
    case 'null':
      return 0;
    case 'array': {
      if (typeof s.maxItems !== 'number') return Infinity;
      const n = s.maxItems;
      return n === 0 ? 1 : 1 + n * maxJsonTokens(s.items) + (n - 1);
    }
    case 'object': {
      if (s.additionalProperties !== false) return Infinity;
      const values = Object.values((s.properties ?? {}) as Record<string, unknown>);
      if (values.length === 0) return 1;
      return 1 + values.reduce((sum: number, value) => sum + 2 + maxJsonTokens(value), 0) + (values.length - 1);
    }
    default:
      return Infinity;
  }
}

/** Tokens of one fixed value (a `const` or an `enum` member). */
function constTokens(value: unknown): number {
  if (typeof value === 'string') return 1;
  if (value === null || typeof value !== 'object') return 0;
  return Infinity; // object and array constants: none in the tool schemas; not worth bounding
}
