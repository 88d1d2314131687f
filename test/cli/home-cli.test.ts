/**
 * `gatefs prepare ID --agent NAME`, `gatefs home list` and `gatefs home clean-tmp AGENT`, run in
 * this process over a real repository: the home is made for the agent named, a conversation keeps
 * its agent (exit 1 naming the agent it has), a name outside the grammar exits 1 naming the rule, `list` shows each agent's folder, `clean-tmp` empties tmp/ only, and `serve`
 * refuses `--agent` where it would prepare nothing.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatefsInProcess } from './run-gatefs.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo({ 'README.md': '# demo\n' });
});
afterEach(() => repo?.cleanup());

function cli(...args: string[]) {
  return gatefsInProcess(repo.dir, args);
}

describe('gatefs prepare --agent and gatefs home', () => {
  it("prepares for the agent named, shows its home at /home, and keeps the conversation's agent", async () => {
    const made = await cli('prepare', 'a', '--agent', 'ada');
    expect(made.code, made.stderr).toBe(0);
    const home = join(repo.dir, '.gatefs/homes/ada');
    expect(readdirSync(home).sort()).toEqual(['.gatefs', 'AGENTS.md', 'memory', 'notes', 'skills', 'tmp', 'work-items']);
    const wrote = await cli('call', 'a', 'write', '{"path":"/home/notes/n.md","content":"hi\\n"}');
    expect(wrote.code, wrote.stderr).toBe(0);
    const other = await cli('prepare', 'a', '--agent', 'bob');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("belongs to agent 'ada'");
    const bad = await cli('prepare', 'b', '--agent', '../ada');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('not a valid agent name');
    expect(existsSync(join(repo.dir, '.gatefs/homes/bob'))).toBe(false);
    expect((await cli('prepare', '--help')).stdout).toMatch(/--agent NAME\s+the agent identity/);
  });

  it('lists homes with their folders and empties one tmp/, keeping the rest', async () => {
    expect((await cli('home', 'list')).stdout).toContain('no agent has a home yet');
    await cli('prepare', 'a', '--agent', 'ada');
    await cli('prepare', 'b');
    const home = join(repo.dir, '.gatefs/homes/ada');
    mkdirSync(join(home, 'tmp/deep'));
    writeFileSync(join(home, 'tmp/deep/x'), 'x');
    writeFileSync(join(home, 'tmp/y'), 'y');
    writeFileSync(join(home, 'notes/keep.md'), 'keep');
    const listed = await cli('home', 'list', '--json');
    expect(JSON.parse(listed.stdout)).toEqual([
      { agent: 'ada', folder: home },
      { agent: 'agent', folder: join(repo.dir, '.gatefs/homes/agent') },
    ]);
    const cleaned = await cli('home', 'clean-tmp', 'ada');
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain('2 entries removed');
    expect(readdirSync(join(home, 'tmp'))).toEqual([]);
    expect(existsSync(join(home, 'notes/keep.md'))).toBe(true);
    const log = await cli('log', '--json');
    expect(log.stdout).toContain('home.tmp_cleaned');
    expect((await cli('home', 'clean-tmp')).code).toBe(2);
    expect((await cli('home', 'wipe')).code).toBe(2);
  });

  it('refuses serve --http --agent without --allow-new, and a bad --agent', async () => {
    const http = await cli('serve', '--http', '127.0.0.1:0', '--agent', 'ada');
    expect(http.code).toBe(2);
    expect(http.stderr).toContain('--agent applies to conversations the server prepares');
    const bad = await cli('serve', '--agent', 'Ada!');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--agent must be an agent name');
  });
});
