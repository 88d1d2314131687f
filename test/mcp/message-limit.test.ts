/**
 * The message limits of both transports are derived from the tool schemas: the largest
 * schema-valid request of every served tool, JSON-escaped in the worst case, fits under the byte
 * cap, and its structural tokens under the token cap; neither cap is larger than that plus the
 * envelope allowance (no hand-picked number above or below the schemas). A schema that leaves a
 * field unbounded is refused at load, naming the tool. The token meter counts the same however
 * a text is encoded or split.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FILE_TOOLS } from '../../tools/file-tools.js';
import { requestFilesTool } from '../../tools/request-files.js';
import { WRITE_MAX_CONTENT_CHARS } from '../../tools/write.js';
import {
  ENVELOPE_ALLOWANCE_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_MESSAGE_TOKENS,
  UnboundedSchemaError,
  messageLimitFor,
  messageTokenLimitFor,
} from '../../src/mcp/message-limits/message-limit.js';
import { maxJsonTokens } from '../../src/mcp/message-limits/json-token-bound.js';
import { JsonTokenMeter } from '../../src/mcp/message-limits/json-token-meter.js';
import { maxJsonBytes, maxJsonStringBytes } from '../../src/mcp/message-limits/json-size-bound.js';

type Schema = Record<string, any>;

/** The largest value a schema accepts, strings filled with a character JSON escapes to 6 bytes. */
function largestValue(s: Schema): unknown {
  if ('const' in s) return s.const;
  if (s.anyOf) return (s.anyOf as Schema[]).map(largestValue).sort((a, b) => JSON.stringify(b).length - JSON.stringify(a).length)[0];
  switch (s.type) {
    case 'string':
      if (typeof s.maxLength === 'number') return '\u0001'.repeat(s.maxLength);
      return 'f'.repeat(Number(/\{(\d+)\}/.exec(s.pattern)![1])); // the sha256 pattern: hex digits
    case 'integer':
      return typeof s.maximum === 'number' ? s.maximum : Number.MAX_SAFE_INTEGER;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: s.maxItems }, () => largestValue(s.items));
    case 'object':
      return Object.fromEntries(Object.entries(s.properties as Record<string, Schema>).map(([k, v]) => [k, largestValue(v)]));
    default:
      throw new Error(`no largest value for ${JSON.stringify(s)}`);
  }
}

const tools = [...FILE_TOOLS, requestFilesTool];
const requestText = (name: string, args: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id: 'a-long-request-id-0123456789', method: 'tools/call', params: { name, arguments: args } });
const requestBytes = (name: string, args: unknown) => Buffer.byteLength(requestText(name, args));

/** What Python's json.dumps writes by default: every non-ASCII unit escaped. */
const asciiOnly = (s: string) => s.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Tokens of a text as the meter counts them, fed in pieces cut at `splits`. */
function meter(text: string, splits: number[] = []): number {
  const bytes = Buffer.from(text);
  const m = new JsonTokenMeter();
  let at = 0;
  for (const cut of [...splits].sort((a, b) => a - b)) {
    m.push(bytes.subarray(at, cut));
    at = Math.max(at, cut);
  }
  m.push(bytes.subarray(at));
  return m.tokens;
}

/** The reference count: one per container, key, string and separator. */
function tokensOf(value: unknown): number {
  if (typeof value === 'string') return 1;
  if (Array.isArray(value)) return 1 + value.reduce((n: number, v) => n + tokensOf(v), 0) + Math.max(0, value.length - 1);
  if (value !== null && typeof value === 'object') {
    const entries = Object.values(value);
    return 1 + entries.reduce((n: number, v) => n + 2 + tokensOf(v), 0) + Math.max(0, entries.length - 1);
  }
  return 0;
}

describe('MAX_MESSAGE_BYTES', () => {
  const sizes = tools.map((t) => {
    const args = largestValue(t.descriptor.inputSchema);
    expect(t.validate(args).ok, `${t.name}: the largest value must be schema-valid`).toBe(true);
    return { name: t.name, bytes: requestBytes(t.name, args) };
  });

  it.each(sizes)('admits the largest schema-valid $name request, fully escaped', ({ bytes }) => {
    expect(bytes).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  });

  it('is no larger than the largest such request plus the envelope allowance', () => {
    const largest = Math.max(...sizes.map((s) => s.bytes));
    // Beyond the allowance only what an encoder may escape but JSON.stringify does not: the keys
    // (edit's list of 50 steps repeats three of them) and the hex digits of expectedSha256
    // (under 8 KiB).
    expect(MAX_MESSAGE_BYTES - largest).toBeLessThanOrEqual(ENVELOPE_ALLOWANCE_BYTES + 8 * 1024);
    expect(sizes.find((s) => s.bytes === largest)?.name).toBe('edit'); // two 10 Mi-character strings and the edits list
  });

  it("admits write's 10 Mi-character content however it is escaped (the issue's 11 MiB line and beyond)", () => {
    expect(MAX_MESSAGE_BYTES).toBeGreaterThan(maxJsonStringBytes(WRITE_MAX_CONTENT_CHARS));
    expect(MAX_MESSAGE_BYTES).toBeGreaterThan(11 * 1024 * 1024);
  });

  it('refuses a tool whose schema leaves a field unbounded, naming the tool', () => {
    const loose = { name: 'loose', inputSchema: { type: 'object', additionalProperties: false, properties: { text: { type: 'string' } } } };
    expect(() => messageLimitFor([loose])).toThrow(UnboundedSchemaError);
    expect(() => messageLimitFor([loose])).toThrow(/tool loose/);
    const open = { name: 'open', inputSchema: { type: 'object', properties: {} } };
    expect(() => messageLimitFor([open])).toThrow(/tool open/);
  });
});

describe('MAX_MESSAGE_TOKENS', () => {
  const counts = tools.map((t) => ({ name: t.name, tokens: meter(requestText(t.name, largestValue(t.descriptor.inputSchema))) }));

  it.each(counts)('admits the largest schema-valid $name request', ({ tokens }) => {
    expect(tokens).toBeLessThanOrEqual(MAX_MESSAGE_TOKENS);
  });

  it('is no larger than the largest such request plus the envelope allowance', () => {
    const largest = Math.max(...counts.map((c) => c.tokens));
    expect(MAX_MESSAGE_TOKENS - largest).toBeLessThanOrEqual(ENVELOPE_ALLOWANCE_BYTES);
    expect(MAX_MESSAGE_TOKENS).toBeLessThan(100_000); // parsing that many values takes milliseconds, not minutes
  });

  it('refuses a tool whose schema leaves the structure unbounded, naming the tool', () => {
    const list = {
      name: 'list-of',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { items: { type: 'array', items: { type: 'string', maxLength: 4 } } },
      },
    };
    expect(() => messageTokenLimitFor([list])).toThrow(/tool list-of/);
  });
});

describe('JsonTokenMeter and maxJsonTokens', () => {
  it('count the same tokens, whatever the encoding and wherever the bytes are split', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.array(fc.nat({ max: 400 }), { maxLength: 8 }), (value, splits) => {
        const text = JSON.stringify(value);
        const expected = tokensOf(value);
        expect(meter(text, splits)).toBe(expected);
        expect(meter(asciiOnly(text), splits)).toBe(expected);
        expect(meter(JSON.stringify(value, null, 2), splits)).toBe(expected);
      }),
    );
  });

  it('strings full of escaped quotes, backslashes and brackets count once', () => {
    const text = JSON.stringify({ a: '"\\{[,:]}"'.repeat(1000), b: ['\\', '"'] });
    expect(meter(text)).toBe(1 + 2 + 1 + 1 + 2 + (1 + 1 + 1 + 1));
    expect(
      meter(
        text,
        Array.from({ length: 200 }, (_, i) => i * 37),
      ),
    ).toBe(meter(text));
  });

  it('bound the values of a schema, and answer Infinity for what they cannot bound', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'array', maxItems: 3, items: { type: 'string' } }, b: { type: 'integer' } },
    };
    expect(maxJsonTokens(schema)).toBe(meter(JSON.stringify({ a: ['x', 'y', 'z'], b: 1 })));
    expect(maxJsonTokens({ type: 'array', items: { type: 'boolean' } })).toBe(Infinity);
    expect(maxJsonTokens({ type: 'object', properties: {} })).toBe(Infinity);
  });
});

describe('maxJsonBytes', () => {
  it('bounds every encoding of every string up to maxLength (JSON.stringify and ASCII-only)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme-composite', maxLength: 10 }), (a, b) => {
        for (const s of [a, b, a + b]) {
          const bound = maxJsonBytes({ type: 'string', maxLength: s.length });
          expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThanOrEqual(bound);
          expect(Buffer.byteLength(asciiOnly(JSON.stringify(s)))).toBeLessThanOrEqual(bound);
        }
      }),
    );
  });

  it('reads a fixed-length pattern, and answers Infinity for what it cannot bound', () => {
    expect(maxJsonBytes({ type: 'string', pattern: '^[0-9a-fA-F]{64}$' })).toBe(maxJsonStringBytes(64));
    expect(maxJsonBytes({ type: 'string', pattern: '^[a-z]+$' })).toBe(Infinity);
    expect(maxJsonBytes({ type: 'array', items: { type: 'boolean' } })).toBe(Infinity);
    expect(maxJsonBytes({ type: 'object', properties: {} })).toBe(Infinity);
    expect(maxJsonBytes({ type: 'array', maxItems: 3, items: { type: 'null' } })).toBe('[null,null,null]'.length);
    expect(maxJsonBytes({ anyOf: [{ type: 'null' }, { type: 'boolean' }] })).toBe(5);
  });
});
