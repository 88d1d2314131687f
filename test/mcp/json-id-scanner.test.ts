/**
 * Recovering the id of a message too large to keep, and framing stdio lines with a cap: the
 * scanner finds the top-level id wherever it sits and however the bytes are split, is not
 * fooled by "id" inside strings or nested objects, and the line reader hands over every line
 * under the cap intact while reporting each longer one with its size and id.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonIdScanner } from '../../src/mcp/message-limits/json-id-scanner.js';
import { CappedLineReader } from '../../src/mcp/stdio/capped-line-reader.js';

function scan(text: string, splits: number[] = []): string | number | null {
  const bytes = Buffer.from(text);
  const scanner = new JsonIdScanner();
  let at = 0;
  for (const cut of [...splits.filter((s) => s > 0 && s < bytes.length).sort((a, b) => a - b), bytes.length]) {
    scanner.push(bytes.subarray(at, cut));
    at = cut;
  }
  return scanner.id;
}

describe('JsonIdScanner', () => {
  const body = { name: 'write', arguments: { path: 'a.txt', content: 'x'.repeat(100) } };
  const cases: [string, string, string | number | null][] = [
    ['id last, as the SDK client writes it', JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: body, id: 42 }), 42],
    ['id first', JSON.stringify({ id: 'req-7', jsonrpc: '2.0', method: 'tools/call', params: body }), 'req-7'],
    ['a decoy id nested in params', JSON.stringify({ method: 'tools/call', params: { id: 1, deeper: { id: 2 } }, id: 3 }), 3],
    ['a decoy "id": inside a string', JSON.stringify({ method: 'x', params: { content: '"id": 99, "\\"id\\": 98' }, id: 'real' }), 'real'],
    ['a string id with escapes', `{"method":"x","id":"a\\"b\\u00e9"}`, 'a"bé'],
    ['whitespace around the colon', '{ "method" : "x" , "id" :\t17 }', 17],
    ['no id (a notification)', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized', params: body }), null],
    ['an object as id', '{"id":{"x":1},"method":"x"}', null],
    ['a batch', JSON.stringify([{ id: 1, method: 'x' }]), null],
    ['not JSON at all', 'this is not JSON "id": 5', null],
    ['an id longer than any real one', `{"id":"${'z'.repeat(2000)}","method":"x"}`, null],
  ];

  it.each(cases)('%s', (_name, text, id) => {
    expect(scan(text)).toEqual(id);
  });

  it('finds the same id however the bytes are split (multi-byte characters included)', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { content: 'é€😀"\\'.repeat(20), id: 'no' }, id: 'ü-1' });
    fc.assert(fc.property(fc.array(fc.nat({ max: Buffer.byteLength(text) }), { maxLength: 12 }), (splits) => scan(text, splits) === 'ü-1'));
  });
});

describe('CappedLineReader', () => {
  function reader(max: number, maxTokens = Infinity) {
    const events: string[] = [];
    const r = new CappedLineReader(
      { maxBytes: max, maxTokens },
      {
        line: (b) => events.push(`line:${b.toString()}`),
        oversized: (bytes, id) => events.push(`oversized:${bytes}:${JSON.stringify(id)}`),
        tooComplex: (id) => events.push(`tooComplex:${JSON.stringify(id)}`),
      },
    );
    return { r, events };
  }

  it('delivers lines split across chunks, drops a trailing \\r and empty lines, holds an unfinished line', () => {
    const { r, events } = reader(100);
    for (const chunk of ['{"a":', '1}\r\n\n{"b"', ':2}\n{"c":']) r.push(Buffer.from(chunk));
    expect(events).toEqual(['line:{"a":1}', 'line:{"b":2}']);
  });

  it('reports a line over the cap with its size and id, then goes on with the next line', () => {
    const { r, events } = reader(64);
    const big = JSON.stringify({ method: 'tools/call', params: { content: 'y'.repeat(500) }, id: 9 });
    r.push(Buffer.from(big.slice(0, 40)));
    r.push(Buffer.from(big.slice(40, 300)));
    r.push(Buffer.from(`${big.slice(300)}\n{"id":10}\n`));
    expect(events).toEqual([`oversized:${big.length}:9`, 'line:{"id":10}']);
  });

  it('reports a line past the token limit with its id, never delivers it, and goes on with the next line', () => {
    const { r, events } = reader(10_000, 20);
    const complex = JSON.stringify({ method: 'tools/call', params: { _meta: { padding: Array(30).fill({}) } }, id: 'c-1' });
    r.push(Buffer.from(complex.slice(0, 50)));
    r.push(Buffer.from(`${complex.slice(50)}\n{"id":[{},{}]}\n`));
    expect(events).toEqual(['tooComplex:"c-1"', 'line:{"id":[{},{}]}']);
  });

  it('a line of exactly the cap is delivered; one byte more is not', () => {
    const { r, events } = reader(10);
    r.push(Buffer.from('0123456789\n01234567890\n'));
    expect(events).toEqual(['line:0123456789', 'oversized:11:null']);
  });
});
