/**
 * The package version, read once from package.json (three levels above this file in the source
 * tree, four in `dist/`). Used by the CLI's `--version` and the MCP server's `serverInfo`.
 */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The `version` field of gatefs's package.json, or `0.0.0` when it cannot be read. */
export function gatefsVersion(): string {
  if (cached) return cached;
  for (const rel of ['../../../package.json', '../../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'gatefs' && pkg.version) return (cached = pkg.version);
    } catch {
      // not at this level: try the next one
    }
  }
  return (cached = '0.0.0');
}
