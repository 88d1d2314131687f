/**
 * Finding the tools from the command line, through the built binary on a real repository:
 * `gatefs tools [ID]` lists the tools of the role (the default one, a conversation's, `--all`,
 * the claude-code profile's names) with each argument's type, whether it is required and its
 * description, as text and `--json`, creating nothing; `gatefs call --help` lists every tool,
 * `gatefs call ID TOOL --help` one tool's arguments; a call with a mistyped field answers
 * INVALID_INPUT naming the field meant, the fields and where to read them.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatefs, git, sampleRepo } from './run-gatefs.js';
import { GATE_TOOLS } from '../../src/host/composition/gate-tools.js';

let repo: ReturnType<typeof sampleRepo>;
const run = (args: string[]) => gatefs(args, { cwd: repo.dir });
const stateDir = () => join(repo.dir, '.gatefs');

async function ok(args: string[]) {
  const r = await run(args);
  expect(r.code, `gatefs ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

/** The sample repository without its gatefs.yaml: every conversation gets the default role. */
function withoutManifest(): void {
  rmSync(join(repo.dir, 'gatefs.yaml'));
  git(repo.dir, 'commit', '--quiet', '-am', 'no manifest');
}

beforeEach(() => {
  repo = sampleRepo();
});
afterEach(() => repo?.cleanup());

describe('gatefs tools', () => {
  it("lists the default role's tools with their arguments, and creates nothing", async () => {
    withoutManifest();
    const r = await ok(['tools']);
    expect(r.stdout.split('\n')[0]).toBe('role "agent" of the default manifest (no gatefs.yaml), 12 tool(s):');
    expect(r.stdout).toMatch(/^ {2}offset +integer ≥ 1 +optional +First line to return, 1-based \(default 1\)\.$/m);
    expect(r.stdout).toMatch(/^ {2}path +string +required +The file to read: /m);
    expect(r.stdout).toMatch(/^ {2}output +"files" \| "content" \| "count" +optional +files: matching file paths \(default\)/m);
    expect(r.stdout).toMatch(/^ {2}divergence +string +required +How your work differs from what was asked/m);
    expect(r.stdout).toMatch(/^ {2}edits\[\]\.oldString +string +required /m);
    expect(existsSync(stateDir())).toBe(false);

    const json = JSON.parse((await ok(['tools', '--json'])).stdout);
    expect(json.role).toBe('agent');
    expect(json.tools.map((t: { name: string }) => t.name)).toEqual([
      'read',
      'grep',
      'list',
      'edit',
      'write',
      'delete',
      'move',
      'diff',
      'commit',
      'submit',
      'messages',
      'whereami',
    ]);
    const read = json.tools.find((t: { name: string }) => t.name === 'read');
    expect(read.arguments).toEqual([
      { name: 'path', type: 'string', required: true, description: expect.stringContaining('The file to read') },
      { name: 'offset', type: 'integer ≥ 1', required: false, description: 'First line to return, 1-based (default 1).' },
      { name: 'limit', type: 'integer 1–100000', required: false, description: 'Number of lines to return (default 2000).' },
    ]);
    expect(read.inputSchema.required).toEqual(['path']);
    expect(existsSync(stateDir())).toBe(false);
  });

  it("lists a role of the manifest (--role), every tool (--all), and a conversation's role once it has a workspace", async () => {
    const names = (stdout: string) => JSON.parse(stdout).tools.map((t: { name: string }) => t.name);
    expect(names((await ok(['tools', '--json'])).stdout)).toEqual(['read', 'grep', 'list', 'edit', 'write']);
    expect(names((await ok(['tools', '--role', 'reviewer', '--json'])).stdout)).toEqual(['read', 'grep', 'list', 'request_files']);
    expect(names((await ok(['tools', '--all', '--json'])).stdout)).toEqual(GATE_TOOLS.map((t) => t.name));
    // A conversation with no workspace: the role prepare would give it.
    const fresh = await ok(['tools', 'rev']);
    expect(fresh.stdout.split('\n')[0]).toBe(
      '"rev" (no workspace yet: the role "implementer" of the manifest, which prepare would give it), 5 tool(s):',
    );
    await ok(['prepare', 'rev', '--role', 'reviewer']);
    const prepared = await ok(['tools', 'rev']);
    expect(prepared.stdout.split('\n')[0]).toBe('"rev" (its workspace\'s role "reviewer" of the manifest), 4 tool(s):');
    expect(prepared.stdout).toMatch(/^ {2}paths +array of string \(1–64 items\) +required +Exact file paths to disclose/m);
    expect(names((await ok(['tools', 'rev', '--json'])).stdout)).toEqual(['read', 'grep', 'list', 'request_files']);
    const unknown = await run(['tools', '--role', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("UNKNOWN_ROLE: roles: no role named 'nobody' (roles: implementer, reviewer)");
  });

  it("--profile claude-code shows Claude Code's names and arguments, with the conversation's workspace in the paths", async () => {
    const r = await ok(['tools', 'cc', '--profile', 'claude-code']);
    expect(r.stdout.split('\n')[0]).toContain('as the claude-code profile offers them');
    expect(r.stdout).toMatch(/^Read$/m);
    expect(r.stdout).toMatch(/^ {2}file_path +string +required +The file to read: an absolute path in this workspace \(\/worktrees\/cc\//m);
    expect(r.stdout).toMatch(/^ {2}output_mode +"content" \| "files_with_matches" \| "count" +optional/m);
    expect(r.stdout).toMatch(/^ {2}-C +integer/m);
    const json = JSON.parse((await ok(['tools', '--profile', 'claude-code', '--json'])).stdout);
    expect(json.profile).toBe('claude-code');
    expect(json.tools.map((t: { name: string }) => t.name)).toEqual(['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'LS']);
    const bad = await run(['tools', '--profile', 'cursor']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--profile must be one of gatefs, claude-code');
    expect(existsSync(stateDir())).toBe(false);
  });
});

describe('gatefs call --help', () => {
  it('lists every tool gatefs has', async () => {
    const r = await ok(['call', '--help']);
    for (const t of GATE_TOOLS) expect(r.stdout).toMatch(new RegExp(`^ {2}${t.name} +${t.annotations.title}$`, 'm'));
    expect(r.stdout).toContain('gatefs call ID TOOL --help');
  });

  it("call ID read --help prints read's arguments, as gatefs tools does, and creates nothing", async () => {
    const r = await ok(['call', 'fix', 'read', '--help']);
    expect(r.stdout.split('\n')[0]).toBe("Usage: gatefs call fix read '<json arguments>'");
    expect(r.stdout).toMatch(/^ {2}offset +integer ≥ 1 +optional +First line to return, 1-based \(default 1\)\.$/m);
    expect(r.stdout).toMatch(/^ {2}limit +integer 1–100000 +optional /m);
    const tools = await ok(['tools', '--all']);
    const readSheet = (text: string) => text.slice(text.indexOf('\nread\n') + 1, text.indexOf('\n\n', text.indexOf('\nread\n')));
    expect(readSheet(r.stdout)).toBe(readSheet(tools.stdout));
    expect(existsSync(stateDir())).toBe(false);
    const typo = await run(['call', 'fix', 'reed', '--help']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('there is no tool named "reed"; did you mean read?; the tools are read, grep, list');
  });
});

describe('a call with a mistyped field', () => {
  it('answers INVALID_INPUT naming the field meant and the fields, with where to read them', async () => {
    writeFileSync(
      join(repo.dir, 'gatefs.yaml'),
      'roles:\n  - name: agent\n    tools: [read, grep, submit]\n    workspace: { backend: worktree }\n',
    );
    git(repo.dir, 'commit', '--quiet', '-am', 'manifest');
    await ok(['prepare', 'fix']);
    const r = await run(['call', 'fix', 'grep', '{"pattern":"greeting","outputMode":"content"}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'INVALID_INPUT: outputMode: unknown field (not in the schema); did you mean output? grep takes: pattern (required)',
    );
    expect(r.stderr).toContain('(its arguments: gatefs call fix grep --help)');
    const json = JSON.parse((await run(['call', 'fix', 'grep', '{"pattern":"greeting","outputMode":"content"}', '--json'])).stdout);
    expect(json.error).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'outputMode', suggestion: 'output' } });
    expect(json.error.details.fields).toContain('output');
    const missing = await run(['call', 'fix', 'read', '{"file":"README.md"}']);
    expect(missing.stderr).toContain(
      'file: unknown field (not in the schema); did you mean path? read takes: path (required), offset, limit.',
    );
    const submit = await run(['call', 'fix', 'submit', '{}']);
    expect(submit.code).toBe(1);
    expect(submit.stderr).toContain(
      'divergence: required: How your work differs from what was asked; write "None" when it matches the request',
    );
  });
});
