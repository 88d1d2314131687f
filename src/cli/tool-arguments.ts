/**
 * Tools and their arguments as `gatefs tools` and `gatefs call ID TOOL --help` print them, read
 * from each tool's input schema (`argumentRows`): its name and description, then one row an
 * argument (name, type, required or optional, default, description). `--json` gets the same as
 * data (`toolSheets`). Reads plain descriptors, so a profile's tools (Claude Code's names and
 * arguments) print the same way as the gate's.
 */
import { argumentRows, type ArgumentRow, type JsonSchema } from '../../tools/schema-words.js';

/** A tool as a client is offered it: the gate's `ToolDescriptor` or an MCP `Tool`. */
export interface OfferedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: JsonSchema;
}

/** What `--json` prints for one tool: its name, description, arguments and input schema. */
export interface ToolSheet {
  readonly name: string;
  readonly description: string;
  readonly arguments: readonly ArgumentRow[];
  readonly inputSchema: JsonSchema;
}

/** The sheets of `tools`, in order. */
export function toolSheets(tools: readonly OfferedTool[]): ToolSheet[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description ?? '',
    arguments: argumentRows(t.inputSchema),
    inputSchema: t.inputSchema,
  }));
}

/**
 * One tool as text: `name`, its description indented below, then its arguments aligned in
 * columns (`  offset  integer ≥ 1  optional  First line to return, 1-based (default 1).`).
 */
export function toolText(tool: OfferedTool): string {
  const rows = argumentRows(tool.inputSchema);
  const lines = [tool.name];
  if (tool.description) lines.push(...wrap(tool.description, 96).map((l) => `    ${l}`));
  if (rows.length === 0) {
    lines.push('  (no arguments)');
    return lines.join('\n');
  }
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  const typeWidth = Math.max(...rows.map((r) => r.type.length));
  for (const r of rows) {
    const needed = r.required ? 'required' : 'optional';
    const fallback = r.default === undefined ? '' : ` (default ${JSON.stringify(r.default)})`;
    lines.push(`  ${r.name.padEnd(nameWidth)}  ${r.type.padEnd(typeWidth)}  ${needed}  ${r.description ?? ''}${fallback}`.trimEnd());
  }
  return lines.join('\n');
}

/** Every tool as text, a blank line between them. */
export function toolsText(tools: readonly OfferedTool[]): string {
  return tools.map(toolText).join('\n\n');
}

/** `text` broken into lines of at most `width` characters at spaces (a longer word keeps its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (word === '') continue;
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
