/**
 * `answerInitializeEarly`: `gatefs serve` over stdio answers the client's `initialize` before
 * the MCP SDK, the host and git have even loaded (a second or more on a busy machine), so a
 * client never waits on start-up for anything but Node itself.
 *
 * It reads stdin until the first line. When that line is a well-formed `initialize` request it
 * writes the result the SDK's `Server` would give (`initializeResult`: the same protocol
 * version negotiation, capabilities, server info and instructions) at once. Every byte read,
 * that line included, is put back in front of stdin for the real transport (`handOver`), so the SDK's server
 * sees the whole conversation and holds the client's capabilities; the transport drops the
 * SDK's own answer to that one id (`EarlyAnswer`). A first line that is anything else (not JSON,
 * another method, an initialize the SDK would refuse, more than `EARLY_LINE_LIMIT` bytes) is
 * left to the SDK, untouched, and answered in order.
 *
 * Loads nothing but node:stream: importing the SDK's types alone takes longer than the answer.
 */
import { Readable, type Writable } from 'node:stream';

/** The protocol versions the SDK's server accepts, newest first (a test checks them against the SDK's). */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;

/** A first line longer than this is left to the transport (its limits apply there). */
const EARLY_LINE_LIMIT = 1024 * 1024;

/** What the server says about itself in its initialize result. */
interface ServerIdentity {
  name: string;
  version: string;
  capabilities: Record<string, unknown>;
  instructions?: string;
}

/** The server's identity, its instructions possibly still being worked out (a check of the workspace's cause). */
interface EarlyServerIdentity extends Omit<ServerIdentity, 'instructions'> {
  instructions?: string | Promise<string>;
}

/** The result the SDK's `Server` gives an initialize asking for `requested` (see `_oninitialize`). */
export function initializeResult(requested: unknown, server: ServerIdentity): Record<string, unknown> {
  const known = (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(requested);
  return {
    protocolVersion: known ? requested : SUPPORTED_PROTOCOL_VERSIONS[0],
    capabilities: server.capabilities,
    serverInfo: { name: server.name, version: server.version },
    ...(server.instructions ? { instructions: server.instructions } : {}),
  };
}

/** The early reader's state, for the transport that takes over. */
export interface EarlyInitialize {
  /**
   * Stops reading and gives stdin back with every byte read so far put back in front of it
   * (when stdin already ended, a stream of those bytes that then ends), and the request
   * answered early (null: none). Call it right before the transport starts, and resume the
   * stream once the transport listens; from then on every line is the transport's.
   */
  handOver(): { stream: Readable; answered: EarlyAnswer | null };
  /** The client's name from the initialize request read (`clientInfo.name`), once one was read. */
  clientName(): string | undefined;
}

/** The initialize request answered early: its id and the result written. */
export interface EarlyAnswer {
  id: string | number;
  result: Record<string, unknown>;
}

/** Options of `answerInitializeEarly`. */
interface EarlyInitializeOptions {
  stdin: Readable;
  stdout: Writable;
  /**
   * Who answers. Instructions given as a promise delay the answer until they settle (a rejected
   * one answers without them); when `handOver` comes first, the request is left to the SDK.
   */
  server: EarlyServerIdentity;
  /** Called once the answer is written. */
  onAnswered?: (answer: EarlyAnswer) => void;
}

/** Starts reading `stdin` (see the file comment). */
export function answerInitializeEarly({ stdin, stdout, server, onAnswered }: EarlyInitializeOptions): EarlyInitialize {
  let watching = true;
  let handedOver = false;
  let ended = false;
  let answered: EarlyAnswer | null = null;
  let clientName: string | undefined;
  const chunks: Buffer[] = [];
  let held = 0;
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    chunks.push(bytes);
    held += bytes.length;
    // Until the transport takes over, keep at most a first line's worth: the client waits meanwhile.
    if (held > EARLY_LINE_LIMIT) stdin.pause();
    if (!watching) return;
    const head = Buffer.concat(chunks);
    const newline = head.indexOf(0x0a);
    if (newline < 0) {
      if (head.length > EARLY_LINE_LIMIT) watching = false;
      return;
    }
    watching = false;
    const request = initializeRequest(head.subarray(0, newline));
    if (request === null) return;
    clientName = request.clientName;
    const answer = (instructions: string | undefined) => {
      if (handedOver) return; // the SDK's server answers it now
      const { name, version, capabilities } = server;
      const identity = { name, version, capabilities, ...(instructions === undefined ? {} : { instructions }) };
      answered = { id: request.id, result: initializeResult(request.protocolVersion, identity) };
      stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: answered.id, result: answered.result })}\n`);
      onAnswered?.(answered);
    };
    if (typeof server.instructions === 'object') server.instructions.then(answer, () => answer(undefined));
    else answer(server.instructions);
  };
  const onEnd = () => (ended = true);
  stdin.on('data', onData);
  stdin.once('end', onEnd);
  return {
    clientName: () => clientName,
    handOver() {
      watching = false;
      handedOver = true;
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.pause();
      const read = Buffer.concat(chunks);
      chunks.length = 0;
      if (ended) return { stream: Readable.from(read.length > 0 ? [read] : []), answered };
      if (read.length > 0) stdin.unshift(read);
      return { stream: stdin, answered };
    },
  };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The id and asked version of `line` when it is a JSON-RPC initialize request the SDK would accept, else null. */
function initializeRequest(line: Buffer): { id: string | number; protocolVersion: string; clientName: string } | null {
  let message: unknown;
  try {
    message = JSON.parse(strictUtf8.decode(line));
  } catch {
    return null;
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.method !== 'initialize') return null;
  const { id, params } = message;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return null;
  if (!isObject(params) || typeof params.protocolVersion !== 'string' || !isObject(params.capabilities)) return null;
  const info = params.clientInfo;
  if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return null;
  return { id, protocolVersion: params.protocolVersion, clientName: info.name };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
