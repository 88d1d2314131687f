/**
 * The message-limits room of src/mcp: the limits of one MCP message on both transports, in
 * bytes (`MAX_MESSAGE_BYTES`) and in structural JSON tokens (`MAX_MESSAGE_TOKENS`), derived
 * from the tool schemas (the gate's and the claude-code profile's), the answers to a message
 * past them, and the streaming readers that enforce them before anything is parsed: the token
 * meter, the id scanner (the id of a refused request) and the strict UTF-8 decoder.
 */
export { JsonIdScanner, type ScannedId } from './json-id-scanner.js';
export { JsonTokenMeter } from './json-token-meter.js';
export { MAX_MESSAGE_BYTES, MAX_MESSAGE_TOKENS, OVERSIZED_MESSAGE_CODE, tooComplexMessage, tooLargeMessage } from './message-limit.js';
export { decodeStrictUtf8, NOT_UTF8_MESSAGE } from './strict-utf8.js';
