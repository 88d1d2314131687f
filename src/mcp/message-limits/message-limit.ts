/**
 * The limits of one MCP message, shared by both transports (the stdio line reader and the
 * HTTP body reader). They are derived from the tool input schemas, never chosen by hand:
 * - bytes: the largest `tools/call` request any tool's schema accepts, JSON-escaped in the worst
 *   case (`json-size-bound.ts`), plus a fixed allowance for the JSON-RPC envelope;
 * - tokens (`{ [ , :` and string openings, `json-token-meter.ts`): the most any tool's schema
 *   allows (`json-token-bound.ts`) plus the same allowance, one token per envelope byte. This
 *   bounds the time `JSON.parse` takes: a body of `[{},{},…]` under the byte cap would hold the
 *   server for minutes, every other conversation with it.
 * A request within both reaches the gate, which validates it; a message past either cannot be
 * schema-valid and gets a JSON-RPC error from the transport before it is parsed, and the
 * transport keeps serving.
 */
import { CodedError } from '../../../vfs/index.js';
import { FILE_TOOLS } from '../../../tools/index.js';
import { requestFilesTool } from '../../../tools/index.js';
import { plainJsonSchema } from '../../../tools/index.js';
import { CLAUDE_CODE_INPUTS } from '../profiles/index.js';
import { maxJsonBytes, maxJsonStringBytes } from './json-size-bound.js';
import { maxJsonTokens } from './json-token-bound.js';

/**
 * Room for everything around a tool's arguments: `{"jsonrpc":"2.0","id":…,"method":"tools/call",
 * "params":{"name":…,"arguments":…,"_meta":{…}}}` with every key escaped, a long string id, a
 * progress token, and whitespace. Also bounds the requests that carry no tool arguments
 * (`initialize`, `ping`, `tools/list`, notifications).
 */
export const ENVELOPE_ALLOWANCE_BYTES = 64 * 1024;

/** A tool as far as the cap is concerned: its name and input JSON Schema. */
interface SizedTool {
  name: string;
  inputSchema: unknown;
}

/** Thrown at load when a tool's input schema does not bound its JSON size (code `UNBOUNDED_SCHEMA`, `data.tool`). */
export class UnboundedSchemaError extends CodedError<'UNBOUNDED_SCHEMA', { readonly tool: string }> {
  override readonly name = 'UnboundedSchemaError';

  constructor(tool: string, message: string) {
    super('UNBOUNDED_SCHEMA', message, { tool });
  }
}

/**
 * The message cap for `tools`: the largest worst-case `arguments` among them plus the tool
 * name (escaped) and `ENVELOPE_ALLOWANCE_BYTES`. Throws `UnboundedSchemaError` naming a tool
 * whose input schema leaves a field unbounded (a string without `maxLength`, an array without
 * `maxItems`, …): give that field a bound instead of raising the cap by hand.
 */
export function messageLimitFor(tools: readonly SizedTool[]): number {
  let largest = 0;
  for (const tool of tools) {
    const args = maxJsonBytes(tool.inputSchema);
    if (!Number.isFinite(args)) {
      throw new UnboundedSchemaError(
        tool.name,
        `tool ${tool.name}: its input schema does not bound the request size (a string without maxLength, an array without maxItems, …)`,
      );
    }
    largest = Math.max(largest, args + maxJsonStringBytes(tool.name.length));
  }
  return largest + ENVELOPE_ALLOWANCE_BYTES;
}

/** Every tool a gatefs server can offer: the file tools and `request_files`, and the tools of the `claude-code` profile. */
const SERVED_TOOLS: readonly SizedTool[] = [
  ...[...FILE_TOOLS, requestFilesTool].map((t) => t.descriptor),
  ...Object.entries(CLAUDE_CODE_INPUTS).map(([name, schema]) => ({ name, inputSchema: plainJsonSchema(schema) })),
];

/**
 * The cap of one MCP message in bytes on every transport of `gatefs serve`: about 140 MiB
 * today, set by `edit` (two strings of up to 10 Mi characters each, and an `edits` list of up
 * to 50 × 2 strings of 32 Ki characters); `write` alone needs about 60 MiB (10 Mi characters).
 */
export const MAX_MESSAGE_BYTES = messageLimitFor(SERVED_TOOLS);

/**
 * The token limit for `tools`: the most tokens any tool's `arguments` can hold, plus the tool
 * name (one string) and `ENVELOPE_ALLOWANCE_BYTES` (each envelope token is at least one byte).
 * Throws `UnboundedSchemaError` like `messageLimitFor`.
 */
export function messageTokenLimitFor(tools: readonly SizedTool[]): number {
  let largest = 0;
  for (const tool of tools) {
    const args = maxJsonTokens(tool.inputSchema);
    if (!Number.isFinite(args)) {
      throw new UnboundedSchemaError(
        tool.name,
        `tool ${tool.name}: its input schema does not bound the request's structure (an array without maxItems, an object with extra properties, …)`,
      );
    }
    largest = Math.max(largest, args + 1);
  }
  return largest + ENVELOPE_ALLOWANCE_BYTES;
}

/**
 * The most structural tokens one MCP message may hold on every transport of `gatefs serve`
 * (a little over 64 Ki today: the envelope allowance and a few hundred for the tools).
 */
export const MAX_MESSAGE_TOKENS = messageTokenLimitFor(SERVED_TOOLS);

/** JSON-RPC error code of the answer to a message over either limit ("Invalid Request"), on both transports. */
export const OVERSIZED_MESSAGE_CODE = -32600;

/** The error message for a message of `bytes` over `limit`, the same on both transports. */
export function tooLargeMessage(bytes: number, limit: number): string {
  return (
    `request too large: ${bytes} bytes, over this server's limit of ${limit} bytes per message ` +
    '(the largest request the tool schemas allow, every character JSON-escaped); nothing was done'
  );
}

/** The error message for a message past the token `limit`, the same on both transports. */
export function tooComplexMessage(limit: number): string {
  return (
    `request too complex: more than ${limit} JSON tokens (brackets, commas, colons and strings), over this server's limit per message ` +
    '(the most the tool schemas allow, plus room for the envelope); nothing was done'
  );
}
