/**
 * `authorityFileText`: the text of a manifest or lander settings file, the two files that grant
 * agents their authority (src/host/composition/authority-files.ts), read by path. The one place
 * src/manifest reaches the disk (test/architecture.test.ts `DISK_BY_PATH`).
 */
import { readFileSync } from 'node:fs';
import { foreignCodeOf } from '../../vfs/index.js';
import { isMissingPath } from '../ports/index.js';
import { ManifestError } from './manifest-error.js';

/**
 * Reads `file` whole as UTF-8, following links as the user's path does. Throws `ManifestError`
 * `FILE_NOT_FOUND` ("the <kind> file does not exist") or `FILE_UNREADABLE` (with the system's
 * code), naming the file as the source and keeping the error as cause. Limits: no size bound and
 * no check of who owns the file or may change it: the user chose it, as they chose the command.
 */
export function authorityFileText(file: string, kind: 'manifest' | 'settings'): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if (isMissingPath(e)) throw new ManifestError('FILE_NOT_FOUND', '', `the ${kind} file does not exist`, { source: file }, { cause: e });
    const why = String(foreignCodeOf(e) ?? e);
    throw new ManifestError('FILE_UNREADABLE', '', `the ${kind} file cannot be read (${why})`, { source: file }, { cause: e });
  }
}
