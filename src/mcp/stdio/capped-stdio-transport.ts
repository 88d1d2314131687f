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
 * Flow control: it hands on at most `MAX_REQUESTS_IN_PROGRESS` requests whose answers have not
 * been written, and none while stdout's buffer is full; meanwhile it stops reading stdin, so a
 * client that does not read the answers holds the server back as a pipe would, instead of
 * making it buffer answers without end. Lines read but not yet handed on wait in a queue of at
 * most one read's worth.
 *
 * End of input: when stdin ends it first hands on the lines already read, then calls
 * `onInputEnd("stdin closed")` and stays open so the answers of the calls in progress can still
 * be written (`answered()` resolves once they are); the owner closes it. When stdout fails (the
 * client went away: `EPIPE`) it calls `onInputEnd` with that reason and closes at once.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CappedLineReader } from './capped-line-reader.js';
import {
  decodeStrictUtf8,
  JsonIdScanner,
  MAX_MESSAGE_BYTES,
  MAX_MESSAGE_TOKENS,
  NOT_UTF8_MESSAGE,
  OVERSIZED_MESSAGE_CODE,
  tooComplexMessage,
  tooLargeMessage,
  type ScannedId,
} from '../message-limits/index.js';
import { foreignCodeOf } from '../../../vfs/index.js';
import { stableStringify } from '../../state/index.js';
import type { EarlyAnswer } from '../initialize/index.js';

/** Options of `CappedStdioTransport`. */
interface CappedStdioOptions {
  /** Where the client's messages come from: the process's stdin (or the early reader's hand-over of it). */
  stdin: Readable;
  /** Where the answers go: the process's stdout; nothing else may write to it. */
  stdout: Writable;
  /** The per-message cap in bytes (default `MAX_MESSAGE_BYTES`). */
  maxMessageBytes?: number;
  /** The per-message cap in structural JSON tokens (default `MAX_MESSAGE_TOKENS`). */
  maxMessageTokens?: number;
  /** One-line notes for the operator (the CLI passes stderr). */
  log?: (line: string) => void;
  /**
   * An initialize already answered before this transport started (`answerInitializeEarly`):
   * the SDK's own answer to that id is not written again (a different one is logged).
   */
  answeredEarly?: EarlyAnswer | null;
}

/**
 * Requests handed on whose answers are not written yet, at most (more wait in the pipe): bounds
 * the calls one client runs at once and the answers buffered when it does not read them.
 */
const MAX_REQUESTS_IN_PROGRESS = 32;

/** JSON-RPC error codes this transport answers with. */
const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_INVALID_REQUEST = -32600;

/** Newline-delimited JSON-RPC over stdin/stdout with message limits and flow control (see the module comment). */
export class CappedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once, with the reason, when no more messages will come (see the module comment). */
  onInputEnd?: (reason: string) => void;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly maxBytes: number;
  private readonly maxTokens: number;
  private readonly log: (line: string) => void;
  private readonly reader: CappedLineReader;
  /** Complete lines read but not handed on yet (stdin is paused while any wait). */
  private readonly waiting: Buffer[] = [];
  /** Ids of the requests handed on whose answers are not written yet. */
  private readonly inProgress = new Set<string | number>();
  private answeredWaiters: (() => void)[] = [];
  private drained: Promise<void> | null = null;
  private started = false;
  private reading = false;
  private paused = false;
  private inputEnd: string | null = null;
  private inputEndNotified = false;
  private broken = false;
  private closed = false;
  private answeredEarly: EarlyAnswer | null;

  constructor(options: CappedStdioOptions) {
    this.stdin = options.stdin;
    this.stdout = options.stdout;
    this.maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.maxTokens = options.maxMessageTokens ?? MAX_MESSAGE_TOKENS;
    this.log = options.log ?? (() => undefined);
    this.answeredEarly = options.answeredEarly ?? null;
    this.reader = new CappedLineReader(
      { maxBytes: this.maxBytes, maxTokens: this.maxTokens },
      {
        line: (bytes) => {
          this.waiting.push(bytes);
          this.pump();
        },
        oversized: (bytes, id) => this.refuseOversized(bytes, id),
        tooComplex: (id) => this.refuseTooComplex(id),
      },
    );
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  private readonly onEnd = () => {
    if (this.inputEnd !== null) return;
    if (this.reader.pending > 0)
      this.log(`stdio: stdin ended in the middle of a message (${this.reader.pending} bytes without a newline); it was not run`);
    this.inputEnd = 'stdin closed';
    this.stopListening();
    this.pump();
  };

  private readonly onStreamError = (error: Error) => {
    this.onerror?.(error);
    if (this.broken) return;
    this.broken = true;
    const code = foreignCodeOf(error);
    this.endInput(`stdout failed${code ? ` (${code})` : ''}: the client stopped reading`);
    this.notifyAnswered();
    void this.close();
  };

  /** Starts reading stdin. Throws when called twice. */
  async start(): Promise<void> {
    if (this.started) throw new Error('CappedStdioTransport already started');
    this.started = true;
    this.reading = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdin.on('error', this.onStreamError);
    this.stdout.on('error', this.onStreamError);
  }

  /**
   * Stops reading stdin without closing: requests already handed on are still answered; lines
   * read but not handed on yet are dropped (and counted in the log).
   */
  stopReading(): void {
    this.stopListening();
    if (this.waiting.length > 0) this.log(`stdio: stopped with ${this.waiting.length} messages read but not started; they get no answer`);
    this.waiting.length = 0;
  }

  /** Resolves once every request handed on has been answered, or stdout failed. */
  answered(): Promise<void> {
    if (this.inProgress.size === 0 || this.broken) return Promise.resolve();
    return new Promise((resolve) => this.answeredWaiters.push(resolve));
  }

  /** Writes one message as a line; resolves once stdout took it (after `drain` if needed). */
  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as { id?: unknown; method?: unknown; result?: unknown };
    const early = this.answeredEarly;
    const isEarly = early !== null && m.method === undefined && m.id === early.id;
    if (isEarly) {
      this.answeredEarly = null;
      if (stableStringify(m.result ?? null) !== stableStringify(early.result))
        this.log(`stdio: the early initialize answer differs from the SDK's: ${stableStringify(m.result ?? null).slice(0, 300)}`);
    }
    const written = isEarly ? Promise.resolve() : this.write(message);
    if (m.method === undefined && (typeof m.id === 'string' || typeof m.id === 'number') && this.inProgress.delete(m.id)) this.pump();
    return written;
  }

  /** Stops reading, then calls `onclose` once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopReading();
    this.stdin.off('error', this.onStreamError);
    this.onclose?.();
  }

  private stopListening(): void {
    if (!this.reading) return;
    this.reading = false;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    this.stdin.pause();
  }

  private congested(): boolean {
    return this.inProgress.size >= MAX_REQUESTS_IN_PROGRESS || this.stdout.writableNeedDrain;
  }

  /** Hands on waiting lines while there is room; pauses or resumes stdin to match. */
  private pump(): void {
    while (this.waiting.length > 0 && !this.congested()) this.receive(this.waiting.shift()!);
    const hold = this.waiting.length > 0 || this.congested();
    if (this.reading && hold !== this.paused) {
      this.paused = hold;
      if (hold) this.stdin.pause();
      else this.stdin.resume();
    }
    if (this.inputEnd !== null && this.waiting.length === 0) this.endInput(this.inputEnd);
    if (this.inProgress.size === 0) this.notifyAnswered();
  }

  private endInput(reason: string): void {
    if (this.inputEndNotified) return;
    this.inputEndNotified = true;
    this.waiting.length = 0;
    if (this.onInputEnd) this.onInputEnd(reason);
    else void this.close();
  }

  private notifyAnswered(): void {
    const waiters = this.answeredWaiters;
    this.answeredWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private write(message: unknown): Promise<void> {
    if (this.broken || this.stdout.destroyed || this.stdout.writableEnded) return Promise.resolve();
    if (this.stdout.write(`${JSON.stringify(message)}\n`)) return Promise.resolve();
    this.drained ??= new Promise((resolve) =>
      this.stdout.once('drain', () => {
        this.drained = null;
        resolve();
        this.pump();
      }),
    );
    return this.drained;
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
    const message = parsed.data as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    if (typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number'))
      this.inProgress.add(message.id);
    if (message.method === 'notifications/cancelled') {
      // The SDK writes no answer to a cancelled request.
      const cancelled = message.params?.requestId;
      if (typeof cancelled === 'string' || typeof cancelled === 'number') this.inProgress.delete(cancelled);
    }
    this.onmessage?.(parsed.data);
  }

  private refuseOversized(bytes: number, id: ScannedId): void {
    this.log(
      `stdio: refused a message of ${bytes} bytes (the limit is ${this.maxBytes}); answered id ${JSON.stringify(id)} with an error and kept serving`,
    );
    this.answerError(id, OVERSIZED_MESSAGE_CODE, tooLargeMessage(bytes, this.maxBytes), { bytes, limit: this.maxBytes });
  }

  private refuseTooComplex(id: ScannedId): void {
    this.log(
      `stdio: refused a message of more than ${this.maxTokens} JSON tokens; answered id ${JSON.stringify(id)} with an error and kept serving`,
    );
    this.answerError(id, OVERSIZED_MESSAGE_CODE, tooComplexMessage(this.maxTokens), { limit: this.maxTokens });
  }
}
