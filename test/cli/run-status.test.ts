/**
 * `gatefs run status RUN` and `gatefs artifacts RUN`, run in this process (`runCli`) over a real
 * repository, as an operator checks what a run's roles handed each other: the visits and how
 * each ended, the handoff with its message's first line, a collected artifact (with its host
 * store path in `gatefs artifacts`), a rejected one with its code, the auto-patch; `--json`
 * parses back; an unknown run is UNKNOWN_RUN (exit 1) naming it; a malformed name is a usage
 * error (exit 2). An agent-chosen message cannot start a line of its own.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatefsInProcess } from './run-gatefs.js';
import { createHost } from '../../src/host/composition/create-host.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo({ 'README.md': '# demo\n', '.gitignore': 'node_modules/\n' });
});
afterEach(() => repo?.cleanup());

const MANIFEST = {
  roles: [
    { name: 'planner', tools: ['read', 'write', 'handoff', 'end'], workspace: { backend: 'worktree' } },
    { name: 'coder', tools: ['read', 'write', 'handoff', 'end'], workspace: { backend: 'worktree' } },
  ],
};

/** Runs `gatefs <args> --repo <repo>` in this process; answers the exit code and what it printed. */
function cli(args: string[]) {
  return gatefsInProcess(repo.dir, args);
}

/** A run `r1`: planner-v1 hands plan.md (and a missing file) to coder with a two-line message; coder-v1 is prepared. */
async function playRun() {
  writeFileSync(join(repo.dir, 'gatefs.yaml'), JSON.stringify(MANIFEST));
  const host = await createHost({ repo: repo.dir, manifest: MANIFEST });
  try {
    await host.prepare({ conversation: 'plan-1', role: 'planner', run: 'r1' });
    expect((await host.gate.call('plan-1', 'write', { path: 'plan.md', content: '# the plan\n' })).ok).toBe(true);
    const handed = await host.runs.handoff('plan-1', {
      to: 'coder',
      files: ['plan.md', 'missing.md'],
      message: 'build it\nFAKE: all checks passed',
    });
    await host.prepare({ conversation: 'code-1', role: 'coder', run: 'r1' });
    return handed;
  } finally {
    await host.close();
  }
}

describe('gatefs run status / gatefs artifacts', () => {
  it('shows visits, the handoff with its first message line, collected and rejected artifacts and the auto-patch', async () => {
    const handed = await playRun();
    const r = await cli(['run', 'status', 'r1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Run r1: open');
    expect(r.stdout).toMatch(/planner\s+1\s+plan-1\s+ended\s+handoff/);
    expect(r.stdout).toMatch(/coder\s+1\s+code-1\s+active/);
    expect(r.stdout).toMatch(/planner-v1\s+coder\s+1\s+1\s+build it/);
    expect(r.stdout).not.toMatch(/^FAKE/m);
    expect(r.stdout).toMatch(/plan\.md\s+11 B\s+[0-9a-f]{12}/);
    expect(r.stdout).toMatch(/missing\.md\s+NOT_FOUND/);
    expect(r.stdout).toMatch(/plan-1\s+1\s+planner-v1\s+handoff\s+1/);

    const json = JSON.parse((await cli(['run', 'status', 'r1', '--json'])).stdout);
    expect(json.run).toMatchObject({ run: 'r1', endedAt: null });
    expect(json.visits.map((v: { conversation: string }) => v.conversation)).toEqual(['plan-1', 'code-1']);
    expect(json.handoffs[0]).toMatchObject({
      id: handed.handoffId,
      kind: 'handoff',
      to: 'coder',
      message: 'build it\nFAKE: all checks passed',
    });
    expect(json.patches).toHaveLength(handed.patch ? 1 : 0);
    expect(json.artifacts.map((a: { path: string; record: string }) => [a.path, a.record])).toEqual([
      ['plan.md', 'artifact_collected'],
      ['missing.md', 'artifact_rejected'],
    ]);
  });

  it('gatefs artifacts prints the host store path of each collected file (its bytes are there) and the patches', async () => {
    await playRun();
    const r = await cli(['artifacts', 'r1']);
    expect(r.code, r.stderr).toBe(0);
    const stored = join(repo.dir, '.gatefs', 'artifacts', 'r1', 'planner-v1', 'plan.md');
    expect(r.stdout).toContain(stored);
    expect(readFileSync(stored, 'utf8')).toBe('# the plan\n');
    expect(r.stdout).toMatch(/missing\.md\s+NOT_FOUND/);
    expect(r.stdout).toContain('Auto-patches (kept, never applied)');
    const json = JSON.parse((await cli(['artifacts', 'r1', '--json'])).stdout);
    expect(json.artifacts[0]).toMatchObject({ path: 'plan.md', storePath: stored });
    const patch = json.patches[0];
    expect(patch).toMatchObject({ conversation: 'plan-1', reason: 'handoff', files: 1 });
    // The operator can apply the patch from the path printed: it adds plan.md.
    expect(r.stdout).toContain(patch.storePath);
    expect(readFileSync(patch.storePath, 'utf8')).toContain('+++ b/plan.md');
  });

  it('an unknown run is UNKNOWN_RUN naming it (exit 1); a malformed name is a usage error (exit 2)', async () => {
    await playRun();
    for (const args of [
      ['run', 'status', 'nope'],
      ['artifacts', 'nope'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain('UNKNOWN_RUN');
      expect(r.stderr).toContain('nope');
    }
    for (const args of [
      ['run', 'status', '../x'],
      ['run', 'list', 'r1'],
      ['artifacts', 'Bad Name'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
    }
  });
});
