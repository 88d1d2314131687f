/**
 * Where a run's artifacts live (src/host/platform/workspace-paths.ts): derived from the state
 * directory, a run name and a folder name that are checked first, so a forged record never
 * names a path.
 */
import { describe, expect, it } from 'vitest';
import { artifactFolderOf, inventoryFolderOf } from '../../src/host/platform/index.js';
import { isWorkspaceError } from '../../src/workspace-error.js';

const base = { repo: '/r', stateDir: '/r/.gatefs', join: (p: string, t: string) => `${p}/${t}` };

function reasonOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return isWorkspaceError(e) ? [e.code, e.data.reason] : e;
  }
  return 'no error';
}

describe('artifact paths', () => {
  it('a handoff folder and an inventory folder lie under <stateDir>/artifacts/<run>/', () => {
    expect(artifactFolderOf(base, 'default', 'planner-v1')).toBe('/r/.gatefs/artifacts/default/planner-v1');
    expect(artifactFolderOf(base, 'r-2', 'Code.Review_x-v12')).toBe('/r/.gatefs/artifacts/r-2/Code.Review_x-v12');
    expect(inventoryFolderOf(base, 'default', 'c1')).toBe('/r/.gatefs/artifacts/default/inventory/c1');
  });

  it('a forged run, folder or conversation names no path', () => {
    for (const run of ['..', '../x', 'A', '', 'a/b', '.staging', 'objects']) {
      expect(
        reasonOf(() => artifactFolderOf(base, run, 'planner-v1')),
        run,
      ).toEqual(['PREPARATION_FAILED', 'BAD_RUN_NAME']);
    }
    for (const folder of ['..', 'planner', 'planner-v0', 'a/b-v1', '.staging-planner-v1', 'inventory', '-v1', 'x-v1/..', 'p-v01']) {
      expect(
        reasonOf(() => artifactFolderOf(base, 'default', folder)),
        folder,
      ).toEqual(['PREPARATION_FAILED', 'BAD_ARTIFACT_FOLDER']);
    }
    expect(reasonOf(() => inventoryFolderOf(base, 'default', '../c'))).toEqual(['PREPARATION_FAILED', 'BAD_CONVERSATION_ID']);
    expect(reasonOf(() => inventoryFolderOf(base, 'x/y', 'c'))).toEqual(['PREPARATION_FAILED', 'BAD_RUN_NAME']);
  });
});
