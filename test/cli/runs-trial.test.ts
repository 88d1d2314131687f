/**
 * Runs tried from the CLI as a new user would (README "Runs and handoffs"), run in this process
 * (`runCli`) over a real repository: each message names what to do next, and none says something
 * the user did not do — `gatefs run r1` (the action forgotten) names the action, `gatefs run
 * status` without a run and an unknown run point at where runs are listed (the RUN column of
 * `gatefs status`), a malformed run name says what a run name is and only `objects` is called
 * reserved.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatefsInProcess } from './run-gatefs.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo({ 'README.md': '# demo\n' });
  writeFileSync(
    join(repo.dir, 'gatefs.yaml'),
    JSON.stringify({ roles: [{ name: 'planner', tools: ['read', 'write', 'handoff', 'end'], workspace: { backend: 'empty' } }] }),
  );
});
afterEach(() => repo?.cleanup());

/** Runs `gatefs <args> --repo <repo>` in this process; answers the exit code and what it printed. */
function cli(...args: string[]) {
  return gatefsInProcess(repo.dir, args);
}

describe('gatefs run, tried as a new user', () => {
  it('lists every run with its counts, oldest first (gatefs run list), and says how to start one when there is none', async () => {
    expect((await cli('run', 'list')).stdout).toContain('No runs yet');
    expect((await cli('prepare', 'p1', '--run', 'r1')).code).toBe(0);
    expect((await cli('prepare', 'p2', '--run', 'r2')).code).toBe(0);
    expect((await cli('call', 'p2', 'write', JSON.stringify({ path: 'plan.md', content: 'plan\n' }))).code).toBe(0);
    expect((await cli('call', 'p2', 'end', '{}')).code).toBe(0);
    const listed = await cli('run', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^RUN\s+STARTED\s+STATE\s+VISITS\s+HANDOFFS\s+COLLECTED\s+REJECTED$/m);
    expect(listed.stdout).toMatch(/^r1\s+.+?\s+open\s+1\s+0\s+0\s+0$/m);
    expect(listed.stdout).toMatch(/^r2\s+.+?\s+ended by p2\s+1\s+0\s+0\s+0$/m);
    const json = JSON.parse((await cli('run', 'list', '--json')).stdout);
    expect(json.map((r: { run: string; endedBy: string | null }) => [r.run, r.endedBy])).toEqual([
      ['r1', null],
      ['r2', 'p2'],
    ]);
    expect((await cli('run', 'list', 'r1')).code).toBe(2);
  });

  it('names the forgotten action, and points at the RUN column when the run is missing or unknown', async () => {
    expect((await cli('prepare', 'p1', '--run', 'r1')).code).toBe(0);
    const noAction = await cli('run', 'r1');
    expect(noAction.code).toBe(2);
    expect(noAction.stderr).toContain('run needs an action: status or list (got "r1")');
    const noRun = await cli('run', 'status');
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toContain('RUN column');
    const unknown = await cli('run', 'status', 'r2');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('UNKNOWN_RUN');
    expect(unknown.stderr).toContain('RUN column');
    expect((await cli('run', 'status', 'r1')).stdout).toMatch(/^planner\s+1\s+p1\s+active/m);
  });

  it("says what a run name is, and calls only 'objects' reserved", async () => {
    const upper = await cli('prepare', 'p1', '--run', 'Upper');
    expect(upper.code).toBe(1);
    expect(upper.stderr).toContain("'Upper' is not a valid run name (lowercase letters");
    expect(upper.stderr).not.toContain('objects');
    const reserved = await cli('prepare', 'p1', '--run', 'objects');
    expect(reserved.code).toBe(1);
    expect(reserved.stderr).toContain("'objects' is reserved");
  });
});
