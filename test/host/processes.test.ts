import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { runChild } from './child-process.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';
import { SwitchableExec } from './switchable-exec.js';
import { isGitCommand } from './git-words.js';

const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n' };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function repo(): TempRepo {
  const r = makeTempRepo(files);
  cleanups.push(() => r.cleanup());
  return r;
}

async function open(dir: string): Promise<Host> {
  const host = await createHost({ repo: dir });
  cleanups.push(() => host.close());
  return host;
}

describe('several processes over one state directory', () => {
  it('a new host in another process sees every registration and serves tools at once', async () => {
    const r = repo();
    const run = await runChild({
      repo: r.dir,
      steps: [
        { op: 'prepare', conversation: 'a' },
        { op: 'prepare', conversation: 'b' },
        { op: 'call', conversation: 'a', tool: 'write', args: { path: 'from-child.txt', content: 'child wrote this' } },
        { op: 'release', conversation: 'b' },
      ],
    });
    const { lines, code, stderr } = await run.done;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lines.map((l) => l.error)).toEqual([undefined, undefined, undefined, undefined]);
    const host = await open(r.dir);
    const pinned = r.git('rev-parse', 'HEAD');
    expect(host.status()).toMatchObject([
      { conversation: 'a', state: 'ready', pinnedSha: pinned, branch: 'gatefs/a' },
      { conversation: 'b', state: 'released', pinnedSha: pinned },
    ]);
    expect(await host.gate.call('a', 'read', { path: 'from-child.txt' })).toMatchObject({
      ok: true,
      value: { content: 'child wrote this' },
    });
    expect(await host.gate.call('b', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_RELEASED' } });
    expect(host.events().some((e) => e.type === 'exec' && e.conversation === 'a')).toBe(true);
  });

  it('never prepares one conversation twice at once across processes, and serves what another process prepared', async () => {
    const r = repo();
    const exec = new SwitchableExec();
    const host = await createHost({ repo: r.dir, exec });
    cleanups.push(() => host.close());
    const held = exec.holdNext((argv) => isGitCommand(argv, 'worktree', 'add'));
    const mine = host.prepare({ conversation: 'c' });
    await held.reached;
    const child = await runChild({
      repo: r.dir,
      steps: [
        { op: 'prepare', conversation: 'c' },
        { op: 'prepare', conversation: 'd' },
      ],
    });
    const { lines } = await child.done;
    held.release();
    expect(await mine).toMatchObject({ conversation: 'c', state: 'ready' });
    expect(lines.map((l) => l.error ?? 'ok')).toEqual(['BUSY', 'ok']);
    const adds = host
      .events()
      .filter((e) => e.type === 'exec' && e.conversation === 'c' && isGitCommand(e.data.argv as string[], 'worktree', 'add'));
    expect(adds).toHaveLength(1);
    expect(await host.gate.call('d', 'read', { path: 'src/a.ts' })).toMatchObject({
      ok: true,
      value: { content: 'export const a = 1;\n' },
    });
    expect(await host.gate.call('c', 'read', { path: 'src/a.ts' })).toMatchObject({ ok: true });
  });

  it('rolls back a preparation killed by SIGKILL on the next start, then prepares again', async () => {
    const r = repo();
    const bin = join(r.dir, '..', 'bin');
    const marker = join(r.dir, '..', 'worktree-added');
    mkdirSync(bin);
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(
      join(bin, 'git'),
      `#!/bin/sh\nskip=0; for a in "$@"; do if [ $skip = 1 ]; then skip=0; continue; fi; case "$a" in -c) skip=1; continue;; esac; first="$a"; break; done\n` +
        `case " $* " in *" worktree add "*) add=1;; esac\nif [ "$first" = worktree ] && [ -n "$add" ]; then "${realGit}" "$@"; touch "${marker}"; sleep 30; exit 0; fi\nexec "${realGit}" "$@"\n`,
    );
    chmodSync(join(bin, 'git'), 0o755);
    const run = await runChild(
      { repo: r.dir, steps: [{ op: 'prepare', conversation: 'k' }] },
      { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    );
    for (let i = 0; i < 300 && !existsSync(marker); i++) await sleep(50);
    expect(existsSync(marker)).toBe(true);
    process.kill(-run.child.pid!, 'SIGKILL');
    const { signal } = await run.done;
    expect(signal).toBe('SIGKILL');
    const worktree = join(r.dir, '.gatefs/worktrees/k');
    expect(existsSync(worktree)).toBe(true);
    expect(r.git('branch', '--list', 'gatefs/k')).toContain('gatefs/k');

    const host = await open(r.dir);
    expect(existsSync(worktree)).toBe(false);
    expect(r.git('branch', '--list', 'gatefs/k')).toBe('');
    expect(r.git('worktree', 'list', '--porcelain')).not.toContain('worktrees/k');
    expect(host.status()).toEqual([]);
    expect(host.events().filter((e) => e.type === 'prepare.rolled_back')).toMatchObject([
      { conversation: 'k', data: { interrupted: true, removedWorktree: true, deletedBranch: true, problems: [] } },
    ]);
    expect(await host.prepare({ conversation: 'k' })).toMatchObject({ state: 'ready' });
    expect(readFileSync(join(worktree, 'README.md'), 'utf8')).toBe('# demo\n');
    rmSync(bin, { recursive: true, force: true });
  });
});
