/**
 * The early `initialize` answer of `gatefs serve` over stdio (`early-initialize.ts`) is the one
 * the SDK's server gives, for every protocol version a client may ask for; the reader answers
 * only a well-formed initialize on the first line, and hands every byte it read on to the
 * transport.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { answerInitializeEarly, initializeResult, SUPPORTED_PROTOCOL_VERSIONS } from '../../src/mcp/initialize/early-initialize.js';
import { SERVER_CAPABILITIES, workspaceInstructions } from '../../src/mcp/initialize/instructions.js';

const identity = (conversation?: string) => ({
  name: 'gatefs',
  version: '9.9.9',
  capabilities: { ...SERVER_CAPABILITIES },
  instructions: workspaceInstructions(conversation),
});

/** What the SDK's server answers to an initialize asking for `version`. */
async function sdkAnswer(version: string, conversation?: string): Promise<unknown> {
  const me = identity(conversation);
  const server = new Server({ name: me.name, version: me.version }, { capabilities: me.capabilities, instructions: me.instructions });
  const [client, side] = InMemoryTransport.createLinkedPair();
  await server.connect(side);
  const answer = new Promise<unknown>((resolve) => (client.onmessage = (m) => resolve((m as { result: unknown }).result)));
  await client.start();
  await client.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const result = await answer;
  await server.close();
  return result;
}

function lines(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (d) => (text += d));
  return () => text;
}

describe('the early answer', () => {
  it('knows the protocol versions the SDK knows, newest first', () => {
    expect([...SUPPORTED_PROTOCOL_VERSIONS]).toEqual([...SDK_VERSIONS]);
    expect(SUPPORTED_PROTOCOL_VERSIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
  });

  it.each([...SDK_VERSIONS, '1999-01-01'])('is what the SDK answers to a client asking for %s', async (version) => {
    expect(initializeResult(version, identity('alpha'))).toEqual(await sdkAnswer(version, 'alpha'));
    expect(initializeResult(version, identity())).toEqual(await sdkAnswer(version));
  });
});

describe('answerInitializeEarly', () => {
  const init = (
    id: unknown,
    params: unknown = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  ) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params })}\n`;

  it('answers a first-line initialize at once and hands over every byte, that line first', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const written = lines(stdout);
    const early = answerInitializeEarly({ stdin, stdout, server: identity('alpha') });
    const rest = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`;
    stdin.write(init(7) + rest.slice(0, 10));
    stdin.write(rest.slice(10));
    await new Promise((r) => setImmediate(r));
    expect(JSON.parse(written())).toEqual({ jsonrpc: '2.0', id: 7, result: initializeResult('2025-06-18', identity('alpha')) });
    const { stream, answered } = early.handOver();
    expect(answered?.id).toBe(7);
    const passed = new Promise<string>((resolve) => {
      let text = '';
      stream.on('data', (d) => {
        text += d;
        if (text.length >= init(7).length + rest.length) resolve(text);
      });
    });
    stream.resume();
    expect(await passed).toBe(init(7) + rest);
  });

  it.each([
    ['a line that is not JSON', 'hello\n'],
    ['another method first', `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}\n`],
    ['an initialize without clientInfo', init(1, { protocolVersion: '2025-06-18', capabilities: {} })],
    ['an initialize with a fractional id', init(1.5)],
    ['bytes that are not UTF-8', Buffer.concat([Buffer.from(init(1).slice(0, -3)), Buffer.from([0xff, 0x22, 0x7d, 0x0a])])],
  ])('leaves %s to the SDK: nothing is written, the bytes are handed over', async (_name, first) => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const written = lines(stdout);
    const early = answerInitializeEarly({ stdin, stdout, server: identity() });
    stdin.write(first);
    await new Promise((r) => setImmediate(r));
    expect(written()).toBe('');
    const { stream, answered } = early.handOver();
    expect(answered).toBeNull();
    const got: Buffer[] = [];
    stream.on('data', (d: Buffer) => got.push(d));
    stream.resume();
    await new Promise((r) => setImmediate(r));
    expect(Buffer.concat(got).equals(Buffer.from(first))).toBe(true);
  });

  it('stdin that ended before the hand-over: the stream holds the bytes, then ends', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const early = answerInitializeEarly({ stdin, stdout, server: identity() });
    stdin.end(init('a'));
    await new Promise((r) => setImmediate(r));
    const { stream, answered } = early.handOver();
    expect(answered?.id).toBe('a');
    let text = '';
    stream.on('data', (d) => (text += d));
    await new Promise((resolve) => stream.once('end', resolve));
    expect(text).toBe(init('a'));
  });
});
