/**
 * The README's Claude Code set-up, read from the README itself (`readme-snippets.ts`): the
 * `.mcp.json` with `--profile claude-code` starts a server (the built binary, the snippet's
 * arguments with a real repository) that lists Claude Code's tool names, and the
 * `.claude/settings.json` denies every Claude Code tool that reaches files or a shell and allows
 * exactly the server that snippet names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sampleRepo } from './run-gatefs.js';
import { readmeMcpConfig, readmeSnippet } from './readme-snippets.js';
import { stdioClient } from '../mcp/mcp-client.js';

/** Claude Code's built-in tools that read, write or search files or run commands (MultiEdit and LS: older versions). */
const FILE_AND_SHELL_TOOLS = ['Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Glob', 'Grep', 'LS', 'Bash'];

let repo: ReturnType<typeof sampleRepo>;
let client: Client | undefined;

beforeAll(() => {
  repo = sampleRepo();
});

afterAll(async () => {
  await client?.close();
  repo?.cleanup();
});

describe("the README's Claude Code set-up", () => {
  it('settings.json denies the built-in file and shell tools and allows the gatefs server of .mcp.json', () => {
    const settings = JSON.parse(readmeSnippet('claude-code-settings')) as { permissions: { deny: string[]; allow: string[] } };
    expect(Object.keys(settings)).toEqual(['permissions']);
    expect([...settings.permissions.deny].sort()).toEqual([...FILE_AND_SHELL_TOOLS].sort());
    const servers = Object.keys((JSON.parse(readmeSnippet('claude-code-profile')) as { mcpServers: object }).mcpServers);
    expect(settings.permissions.allow).toEqual(servers.map((name) => `mcp__${name}`));
  });

  it(".mcp.json's command line serves Claude Code's tool names", async () => {
    const { command, args } = readmeMcpConfig('claude-code-profile');
    expect(command).toBe('gatefs');
    expect(args[0]).toBe('serve');
    const real = args.slice(1).map((a) => (a === '/path/to/repo' ? repo.dir : a));
    ({ client } = await stdioClient(real, repo.dir));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).filter((n) => FILE_AND_SHELL_TOOLS.includes(n))).toEqual([
      'Read',
      'Write',
      'Edit',
      'MultiEdit',
      'Glob',
      'Grep',
      'LS',
    ]);
  });
});
