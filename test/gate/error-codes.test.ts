import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VfsError, fromErrno } from '../../vfs/errors.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { openHostLayer } from '../../vfs/host-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { TOOL_ERROR_CODES, TOOL_ERROR_DOCS, type ToolErrorCode } from '../../tools/codes.js';
import type { ToolResult } from '../../tools/result.js';
import { addWorkspace, setupGate } from '../tools/workspace-fixture.js';
import { makeChain, removeDeep } from '../security/deep-chain.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { ScriptedSandbox } from '../../src/ports/scripted-sandbox.js';

/** A memory host whose worktree conversation `w` may diff, commit and submit. */
const landing = (async () => {
  const host = await createMemoryHost({
    files: { 'f.txt': 'x\n' },
    manifest: { roles: [{ name: 'agent', tools: ['read', 'write', 'commit', 'submit'], workspace: { backend: 'worktree' } }] },
  });
  await host.prepare({ conversation: 'w' });
  return host;
})();

/** A memory host whose copy conversation `c` declares diff, commit and submit, which a copy cannot do. */
const copying = (async () => {
  const host = await createMemoryHost({
    files: { 'f.txt': 'x\n' },
    manifest: { roles: [{ name: 'agent', tools: ['read', 'diff', 'commit', 'submit'], workspace: { backend: 'copy' } }] },
  });
  await host.prepare({ conversation: 'c' });
  return host;
})();

/** A memory host whose copy conversation `s` may checkpoint and roll back. */
const snapshotting = (async () => {
  const host = await createMemoryHost({
    files: { 'f.txt': 'x\n' },
    manifest: { roles: [{ name: 'agent', tools: ['read', 'checkpoint', 'rollback'], workspace: { backend: 'copy' } }] },
  });
  await host.prepare({ conversation: 's' });
  return host;
})();

/** A memory host whose copy conversation `e` has ended its visit (and its run) with `end`. */
const ended = (async () => {
  const host = await createMemoryHost({
    files: { 'f.txt': 'x\n' },
    manifest: { roles: [{ name: 'agent', tools: ['read', 'end'], workspace: { backend: 'copy' } }] },
  });
  await host.prepare({ conversation: 'e' });
  await host.gate.call('e', 'end', {});
  return host;
})();

/** A memory host whose worktree conversation `b` may detach (and has attached nothing). */
const binding = (async () => {
  const host = await createMemoryHost({
    files: { 'f.txt': 'x\n' },
    manifest: { roles: [{ name: 'agent', tools: ['read', 'detach'], workspace: { backend: 'worktree' } }] },
  });
  await host.prepare({ conversation: 'b' });
  return host;
})();

/** A memory host on a machine where no sandbox can run: its agent declares exec. */
const unsandboxed = (async () => {
  const host = await createMemoryHost({
    files: { 'f.txt': 'x\n' },
    manifest: { roles: [{ name: 'agent', tools: ['read', 'exec'] }] },
    sandbox: new ScriptedSandbox({ cause: 'bubblewrap is not installed', fix: 'apt-get install bubblewrap' }),
  });
  await host.prepare({ conversation: 'x' });
  return host;
})();

const SHA0 = '0'.repeat(64);
const temp = mkdtempSync(join(tmpdir(), 'gatefs-codes-'));
const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
  removeDeep(temp);
});

function world() {
  const s = setupGate({ occupancy: { blockingHolder: (conv) => (conv === 'held' ? 'someone' : undefined) } });
  const layer = new MemoryLayer({ root: '/ws', files: { 'f.txt': 'x x\n', bin: new Uint8Array([0, 1]), '.git/config': '[core]' } });
  layer.volume.writeFileSync('/ws/big.txt', Buffer.alloc(10 * 1024 * 1024 + 1, 'a'));
  layer.volume.mkdirSync('/outside');
  layer.volume.symlinkSync('/outside', '/ws/link');
  // A layer whose file is held back by disclosure, as the sparse projection does before request_files.
  const undisclosed = new MemoryLayer({ files: { 'secret.ts': 's' } });
  undisclosed.readFile = async (path: string) => {
    throw new VfsError('NOT_DISCLOSED', 'read', path);
  };
  const hostDir = join(temp, 'host');
  mkdirSync(hostDir);
  writeFileSync(join(hostDir, 'plain.txt'), 'p');
  execFileSync('mkfifo', [join(hostDir, 'fifo')]);
  // A folder chain deeper than any path can name (2,050 levels below the mount /host).
  mkdirSync(join(hostDir, 'deep'));
  makeChain(join(hostDir, 'deep'), { depth: 2050 });
  const hostLayer = openHostLayer(hostDir);
  closers.push(() => hostLayer.close());
  addWorkspace(s, 'a', {
    layer,
    tools: ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move'],
    mounts: [
      { path: '/worktrees/a/ro', layer: readOnly(new MemoryLayer({ files: { 'r.txt': 'r' } })), writable: false },
      { path: '/snap', layer: undisclosed, writable: false },
      { path: '/host', layer: hostLayer, writable: true },
    ],
  });
  addWorkspace(s, 'reader', { tools: ['read'] });
  addWorkspace(s, 'prep', { state: 'preparing' });
  addWorkspace(s, 'gone', { state: 'released' });
  addWorkspace(s, 'held', { files: { f: 'f' } });
  const broken = new MemoryLayer({ files: { f: 'f' } });
  broken.stat = async () => {
    throw new TypeError('boom');
  };
  addWorkspace(s, 'broken', { layer: broken });
  // A host out of descriptors: node:fs fails with EMFILE, which the layers map to BUSY.
  const starved = new MemoryLayer({ files: { f: 'f' } });
  starved.readFile = async (path: string) => {
    throw fromErrno(Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' }), 'read', path);
  };
  addWorkspace(s, 'starved', { layer: starved });
  return s;
}

describe('error codes', () => {
  const s = world();
  const call = (conv: string, tool: string, args: unknown) => s.gate.call(conv, tool, args);
  const producers: Record<ToolErrorCode, () => Promise<ToolResult>> = {
    INVALID_INPUT: () => call('a', 'read', { path: 1 }),
    UNKNOWN_CONVERSATION: () => call('nobody', 'read', { path: 'f.txt' }),
    WORKSPACE_NOT_READY: () => call('prep', 'read', { path: 'f.txt' }),
    WORKSPACE_RELEASED: () => call('gone', 'read', { path: 'f.txt' }),
    TOOL_NOT_ALLOWED: () => call('reader', 'write', { path: 'f.txt', content: '' }),
    PATH_ESCAPE: () => call('a', 'read', { path: '../b/f.txt' }),
    OUTSIDE_MOUNTS: () => call('a', 'read', { path: '/etc/passwd' }),
    BAD_NAME: () => call('a', 'read', { path: 'a\\b' }),
    NAME_TOO_LONG: () => call('a', 'write', { path: `${'n'.repeat(300)}.txt`, content: '' }),
    SYMLINK_ESCAPE: () => call('a', 'list', { path: 'link' }),
    NOT_FOUND: () => call('a', 'read', { path: 'missing.txt' }),
    NOT_DISCLOSED: () => call('a', 'read', { path: '/snap/secret.ts' }),
    IS_DIRECTORY: () => call('a', 'read', { path: 'ro' }),
    NOT_DIRECTORY: () => call('a', 'list', { path: 'f.txt' }),
    NOT_REGULAR_FILE: () => call('a', 'read', { path: '/host/fifo' }),
    ALREADY_EXISTS: () => call('a', 'write', { path: 'f.txt', content: '', expectedSha256: null }),
    READ_ONLY: () => call('a', 'write', { path: 'ro/r.txt', content: '' }),
    PROTECTED_PATH: () => call('a', 'edit', { path: '.git/config', oldString: 'core', newString: 'x' }),
    OCCUPIED: () => call('held', 'write', { path: 'f', content: 'g' }),
    TOO_LARGE: () => call('a', 'edit', { path: 'big.txt', oldString: 'a', newString: 'b' }),
    BINARY_FILE: () => call('a', 'read', { path: 'bin' }),
    NO_MATCH: () => call('a', 'edit', { path: 'f.txt', oldString: 'y', newString: 'z' }),
    AMBIGUOUS_MATCH: () => call('a', 'edit', { path: 'f.txt', oldString: 'x', newString: 'z' }),
    STALE_CONTENT: () => call('a', 'write', { path: 'f.txt', content: '', expectedSha256: SHA0 }),
    BUSY: () => call('starved', 'read', { path: 'f' }),
    TOO_DEEP: () => call('a', 'grep', { pattern: 'x', path: '/host/deep' }),
    DIRTY_WORKTREE: async () => {
      const host = await landing;
      await host.gate.call('w', 'write', { path: 'new.txt', content: 'n' });
      const result = await host.gate.call('w', 'submit', { divergence: 'None' });
      await host.gate.call('w', 'commit', { message: 'new' });
      await host.gate.call('w', 'submit', { divergence: 'None' });
      await host.lander.run();
      return result;
    },
    QUEUE_REJECTED: async () => (await landing).gate.call('w', 'submit', { divergence: 'None' }),
    NOT_A_WORKTREE: async () => (await copying).gate.call('c', 'diff', {}),
    BACKEND_UNAVAILABLE: async () => (await unsandboxed).gate.call('x', 'exec', { command: 'true' }),
    CROSS_MOUNT: () => call('a', 'move', { from: 'f.txt', to: '/host/f.txt' }),
    SNAPSHOT_NOT_FOUND: async () => (await snapshotting).gate.call('s', 'rollback', { snapshotId: '99' }),
    VISIT_ENDED: async () => (await ended).gate.call('e', 'end', {}),
    NOT_ATTACHED: async () => (await binding).gate.call('b', 'detach', { workspace: '/canonical' }),
    INTERNAL: () => call('broken', 'list', {}),
  };

  it.each(TOOL_ERROR_CODES.map((c) => [c]))('%s is produced by some input', async (code) => {
    const result = await producers[code]();
    expect(result.ok ? 'ok' : result.error.code).toBe(code);
    if (!result.ok) expect(result.error.message).not.toContain(temp);
  });

  it('every code is documented in one line, and nothing else is', () => {
    expect(Object.keys(TOOL_ERROR_DOCS).sort()).toEqual([...TOOL_ERROR_CODES].sort());
    for (const code of TOOL_ERROR_CODES) {
      expect(TOOL_ERROR_DOCS[code].length).toBeGreaterThan(20);
      expect(TOOL_ERROR_DOCS[code]).not.toContain('\n');
    }
  });
});
