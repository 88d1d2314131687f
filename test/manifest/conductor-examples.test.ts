/**
 * The two Conductor-style example manifests (examples/conductor/) load as files, and say what a
 * user reading them expects: the roles in order, their tools (handoff and end where the pipeline
 * needs them), backends, `max_visits`, artifact caps and auto-patches; `workspace.source: snapshot`
 * is written in them and accepted; each starts with a comment that says how to try it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../src/manifest/index.js';
import { parseManifestText } from '../../src/manifest/load.js';

const folder = join(import.meta.dirname, '../../examples/conductor');
const file = (name: string) => join(folder, name);

/** What a user checks of each role. */
function summary(path: string) {
  return loadManifest(path).roles.map((r) => ({
    name: r.name,
    backend: r.workspace.backend,
    tools: r.tools,
    maxVisits: r.maxVisits,
    artifacts: r.artifacts,
  }));
}

describe('examples/conductor/isolated-pipeline.yaml', () => {
  it('has a read-only planner, an implementer of at most 3 visits and a reviewer that hands back or ends', () => {
    expect(summary(file('isolated-pipeline.yaml'))).toEqual([
      {
        name: 'planner',
        backend: 'copy',
        tools: ['read', 'grep', 'list', 'handoff'],
        maxVisits: null,
        artifacts: { autoPatch: false, maxFileBytes: 65536, maxFiles: 4 },
      },
      {
        name: 'implementer',
        backend: 'worktree',
        tools: ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move', 'handoff'],
        maxVisits: 3,
        artifacts: { autoPatch: true, maxFileBytes: 1048576, maxFiles: 32 },
      },
      {
        name: 'reviewer',
        backend: 'worktree',
        tools: ['read', 'grep', 'list', 'handoff', 'end'],
        maxVisits: null,
        artifacts: { autoPatch: false, maxFileBytes: 262144, maxFiles: 8 },
      },
    ]);
  });
});

describe('examples/conductor/shared-review.yaml', () => {
  it('has an isolated implementer handing to a shared reviewer that ends the run', () => {
    expect(summary(file('shared-review.yaml'))).toEqual([
      {
        name: 'implementer',
        backend: 'worktree',
        tools: ['read', 'grep', 'list', 'edit', 'write', 'handoff'],
        maxVisits: 2,
        artifacts: { autoPatch: true, maxFileBytes: 1048576, maxFiles: 32 },
      },
      {
        name: 'reviewer',
        backend: 'shared',
        tools: ['read', 'grep', 'list', 'end'],
        maxVisits: 1,
        artifacts: { autoPatch: false, maxFileBytes: 1048576, maxFiles: 32 },
      },
    ]);
  });
});

describe('both examples', () => {
  it.each(['isolated-pipeline.yaml', 'shared-review.yaml'])(
    '%s writes source: snapshot, starts with a comment and names its roles in handoffs',
    (name) => {
      const text = readFileSync(file(name), 'utf8');
      expect(text.match(/^\s+source: snapshot$/gm)?.length).toBeGreaterThanOrEqual(1);
      expect(text.startsWith('# ')).toBe(true);
      expect(text).toContain(`--manifest examples/conductor/${name}`);
      // Every role that hands off has a name its artifact folder (<role>-v<visit>) can carry.
      for (const role of loadManifest(file(name)).roles.filter((r) => r.tools.includes('handoff'))) {
        expect(role.name).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/);
      }
    },
  );

  it('without source: snapshot they load to the same roles (the key changes nothing)', () => {
    for (const name of ['isolated-pipeline.yaml', 'shared-review.yaml']) {
      const text = readFileSync(file(name), 'utf8').replace(/^\s+source: snapshot\n/gm, '');
      expect(text).not.toContain('source:');
      expect(parseManifestText(text, name)).toEqual(loadManifest(file(name)));
    }
  });
});
