/**
 * A file grep cannot read because the store fails (`EIO` → `INTERNAL`) is not a file without
 * matches: the call answers `INTERNAL` instead of leaving it out of the results. Files grep
 * skips on purpose (binary, too large, vanished) are still skipped.
 */
import { describe, expect, it } from 'vitest';
import { fromErrno } from '../../vfs/errors.js';
import type { DirEntry, Layer, ReadOptions, Stat } from '../../vfs/layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { addWorkspace, errorOf, setupGate, valueOf } from './workspace-fixture.js';

/** The memory layer, except that reading `failing` fails as a disk error would. */
function failingRead(inner: MemoryLayer, failing: string): Layer {
  return {
    kind: 'failing-read',
    stat: (path: string): Promise<Stat> => inner.stat(path),
    readdir: (path: string): Promise<DirEntry[]> => inner.readdir(path),
    readFile: async (path: string, options?: ReadOptions): Promise<Uint8Array> => {
      if (path === failing) throw fromErrno({ code: 'EIO' }, 'read', path);
      return inner.readFile(path, options);
    },
  };
}

describe('grep over a file the store cannot read', () => {
  it('answers INTERNAL instead of reporting the other files as all the matches', async () => {
    const setup = setupGate();
    const inner = new MemoryLayer({ files: { 'a.ts': 'TODO one\n', 'b.ts': 'TODO two\n', 'bin.dat': Buffer.from([0x54, 0, 1]) } });
    addWorkspace(setup, 'a', { layer: failingRead(inner, 'b.ts') });
    expect(errorOf(await setup.gate.call('a', 'grep', { pattern: 'TODO' }))).toMatchObject({ code: 'INTERNAL' });
    addWorkspace(setup, 'b', { layer: failingRead(inner, 'nothing.ts') });
    expect(valueOf(await setup.gate.call('b', 'grep', { pattern: 'TODO' }))).toMatchObject({ files: ['a.ts', 'b.ts'] });
  });
});
