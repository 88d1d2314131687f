/**
 * A handoff under SIGKILL: it runs in a real child process that kills itself at each save point
 * (`ARTIFACT_SAVE_POINTS`: objects stored and durable, folder renamed into place, record
 * committed; and a temp file of a writer killed mid-object). After the kill, a new host finds no half-stored object (no temp file, every object
 * holding the bytes its name hashes), no record naming a missing object or folder, and no folder
 * without its record; a handoff cut short before its record can be made again and collects
 * everything, one whose record was committed stays made (`VISIT_ENDED`).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACT_SAVE_POINTS } from '../../src/host/artifacts/artifact-types.js';
import { createHost } from '../../src/host/composition/create-host.js';
import { runChildScript } from './run-child-script.js';
import { makeTempRepo } from './temp-repo.js';

const manifest = {
  roles: [
    { name: 'maker', tools: ['read', 'write', 'handoff'], workspace: { backend: 'worktree' }, artifacts: { auto_patch: false } },
    { name: 'checker', tools: ['read', 'end'], workspace: { backend: 'copy' } },
  ],
};
const files: Record<string, string> = {};
for (let i = 0; i < 12; i++) files[`out/part-${i}.txt`] = `part ${i}\n`.repeat(2000 + i);
files['out/same-a.txt'] = 'same\n';
files['out/same-b.txt'] = 'same\n';

/** What the store holds: temp names, objects whose bytes do not hash to their name, run folders, and records. */
function storeState(stateDir: string) {
  const objects = join(stateDir, 'artifacts/objects');
  const names = existsSync(objects) ? readdirSync(objects) : [];
  const temps = names.filter((n) => n.startsWith('.tmp-'));
  const wrong = names.filter(
    (n) =>
      !n.startsWith('.') &&
      createHash('sha256')
        .update(readFileSync(join(objects, n)))
        .digest('hex') !== n,
  );
  const runDir = join(stateDir, 'artifacts/r');
  const folders = existsSync(runDir) ? readdirSync(runDir).sort() : [];
  return { names, temps, wrong, folders };
}

describe.each(ARTIFACT_SAVE_POINTS.map((p) => [p]))('a handoff killed at %s', (point) => {
  it('leaves no half-stored object, no record pointing at nothing, no record-less folder; retrying works', {
    timeout: 120_000,
  }, async () => {
    const repo = makeTempRepo({ 'README.md': '# demo\n' });
    try {
      const stateDir = join(repo.dir, '.gatefs');
      const first = await createHost({ repo: repo.dir, manifest });
      await first.prepare({ conversation: 'a', role: 'maker', run: 'r' });
      await first.close();
      const root = join(stateDir, 'worktrees/a');
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(join(root, dirname(path)), { recursive: true });
        writeFileSync(join(root, path), content);
      }
      const declared = Object.keys(files);

      const child = await runChildScript('artifacts-child.ts', {
        repo: repo.dir,
        manifest,
        conversation: 'a',
        to: 'checker',
        files: declared,
        crashAt: point,
      });
      expect(child.signal, child.stderr).toBe('SIGKILL');
      // The kill leaves the objects (and, from the rename on, the folder) as the child made them.
      const before = storeState(stateDir);
      expect(before.wrong).toEqual([]);
      expect(before.folders).toEqual(point === 'artifacts.stored' ? [] : ['maker-v1']);
      expect(before.names.filter((n) => !n.startsWith('.'))).toHaveLength(declared.length - 1);

      // A writer killed in the middle of an object leaves its temp file (named by its pid).
      writeFileSync(join(stateDir, 'artifacts/objects/.tmp-4194300-0a1b2c'), 'half an obj');

      const host = await createHost({ repo: repo.dir, manifest });
      try {
        const after = storeState(stateDir);
        expect(after.temps).toEqual([]);
        expect(after.wrong).toEqual([]);
        const records = host.runs.status('r').handoffs;
        if (point === 'artifacts.recorded') {
          // Made: the record, its folder and every object it names are there.
          expect(records).toHaveLength(1);
          expect(after.folders).toEqual(['maker-v1']);
          for (const a of host.runs.artifacts('r')) {
            expect(a.record).toBe('artifact_collected');
            expect(readFileSync(a.storePath!, 'utf8')).toBe(files[a.path]);
            expect(after.names).toContain(a.sha256);
          }
          await expect(host.runs.handoff('a', { to: 'checker', files: declared })).rejects.toMatchObject({ code: 'VISIT_ENDED' });
        } else {
          // Not made: no record, and the folder the child renamed into place (if it got there) is gone.
          expect(records).toEqual([]);
          expect(after.folders).toEqual([]);
          const retried = await host.runs.handoff('a', { to: 'checker', files: declared });
          expect(retried.collected).toHaveLength(declared.length);
          expect(retried.rejected).toEqual([]);
          const listed = host.runs.artifacts('r');
          for (const a of listed) expect(readFileSync(a.storePath!, 'utf8')).toBe(files[a.path]);
          expect(storeState(stateDir).folders).toEqual(['maker-v1']);
        }
      } finally {
        await host.close();
      }
    } finally {
      repo.cleanup();
    }
  });
});
