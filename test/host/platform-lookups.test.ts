/**
 * The platforms' lookups (`folderState`, `exists`, `identityOf`) answer "missing" only when
 * nothing is there; a path they cannot look at (here through a symbolic-link loop: `ELOOP`)
 * throws instead of passing for a missing folder — which would let a release think a worktree
 * is already gone, or a preparation make a folder over it. On disk and in memory; and the
 * repository folder given to `createHost` likewise.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Volume } from 'memfs';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { DiskPlatform } from '../../src/host/platform/disk-platform.js';
import { MemoryLandingGit } from '../../src/git/memory-landing-git.js';
import { MemoryGit } from '../../src/git/memory-git.js';
import { MemoryPlatform } from '../../src/host/memory/memory-platform.js';
import type { HostPlatform } from '../../src/host/platform/platform.js';
import { ScriptedHostExec } from '../../src/ports/scripted-host-exec.js';
import { CliLandingGit } from '../../src/git/cli-landing-git.js';
import { CliGit } from '../../src/git/cli-git.js';
import * as fs from 'node:fs';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function disk(): { platform: HostPlatform; base: string } {
  const base = mkdtempSync(join(tmpdir(), 'gatefs-lookups-'));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  mkdirSync(join(base, 'folder'));
  symlinkSync(join(base, 'loop'), join(base, 'loop'));
  const git = new CliGit({ repo: base, exec: new ScriptedHostExec(), fs });
  return {
    platform: new DiskPlatform(base, join(base, 'state'), git, new CliLandingGit({ repo: base, exec: new ScriptedHostExec() }), 'procfs'),
    base,
  };
}

function memory(): { platform: HostPlatform; base: string } {
  const volume = new Volume();
  volume.mkdirSync('/base/folder', { recursive: true });
  volume.symlinkSync('/base/loop', '/base/loop');
  return {
    platform: new MemoryPlatform(
      volume,
      '/base',
      '/base/state',
      new MemoryGit({ volume, dir: '/base' }),
      new MemoryLandingGit({ volume, dir: '/base' }),
    ),
    base: '/base',
  };
}

describe.each([
  ['disk', disk],
  ['memory', memory],
] as const)('platform lookups (%s)', (_name, make) => {
  it('answer missing for nothing there, and throw for a path they cannot look at', () => {
    const { platform, base } = make();
    expect(platform.folderState(join(base, 'folder'))).toBe('folder');
    expect(platform.folderState(join(base, 'gone'))).toBe('missing');
    expect(platform.folderState(join(base, 'folder/gone/deeper'))).toBe('missing');
    expect(platform.exists(join(base, 'gone'))).toBe(false);
    const looped = join(base, 'loop/worktree');
    expect(() => platform.folderState(looped)).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(() => platform.exists(looped)).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });
});

describe('the repository folder', () => {
  it('that cannot be looked at is UNREADABLE_FOLDER, not MISSING_FOLDER', async () => {
    const { base } = disk();
    const refused = (reason: string) => ({ code: 'NOT_A_GIT_REPOSITORY', data: { reason } });
    await expect(createHost({ repo: join(base, 'loop/repo') })).rejects.toMatchObject(refused('UNREADABLE_FOLDER'));
    await expect(createHost({ repo: join(base, 'gone') })).rejects.toMatchObject(refused('MISSING_FOLDER'));
  });

  it('identityOf throws on disk for a path it cannot look at', () => {
    const { platform, base } = disk();
    expect(platform.identityOf(join(base, 'gone'))).toBeNull();
    expect(() => platform.identityOf(join(base, 'loop'))).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });
});
