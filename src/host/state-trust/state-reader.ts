/**
 * `openStateReader`: the state database of an existing state directory, opened for looking only
 * (`gatefs log`): the same trust checks as `createHost` (`state-trust.ts`: a real folder of
 * yours, nothing in it tracked by git, a database whose origin was recorded here) before SQLite
 * sees the file, and the database's own record of its origin after, and nothing created — no state directory, no database, no `host.start` event,
 * no recovery. Where there is no database yet it answers null.
 *
 * Composition root like `createHost`: node:fs, the real host-exec port (one `git ls-files` in a
 * git repository) and the system clock come in here.
 */
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { CliGit } from '../../git/index.js';
import { systemClock } from '../../ports/index.js';
import { NodeHostExec } from '../../ports/index.js';
import type { EventFilter, RunEvent } from '../../state/index.js';
import { StateStore } from '../../state/index.js';
import { ownUid } from '../../ports/index.js';
import { checkOrigin, recordOriginOf, waitForOrigin } from './state-origin-check.js';
import { inspectStateDir } from './state-trust.js';
import { refuseTracked } from './tracked-state.js';
import { DATABASE_FILE } from './untrusted-state.js';

/** What `openStateReader` gives: the run log, and `close`. */
export interface StateReader {
  /** Run-log events matching `filter`, oldest first (see `EventFilter`). */
  events(filter?: EventFilter): RunEvent[];
  close(): void;
}

/** Where to look: the repository and, when not `<repo>/.gatefs`, the state directory. */
interface StateReaderOptions {
  repo: string;
  stateDir?: string;
}

/**
 * Opens the state database for reading, or resolves to null when the repository folder or the
 * state directory or its database does not exist. Throws `WorkspaceError` `STATE_UNTRUSTED`
 * (what `createHost` throws for the same state) and `StateError` `OPEN_FAILED`.
 */
export async function openStateReader(options: StateReaderOptions): Promise<StateReader | null> {
  const given = resolve(options.repo);
  if (!fs.statSync(given, { throwIfNoEntry: false })?.isDirectory()) return null;
  const repo = fs.realpathSync(given);
  const stateDir = resolve(options.stateDir ?? join(repo, '.gatefs'));
  const uid = ownUid();
  const found = inspectStateDir(stateDir, uid);
  if (!found.hasDatabase) return null;
  const git = new CliGit({ repo, exec: new NodeHostExec(), fs });
  const context = { tag: 'start', chain: [] };
  if (await git.isRepository(context)) {
    const dir = fs.realpathSync(stateDir);
    const shown = dir.startsWith(`${repo}/`) ? dir.slice(repo.length + 1) : dir;
    refuseTracked(dir, shown, await git.trackedUnder(dir, context));
  }
  await waitForOrigin(stateDir, systemClock.now());
  checkOrigin(stateDir, uid);
  const real = fs.realpathSync(stateDir);
  const store = StateStore.open(join(real, DATABASE_FILE), { clock: systemClock });
  try {
    recordOriginOf(store, real, uid ?? 0, false);
  } catch (e) {
    store.close();
    throw e;
  }
  return {
    events: (filter) => store.runLog.read(filter),
    close: () => store.close(),
  };
}
