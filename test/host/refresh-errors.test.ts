/**
 * A recorded workspace whose view cannot open is unregistered, and the run log says why
 * (`registry.unavailable`). Only a folder that is gone makes it an unknown conversation; any
 * other failure (here a link where the worktree folder was) reaches the agent as `INTERNAL`,
 * never as `UNKNOWN_CONVERSATION`, and the tool list is empty without naming a host path.
 */
import { renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function preparedThenClosed(): Promise<TempRepo> {
  const repo = makeTempRepo({ 'README.md': '# demo\n' });
  cleanups.push(() => repo.cleanup());
  const host = await createHost({ repo: repo.dir });
  await host.prepare({ conversation: 'a' });
  await host.close();
  return repo;
}

async function open(repo: TempRepo): Promise<Host> {
  const host = await createHost({ repo: repo.dir });
  cleanups.push(() => host.close());
  return host;
}

const registryEvents = (host: Host) => host.events().filter((e) => e.type === 'registry.unavailable');

describe('a workspace whose view cannot open', () => {
  it('answers INTERNAL, not UNKNOWN_CONVERSATION, when a link stands where its folder was', async () => {
    const repo = await preparedThenClosed();
    const folder = join(repo.dir, '.gatefs/worktrees/a');
    renameSync(folder, join(repo.dir, '..', 'moved'));
    symlinkSync(join(repo.dir, '..', 'moved'), folder);
    const host = await open(repo);
    const r = await host.gate.call('a', 'read', { path: 'README.md' });
    expect(r).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(JSON.stringify(r)).not.toContain(repo.dir);
    expect(registryEvents(host)).toMatchObject([{ conversation: 'a', data: { code: 'STATE_UNTRUSTED', reason: 'LINK_IN_STATE_DIR' } }]);
    expect(host.gate.tools('a')).toEqual([]);
  });

  it('answers UNKNOWN_CONVERSATION when its folder is gone, and records why', async () => {
    const repo = await preparedThenClosed();
    rmSync(join(repo.dir, '.gatefs/worktrees/a'), { recursive: true });
    const host = await open(repo);
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CONVERSATION' } });
    expect(registryEvents(host)).toMatchObject([{ conversation: 'a', data: { code: 'PREPARATION_FAILED', reason: 'MISSING_FOLDER' } }]);
  });
});
