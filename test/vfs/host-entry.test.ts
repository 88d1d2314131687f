/**
 * The one confined open (vfs/host-entry.ts): the host layer and the pool's read program join a
 * name to a held folder only through `entryPath`, which itself refuses anything but one entry
 * name, so no caller can hand the kernel a joined path, a climb or a NUL, whatever it checked
 * before. Reading opens without following a link and checks the handle, not the name.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { entryPath, isEntryName, openEntryForReading, regularFileSize } from '../../vfs/host-entry.js';
import { ConfinedWalk } from '../../vfs/host-walk.js';
import { VfsError } from '../../vfs/errors.js';
import { foreignCodeOf } from '../../vfs/coded-error.js';

const NOT_NAMES = ['', '.', '..', '../outside/secret.txt', 'a/b', '/etc/hostname', 'x/..', 'nul\0byte'];

let base: string;
let root: string;

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-entry-'));
  root = path.join(base, 'root');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'f.txt'), 'inside');
  fs.mkdirSync(path.join(base, 'outside'));
  fs.writeFileSync(path.join(base, 'outside/secret.txt'), 'OUTSIDE');
  fs.symlinkSync('../outside/secret.txt', path.join(root, 'link.txt'));
});

afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

/** The error `f` throws. */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('entryPath: one entry name joined to a held folder', () => {
  it('joins a plain name, odd characters and all, to the folder prefix', () => {
    const dir = { base: '/proc/self/fd/7', rel: 'src' };
    expect(entryPath(dir, 'f.txt')).toBe('/proc/self/fd/7/f.txt');
    expect(entryPath(dir, '...')).toBe('/proc/self/fd/7/...');
    expect(entryPath(dir, ' x\\y~$HOME')).toBe('/proc/self/fd/7/ x\\y~$HOME');
  });

  it.each(NOT_NAMES)('refuses %j with BAD_NAME at the folder, naming no host path', (name) => {
    expect(isEntryName(name)).toBe(false);
    const e = thrown(() => entryPath({ base: '/proc/self/fd/7', rel: 'src' }, name, 'read'));
    expect(e).toBeInstanceOf(VfsError);
    expect(e).toMatchObject({ code: 'BAD_NAME', op: 'read', path: 'src' });
    expect((e as Error).message).not.toContain('/proc');
  });

  it('refuses a non-name even on the walk itself: ConfinedWalk.at, the way every host operation reaches a name', () => {
    const walk = new ConfinedWalk(root, true);
    try {
      for (const name of NOT_NAMES) expect(thrown(() => walk.at(walk.root, name))).toMatchObject({ code: 'BAD_NAME' });
      for (const name of NOT_NAMES) expect(thrown(() => walk.uncheckedAt(walk.root, name))).toMatchObject({ code: 'BAD_NAME' });
      expect(walk.at(walk.root, 'f.txt')).toBe(`${walk.root.base}/f.txt`);
    } finally {
      walk.close();
    }
  });
});

describe('openEntryForReading and regularFileSize', () => {
  it('open a file of the held folder and size it on its handle', () => {
    const walk = new ConfinedWalk(root, true);
    try {
      const fd = openEntryForReading(walk.root, 'f.txt');
      try {
        expect(regularFileSize(fd, 'f.txt')).toBe(6);
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      walk.close();
    }
  });

  it('never follow a link (the open fails, the outside file is not opened) and refuse a folder on its handle', () => {
    const walk = new ConfinedWalk(root, true);
    try {
      expect(foreignCodeOf(thrown(() => openEntryForReading(walk.root, 'link.txt')))).toBe('ELOOP');
      expect(thrown(() => openEntryForReading(walk.root, '../outside/secret.txt'))).toMatchObject({ code: 'BAD_NAME' });
      const fd = openEntryForReading(walk.root, 'sub');
      try {
        expect(thrown(() => regularFileSize(fd, 'sub'))).toMatchObject({ code: 'IS_DIRECTORY', path: 'sub' });
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      walk.close();
    }
  });
});
