/**
 * The guard room of src/mcp: the pure checks every HTTP request to `gatefs serve --http`
 * passes, on the MCP endpoint and on the status page alike: the Host and Origin headers
 * (DNS rebinding, a page of another site: 403) and the bearer token (401, with a sentence
 * saying how to send it: `tokenHowTo`). Takes headers, returns a verdict.
 */
export { checkAuthorization, checkOrigin, tokenHowTo, type GuardPolicy } from './request-guard.js';
