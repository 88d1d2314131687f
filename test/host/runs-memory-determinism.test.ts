/**
 * The memory host plays a whole run deterministically: the isolated Conductor pipeline
 * (examples/conductor/isolated-pipeline.yaml) — a planner handing a plan and a missing file on, an
 * implementer reading it, writing and handing off with its auto-patch, a reviewer ending the run —
 * played twice gives the same run log byte for byte, the same answers, the same run status and the
 * same stored objects.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';

const MANIFEST = join(import.meta.dirname, '../../examples/conductor/isolated-pipeline.yaml');
const files = { 'README.md': '# demo\n', 'docs/plan.md': '1. add feature\n2. test it\n', 'src/index.ts': 'export {};\n' };

/** Plays the pipeline on a fresh memory host; answers everything a user could look at. */
async function play(): Promise<string> {
  const host = await createMemoryHost({ files, manifest: MANIFEST });
  try {
    const answers: unknown[] = [];
    const call = async (conversation: string, tool: string, args: object) => {
      const r = await host.gate.call(conversation, tool, args);
      answers.push([conversation, tool, r]);
      return r;
    };
    await host.prepare({ conversation: 'plan-1', role: 'planner', run: 'demo' });
    await call('plan-1', 'handoff', { to: 'implementer', files: ['docs/plan.md', 'docs/missing.md', 'docs'], message: 'build it' });
    await host.prepare({ conversation: 'impl-1', role: 'implementer', run: 'demo' });
    await call('impl-1', 'read', { path: 'artifacts/planner-v1/docs/plan.md' });
    await call('impl-1', 'write', { path: 'artifacts/planner-v1/docs/plan.md', content: 'no' });
    await call('impl-1', 'write', { path: 'src/feature.ts', content: 'export const feature = true;\n' });
    await call('impl-1', 'edit', { path: 'README.md', oldString: '# demo', newString: '# demo, with a feature' });
    await call('impl-1', 'handoff', { to: 'reviewer', files: ['src/feature.ts', 'README.md'], message: 'done' });
    await host.prepare({ conversation: 'rev-1', role: 'reviewer', run: 'demo' });
    await call('rev-1', 'list', { path: 'artifacts', pattern: '**' });
    await call('rev-1', 'end', { message: 'approved' });
    await call('impl-1', 'handoff', { to: 'reviewer' });
    const out = {
      answers,
      status: host.runs.status('demo'),
      artifacts: host.runs.artifacts('demo'),
      inventory: host.inventory('rev-1'),
      workspaces: host.status().map((w) => [w.conversation, w.run, w.visit, w.patches, w.latestPatch]),
      events: host.events(),
    };
    return JSON.stringify(out, null, 1);
  } finally {
    await host.close();
  }
}

describe('a run on the memory host', () => {
  it('played twice gives the same run log, answers, run status and objects, byte for byte', async () => {
    const first = await play();
    const second = await play();
    expect(second).toBe(first);
    const parsed = JSON.parse(first);
    // It is a real run, not an empty one: every step is in it.
    expect(parsed.status.visits.map((v: { conversation: string; ending: string }) => [v.conversation, v.ending])).toEqual([
      ['plan-1', 'handoff'],
      ['impl-1', 'handoff'],
      ['rev-1', 'end'],
    ]);
    expect(
      parsed.status.handoffs[0].artifacts.map((a: { path: string; record: string; code?: string }) => [a.path, a.record, a.code]),
    ).toEqual([
      ['docs/plan.md', 'artifact_collected', undefined],
      ['docs/missing.md', 'artifact_rejected', 'NOT_FOUND'],
      ['docs', 'artifact_rejected', 'NOT_REGULAR_FILE'],
    ]);
    expect(parsed.status.patches).toHaveLength(1);
    expect(parsed.status.patches[0].files).toBe(2);
    const types = parsed.events.map((e: { type: string }) => e.type);
    for (const t of ['run.visit', 'handoff.accepted', 'artifact.collected', 'artifact.rejected', 'patch.kept', 'run.ended'])
      expect(types).toContain(t);
  });
});
