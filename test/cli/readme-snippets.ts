/**
 * Test support: the client configurations the README shows, read from the README itself, so a
 * test runs exactly what a reader copies. A snippet is the first fenced block after a line
 * `<!-- snippet: NAME -->`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './run-gatefs.js';

/** The text of the fenced block named `name` in README.md; throws when there is none. */
export function readmeSnippet(name: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`<!-- snippet: ${name} -->`);
  if (at < 0) throw new Error(`README.md has no snippet named ${name}`);
  const m = /```[a-z]*\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!m) throw new Error(`the snippet ${name} in README.md has no fenced block`);
  return m[1]!;
}

/** The `gatefs` server of a JSON MCP config snippet (`{"mcpServers": {"gatefs": …}}`). */
export function readmeMcpConfig(name: string): { command: string; args: string[] } {
  const parsed = JSON.parse(readmeSnippet(name)) as { mcpServers: { gatefs: { command: string; args: string[] } } };
  return parsed.mcpServers.gatefs;
}
