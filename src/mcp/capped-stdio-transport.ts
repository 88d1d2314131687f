/**
 * `CappedStdioTransport`: the MCP stdio transport of `gatefs serve`, in place of the SDK's
 * `StdioServerTransport`. The SDK's reader keeps at most 10 MiB of unread input (its
 * `ReadBuffer`); a longer line makes it throw, and its transport then closes itself, so the
 * server ended with exit code 0, no reply and no log line on a `write` the schema allows.
 * This one frames lines with `CappedLineReader` at `MAX_MESSAGE_BYTES` and `MAX_MESSAGE_TOKENS`
 * (derived from the tool schemas) and answers every message it cannot take with a JSON-RPC
 * error, then keeps serving:
 *
 * - a line over either limit: `-32600`, the request's id when it can be found in the line, else
 *   null (a line past the token limit is never parsed);
 * - a line that is not UTF-8: `-32700`, its id when it can be found (`decodeStrictUtf8`);
 * - a line that is not JSON: `-32700`, id null;
 * - JSON that is not a JSON-RPC message: `-32600`, its id when it has a valid one, else null.
 *
 * It closes (and calls `onclose`) when stdin ends or closes, or when stdout fails (the client
 * went away: `EPIPE`).
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CappedLineReader } from './capped-line-reader.js';
import { JsonIdScanner, type ScannedId } from './json-id-scanner.js';
import { decodeStrictUtf8, NOT_UTF8_MESSAGE } from './strict-utf8.js';
import { MAX_MESSAGE_BYTES, MAX_MESSAGE_TOKENS, OVERSIZED_MESSAGE_CODE, tooComplexMessage, tooLargeMessage } from './message-limit.js';

/** Options of `CappedStdioTransport`. */
export interface CappedStdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** The per-message cap in bytes (default `MAX_MESSAGE_BYTES`). */
  maxMessageBytes?: number;
  /** The per-message cap in structural JSON tokens (default `MAX_MESSAGE_TOKENS`). */
  maxMessageTokens?: number;
  /** One-line notes for the operator (the CLI passes stderr). */
  log?: (line: string) => void;
}

/** JSON-RPC error codes this transport answers with. */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;

/** Newline-delimited JSON-RPC over stdin/stdout with a message cap (see the module comment). */
export class CappedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly maxBytes: number;
  private readonly maxTokens: number;
  private readonly log: (line: string) => void;
  private readonly reader: CappedLineReader;
  private started = false;
  private closed = false;

  constructor(options: CappedStdioOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.maxTokens = options.maxMessageTokens ?? MAX_MESSAGE_TOKENS;
    this.log = options.log ?? (() => undefined);
    this.reader = new CappedLineReader(
      { maxBytes: this.maxBytes, maxTokens: this.maxTokens },
      {
        line: (bytes) => this.receive(bytes),
        oversized: (bytes, id) => this.refuseOversized(bytes, id),
        tooComplex: (id) => this.refuseTooComplex(id),
      },
    );
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  private readonly onEnd = () => void this.close();

  private readonly onStreamError = (error: Error) => {
    this.onerror?.(error);
    void this.close();
  };

  /** Starts reading stdin. Throws when called twice. */
  async start(): Promise<void> {
    if (this.started) throw new Error('CappedStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdin.on('error', this.onStreamError);
    this.stdout.on('error', this.onStreamError);
  }

  /** Stops reading stdin without closing: messages already read are still answered. */
  stopReading(): void {
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    this.stdin.pause();
  }

  /** Writes one message as a line; resolves once stdout took it (after `drain` if needed). */
  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  /** Stops reading, then calls `onclose` once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopReading();
    this.stdin.off('error', this.onStreamError);
    this.onclose?.();
  }

  private write(message: unknown): Promise<void> {
    if (this.closed || this.stdout.destroyed || this.stdout.writableEnded) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  private answerError(id: ScannedId, code: number, message: string, data?: Record<string, unknown>): void {
    void this.write({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });
  }

  private receive(bytes: Buffer): void {
    const text = decodeStrictUtf8(bytes);
    if (text === null) {
      const scanner = new JsonIdScanner();
      scanner.push(bytes);
      this.log(`stdio: answered a line of ${bytes.length} bytes that is not UTF-8 with a parse error`);
      return this.answerError(scanner.id, JSONRPC_PARSE_ERROR, NOT_UTF8_MESSAGE);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.log(`stdio: answered a line of ${bytes.length} bytes that is not JSON with a parse error`);
      return this.answerError(null, JSONRPC_PARSE_ERROR, 'parse error: the line is not JSON');
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const raw = (value as { id?: unknown } | null)?.id;
      const id = typeof raw === 'string' || (typeof raw === 'number' && Number.isInteger(raw)) ? raw : null;
      return this.answerError(id, JSONRPC_INVALID_REQUEST, 'invalid request: not a JSON-RPC 2.0 message');
    }
    this.onmessage?.(parsed.data);
  }

  private refuseOversized(bytes: number, id: ScannedId): void {
    this.log(`stdio: refused a message of ${bytes} bytes (the limit is ${this.maxBytes}); answered id ${JSON.stringify(id)} with an error and kept serving`);
    this.answerError(id, OVERSIZED_MESSAGE_CODE, tooLargeMessage(bytes, this.maxBytes), { bytes, limit: this.maxBytes });
  }

  private refuseTooComplex(id: ScannedId): void {
    this.log(`stdio: refused a message of more than ${this.maxTokens} JSON tokens; answered id ${JSON.stringify(id)} with an error and kept serving`);
    this.answerError(id, OVERSIZED_MESSAGE_CODE, tooComplexMessage(this.maxTokens), { limit: this.maxTokens });
  }
}
