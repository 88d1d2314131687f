/**
 * `gatefs prepare ID --run RUN` and `gatefs status`, run in this process (`runCli`) over a real
 * repository, as an operator starts a run's conversations: the RUN column shows `<run>/v<visit>`,
 * `--json` carries run and visit, the visit past `max_visits` is VISITS_EXHAUSTED (exit 1) with a
 * hint and leaves no row, a bad run name or another run for a prepared conversation is
 * PREPARATION_FAILED naming why; `serve --run` is checked before anything is served.
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
    [
      'roles:',
      '  - name: implementer',
      '    max_visits: 2',
      '    tools: [read, write]',
      '    workspace: { backend: worktree, source: snapshot }',
      '  - name: reviewer',
      '    tools: [read]',
      '    workspace: { backend: copy }',
      '',
    ].join('\n'),
  );
});
afterEach(() => repo?.cleanup());

/** Runs `gatefs <args> --repo <repo>` in this process; answers the exit code and what it printed. */
function cli(...args: string[]) {
  return gatefsInProcess(repo.dir, args);
}

describe('gatefs prepare --run', () => {
  it('prints the RUN column as run/v<visit>, and status shows every row with its run and visit', async () => {
    const first = await cli('prepare', 'impl-1', '--role', 'implementer', '--run', 'r1');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('preparing "impl-1" as implementer in run r1…');
    expect(first.stderr).toMatch(/"impl-1" is ready, visit 1 of run r1 \(/);
    expect(first.stdout).toMatch(/^CONVERSATION\s+ROLE\s+RUN\s+BACKEND\s/m);
    expect(first.stdout).toMatch(/^impl-1\s+implementer\s+r1\/v1\s+worktree\s/m);
    expect((await cli('prepare', 'impl-2', '--role', 'implementer', '--run', 'r1')).stdout).toMatch(/^impl-2\s+implementer\s+r1\/v2\s/m);
    expect((await cli('prepare', 'rev-1', '--role', 'reviewer')).stdout).toMatch(/^rev-1\s+reviewer\s+default\/v1\s+copy\s/m);

    const table = await cli('status');
    expect(table.stdout).toMatch(/^impl-1\s+implementer\s+r1\/v1\s/m);
    expect(table.stdout).toMatch(/^impl-2\s+implementer\s+r1\/v2\s/m);
    expect(table.stdout).toMatch(/^rev-1\s+reviewer\s+default\/v1\s/m);
    const rows = JSON.parse((await cli('status', '--json')).stdout) as { conversation: string; run: string; visit: number }[];
    expect(rows.map((r) => [r.conversation, r.run, r.visit])).toEqual([
      ['impl-1', 'r1', 1],
      ['impl-2', 'r1', 2],
      ['rev-1', 'default', 1],
    ]);
    const again = await cli('prepare', 'impl-1');
    expect(again.stderr).toMatch(
      /"impl-1" was already prepared \(role implementer, visit 1 of run r1, pinned [0-9a-f]{12}\): reused as it is/,
    );
  });

  it('refuses the visit past max_visits (exit 1, VISITS_EXHAUSTED with its hint) and lists no row for it', async () => {
    await cli('prepare', 'impl-1', '--role', 'implementer', '--run', 'r1');
    await cli('prepare', 'impl-2', '--role', 'implementer', '--run', 'r1');
    const refused = await cli('prepare', 'impl-3', '--role', 'implementer', '--run', 'r1');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^gatefs: error: VISITS_EXHAUSTED: role 'implementer' had its 2 visits \(max_visits\) in run 'r1'/m);
    expect(refused.stderr).toContain('prepare into another run with --run');
    const rows = JSON.parse((await cli('status', '--json')).stdout) as { conversation: string }[];
    expect(rows.map((r) => r.conversation)).toEqual(['impl-1', 'impl-2']);
    expect((await cli('prepare', 'impl-3', '--role', 'implementer', '--run', 'r2')).stdout).toMatch(/^impl-3\s+implementer\s+r2\/v1\s/m);
  });

  it('names a bad run name and another run for a prepared conversation', async () => {
    const bad = await cli('prepare', 'impl-1', '--run', 'Release 2');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^gatefs: error: PREPARATION_FAILED: 'Release 2' is not a valid run name/m);
    await cli('prepare', 'impl-1', '--run', 'r1');
    const moved = await cli('prepare', 'impl-1', '--run', 'r2');
    expect(moved.code).toBe(1);
    expect(moved.stderr).toMatch(/PREPARATION_FAILED: conversation 'impl-1' is visit 1 of 'implementer' in run 'r1', not in run 'r2'/);
  });

  it('prepare --help names --run; serve checks --run before serving', async () => {
    expect((await cli('prepare', '--help')).stdout).toMatch(/--run RUN\s+the run the conversation takes its turn in/);
    const badName = await cli('serve', '--run', 'Not A Run');
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('--run must be a run name');
    const notNew = await cli('serve', '--http', '127.0.0.1:0', '--run', 'r1');
    expect(notNew.code).toBe(2);
    expect(notNew.stderr).toContain('--run applies to conversations the server prepares: add --allow-new');
  });
});
