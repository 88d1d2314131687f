/**
 * The text room of src/mcp: what a person reads, the same from the CLI and over MCP. A gate
 * result as readable text (`toolResultText`, with the pieces other renderers reuse: `Row`,
 * `contentLines`, `searchedNote`, `syntaxLines`), and a thrown value as one line
 * (`describeFailure`).
 *
 * Loads no MCP code: the CLI's commands import this door on every start.
 */
export { describeFailure } from './describe-failure.js';
export { contentLines, searchedNote, syntaxLines, toolResultText, type Row } from './tool-text.js';
