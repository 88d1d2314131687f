/**
 * Both Conductor example manifests (examples/conductor/) loaded by a real disk host and run end to
 * end as the agents would, through `host.gate.call` only: each role prepared into one run,
 * reading what the role before it handed over, handing its own files on, and the last one ending
 * the run — then the operator's view (`host.runs.status`, `host.runs.artifacts`,
 * `host.inventory`) and the run refusing anyone new.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import type { ToolResult } from '../../tools/result.js';
import { makeTempRepo } from './temp-repo.js';

const EXAMPLES = join(import.meta.dirname, '../../examples/conductor');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function hostWith(manifest: string): Promise<Host> {
  const repo = makeTempRepo({ 'README.md': '# demo\n', 'docs/plan.md': '1. add feature\n2. test it\n', 'src/index.ts': 'export {};\n' });
  cleanups.push(() => repo.cleanup());
  const host = await createHost({ repo: repo.dir, manifest: join(EXAMPLES, manifest) });
  cleanups.push(() => host.close());
  return host;
}

/** The value of a call that must succeed. */
async function call<T = Record<string, unknown>>(host: Host, conversation: string, tool: string, args: object): Promise<T> {
  const result: ToolResult = await host.gate.call(conversation, tool, args);
  if (!result.ok) throw new Error(`${conversation} ${tool}: ${result.error.code} ${result.error.message}`);
  return result.value as T;
}

describe('the Conductor examples, end to end on the disk host', () => {
  it('isolated-pipeline.yaml: planner -> implementer -> reviewer, each reading what the one before handed over', {
    timeout: 120_000,
  }, async () => {
    const host = await hostWith('isolated-pipeline.yaml');
    await host.prepare({ conversation: 'plan-1', role: 'planner', run: 'demo' });
    const planned = await call(host, 'plan-1', 'handoff', {
      to: 'implementer',
      files: ['docs/plan.md', 'docs/missing.md'],
      message: 'build it',
    });
    expect(planned).toMatchObject({
      run: 'demo',
      visit: 1,
      collected: [{ path: 'docs/plan.md', bytes: Buffer.byteLength('1. add feature\n2. test it\n') }],
      rejected: [{ path: 'docs/missing.md', code: 'NOT_FOUND' }],
    });

    await host.prepare({ conversation: 'impl-1', role: 'implementer', run: 'demo' });
    const plan = await call<{ content: string }>(host, 'impl-1', 'read', { path: 'artifacts/planner-v1/docs/plan.md' });
    expect(plan.content).toContain('add feature');
    // Routed artifacts are read-only: the store's bytes never change.
    const overwrite = await host.gate.call('impl-1', 'write', { path: 'artifacts/planner-v1/docs/plan.md', content: 'x' });
    expect(overwrite.ok ? 'ok' : overwrite.error.code).toBe('READ_ONLY');
    await call(host, 'impl-1', 'write', { path: 'src/feature.ts', content: 'export const feature = true;\n' });
    const implemented = await call<{ collected: { path: string }[]; patch: { files: number } | null }>(host, 'impl-1', 'handoff', {
      to: 'reviewer',
      files: ['src/feature.ts'],
    });
    expect(implemented.collected.map((c) => c.path)).toEqual(['src/feature.ts']);
    // The implementer keeps an auto-patch (auto_patch: true): its change against the pinned base.
    expect(implemented.patch).toMatchObject({ files: 1 });

    await host.prepare({ conversation: 'rev-1', role: 'reviewer', run: 'demo' });
    const feature = await call<{ content: string }>(host, 'rev-1', 'read', { path: 'artifacts/implementer-v1/src/feature.ts' });
    expect(feature.content).toContain('feature = true');
    const ended = await call(host, 'rev-1', 'end', { message: 'approved' });
    expect(ended).toMatchObject({ run: 'demo', visit: 1, patch: null });

    const status = host.runs.status('demo');
    expect(status.run.endedBy).toBe('rev-1');
    expect(status.visits.map((v) => [v.conversation, v.role, v.visit, v.ending])).toEqual([
      ['plan-1', 'planner', 1, 'handoff'],
      ['impl-1', 'implementer', 1, 'handoff'],
      ['rev-1', 'reviewer', 1, 'end'],
    ]);
    expect(status.handoffs.map((h) => [h.kind, h.to, h.folder])).toEqual([
      ['handoff', 'implementer', 'planner-v1'],
      ['handoff', 'reviewer', 'implementer-v1'],
      ['end', null, null],
    ]);
    expect(status.patches.map((p) => [p.conversation, p.reason, p.files])).toEqual([['impl-1', 'handoff', 1]]);
    const stored = host.runs.artifacts('demo').find((a) => a.path === 'src/feature.ts');
    expect(readFileSync(stored!.storePath!, 'utf8')).toBe('export const feature = true;\n');
    // The run is over: nobody joins it, nobody hands off in it, and the workspaces still serve.
    await expect(host.prepare({ conversation: 'impl-2', role: 'implementer', run: 'demo' })).rejects.toMatchObject({ code: 'RUN_ENDED' });
    const late = await host.gate.call('impl-1', 'handoff', { to: 'reviewer' });
    expect(late.ok ? 'ok' : late.error.code).toBe('VISIT_ENDED');
    expect((await host.gate.call('impl-1', 'read', { path: 'src/feature.ts' })).ok).toBe(true);
  });

  it('shared-review.yaml: an isolated implementer hands off to a reviewer in the user checkout, which reads the seed inventory', {
    timeout: 120_000,
  }, async () => {
    const host = await hostWith('shared-review.yaml');
    await host.prepare({ conversation: 'impl-1', role: 'implementer', run: 'review-1' });
    await call(host, 'impl-1', 'write', { path: 'src/fix.ts', content: 'export const fixed = 1;\n' });
    const handed = await call<{ collected: unknown[]; rejected: { code: string }[] }>(host, 'impl-1', 'handoff', {
      to: 'reviewer',
      files: ['src/fix.ts', '../escape.ts'],
    });
    expect(handed.collected).toHaveLength(1);
    expect(handed.rejected.map((r) => r.code)).toEqual(['PATH_ESCAPE']);

    await host.prepare({ conversation: 'rev-1', role: 'reviewer', run: 'review-1' });
    const inventory = host.inventory('rev-1');
    expect(inventory.available.map((a) => a.path)).toEqual(['src/fix.ts']);
    expect(inventory.unavailable.map((u) => [u.path, u.code])).toEqual([['../escape.ts', 'PATH_ESCAPE']]);
    const storePath = inventory.available[0]!.storePath!;
    expect(readFileSync(storePath, 'utf8')).toBe('export const fixed = 1;\n');
    // The reviewer reads the same inventory as a file the host wrote.
    const file = await call<{ content: string }>(host, 'rev-1', 'read', { path: '/artifacts/inventory.json' });
    expect(JSON.parse(file.content)).toMatchObject({ run: 'review-1', available: [{ path: 'src/fix.ts', storePath }] });
    await call(host, 'rev-1', 'end', { message: 'looks good' });
    expect(host.runs.status('review-1').run.endedBy).toBe('rev-1');
    // The implementer's auto-patch (worktree default) is kept, never applied to the checkout.
    expect(host.runs.status('review-1').patches).toHaveLength(1);
  });
});
