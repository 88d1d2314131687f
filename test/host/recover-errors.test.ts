/**
 * A release interrupted while removing is finished on the next start only when git says the
 * half-removed worktree holds no work. When that check fails (git cannot run `status`), the
 * release is undone and the files are kept: a check that could not answer is not "no work".
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { withPendingRelease } from '../../src/host/lifecycle/release-record.js';
import { systemClock } from '../../src/ports/clock.js';
import type { ExecRequest, ExecResult, HostExec } from '../../src/ports/host-exec.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';
import { nodeProcessLiveness } from '../../src/ports/node-process-liveness.js';
import { StateStore } from '../../src/state/index.js';
import { makeTempRepo } from './temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Real git, except that `git status` fails as a broken git would. */
class StatusFails implements HostExec {
  private readonly real = new NodeHostExec();
  run(request: ExecRequest): Promise<ExecResult> {
    if (!request.argv.includes('status')) return this.real.run(request);
    const stderr = 'fatal: simulated status failure';
    return Promise.resolve({ exitCode: 128, signal: null, stdout: '', stderr, timedOut: false, durationMs: 0 });
  }
}

describe('recovering a release interrupted while removing', () => {
  it('undoes it and keeps the files when the check for work fails', async () => {
    const repo = makeTempRepo({ 'README.md': '# demo\n' });
    cleanups.push(() => repo.cleanup());
    const host = await createHost({ repo: repo.dir });
    await host.prepare({ conversation: 'a' });
    await host.close();
    // What a release killed after its check leaves: the record says `removing`.
    const store = StateStore.open(join(repo.dir, '.gatefs/gatefs.db'), { clock: systemClock, liveness: nodeProcessLiveness });
    const record = store.workspaces.get('a')!;
    store.workspaces.update('a', { data: withPendingRelease(record.data, { step: 'removing', holder: 'killed-release', discard: false }) });
    store.close();
    const written = join(repo.dir, '.gatefs/worktrees/a/editor-wrote.txt');
    writeFileSync(written, 'not gatefs, but work');

    const next = await createHost({ repo: repo.dir, exec: new StatusFails() });
    cleanups.push(() => next.close());
    expect(next.events().filter((e) => e.type === 'release.finished')).toEqual([]);
    const undone = next.events().filter((e) => e.type === 'release.undone');
    expect(undone).toMatchObject([{ conversation: 'a', data: { step: 'removing', problem: expect.stringContaining('status') } }]);
    expect(existsSync(written) && readFileSync(written, 'utf8')).toBe('not gatefs, but work');
    expect(next.status()).toMatchObject([{ conversation: 'a', state: 'ready' }]);
  });
});
