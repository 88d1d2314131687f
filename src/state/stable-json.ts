/**
 * Deterministic JSON: the same value always gives the same bytes, whatever order its keys were
 * added in. The run log and workspace `data` are stored this way so that the memory host's
 * run log is byte-identical between two runs of the same scenario.
 */

/**
 * Serializes `value` like `JSON.stringify` with object keys sorted (by UTF-16 code unit, at
 * every depth). Same conversions as JSON: `toJSON()` is honoured (Dates become ISO strings),
 * `undefined`/functions/symbols are dropped from objects and become `null` in arrays,
 * non-finite numbers become `null`. Throws `TypeError` for a bigint or a cycle.
 */
export function stableStringify(value: unknown): string {
  return write(value, new Set()) ?? 'null';
}

function write(value: unknown, stack: Set<object>): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('stableStringify: a bigint cannot be stored as JSON');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (stack.has(obj)) throw new TypeError('stableStringify: the value contains a cycle');
  stack.add(obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = `[${obj.map((v) => write(v, stack) ?? 'null').join(',')}]`;
  } else {
    const parts: string[] = [];
    for (const key of Object.keys(obj).sort()) {
      const v = write((obj as Record<string, unknown>)[key], stack);
      if (v !== undefined) parts.push(`${JSON.stringify(key)}:${v}`);
    }
    out = `{${parts.join(',')}}`;
  }
  stack.delete(obj);
  return out;
}
