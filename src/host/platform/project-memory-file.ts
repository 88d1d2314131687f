/**
 * Project memory on disk: `<stateDir>/memory/project.md`, a host-owned file the lander appends
 * one line to per landing. The folder and file are opened without following links (a link put
 * there is refused with `STATE_UNTRUSTED`, nothing written through it); a line is appended only
 * when no line holds its key, so a lander resuming after a crash never writes it twice.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isMissingPath } from '../../ports/index.js';
import { WorkspaceError } from '../../workspace-error.js';

/** The file's name inside `<stateDir>/memory`. */
const PROJECT_MEMORY_FILE = 'project.md';

/** Appends `line` to `<stateDir>/memory/project.md` unless a line holds `key` (see the module comment). Result: true when appended. */
export function appendProjectMemoryFile(stateDir: string, key: string, line: string): boolean {
  const folder = join(stateDir, 'memory');
  try {
    if (!lstatSync(folder).isDirectory()) throw untrusted(folder);
  } catch (e) {
    if (!isMissingPath(e)) throw e;
    mkdirSync(folder, { mode: 0o700 });
  }
  const fd = openSync(
    join(folder, PROJECT_MEMORY_FILE),
    constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    if (!fstatSync(fd).isFile()) throw untrusted(join(folder, PROJECT_MEMORY_FILE));
    const text = readFileSync(fd, 'utf8');
    if (text.split('\n').some((l) => l.includes(key))) return false;
    writeSync(fd, `${text === '' ? '# Project memory (written by gatefs: one line per landing)\n\n' : ''}${line.replace(/\n/g, ' ')}\n`);
    return true;
  } finally {
    closeSync(fd);
  }
}

function untrusted(path: string): WorkspaceError {
  return new WorkspaceError('STATE_UNTRUSTED', `'${path}' is not a file or folder gatefs made; project memory is not written through it`, {
    reason: 'LINK_IN_STATE_DIR',
  });
}
