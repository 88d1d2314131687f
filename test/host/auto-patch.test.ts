/**
 * Auto-patches as the user who reads one after a handoff would check it: the patch holds a
 * changed tracked file, a new untracked file, a binary file and a deletion, leaves ignored
 * `node_modules/` out, never runs the repository's filter or textconv driver, and `git apply` on a
 * fresh checkout of the pinned base reproduces the workspace's files. An unchanged workspace
 * still gets a record (0 files, 0 bytes). The memory host makes the same patch deterministically,
 * and the git program applies it too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeAutoPatch, type AutoPatchParts } from '../../src/host/artifacts/auto-patch.js';
import { createHost } from '../../src/host/composition/create-host.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { makeTempRepo } from './temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const BINARY = Buffer.from([
  0,
  1,
  2,
  255,
  254,
  0,
  137,
  80,
  78,
  71,
  13,
  10,
  26,
  10,
  ...Array.from({ length: 3000 }, (_, i) => (i * 7) % 256),
]);
const tools = ['read', 'write', 'list', 'delete'];

/** The parts of a host `makeAutoPatch` takes (the composition hands the same ones). */
function partsOf(host: unknown): AutoPatchParts {
  return (host as { parts: AutoPatchParts }).parts;
}

/** Gives `conversation` a visit of role `r` in run `run` (the one prepare gave it, if any). */
function visit(parts: AutoPatchParts, conversation: string, run = 'r1') {
  return parts.store.runs.startVisit(conversation, run, 'r', () => true)!;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' }, stdio: ['pipe', 'pipe', 'pipe'] });
}

function put(root: string, path: string, bytes: string | Uint8Array) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), bytes);
}

describe('auto-patch on disk', () => {
  async function setup() {
    const repo = makeTempRepo({
      'README.md': '# demo\n',
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 2;\n',
      'data/table.dat': 'raw bytes\n',
      '.gitignore': 'node_modules/\n',
      '.gitattributes': '*.dat filter=marker diff=marker\n',
    });
    cleanups.push(() => repo.cleanup());
    const markers = mkdtempSync(join(tmpdir(), 'gatefs-markers-'));
    cleanups.push(() => rmSync(markers, { recursive: true, force: true }));
    // Drivers the repository defines after its first commit: each would leave a marker if git ran it.
    for (const [key, name] of [
      ['filter.marker.clean', 'clean'],
      ['filter.marker.smudge', 'smudge'],
      ['diff.marker.textconv', 'textconv'],
    ] as const) {
      repo.git('config', key, `sh -c 'touch ${markers}/${name}; cat' --`);
    }
    const manifest = {
      roles: [
        { name: 'r', tools, workspace: { backend: 'worktree' } },
        { name: 'cp', tools, workspace: { backend: 'copy' } },
      ],
    };
    const host = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => host.close());
    return { repo, host, markers, parts: partsOf(host), folderOf: (c: string) => join(repo.dir, '.gatefs', 'worktrees', c) };
  }

  it('holds tracked, untracked and binary changes and a deletion, leaves ignored files out, runs no driver; git apply at the base reproduces the files', async () => {
    const { repo, host, markers, parts, folderOf } = await setup();
    await host.prepare({ conversation: 'a', role: 'r', run: 'r1' });
    visit(parts, 'a');
    const root = folderOf('a');
    put(root, 'README.md', '# demo\nmore\n');
    put(root, 'notes/new.md', 'a new note\n');
    put(root, 'img/logo.bin', BINARY);
    put(root, 'data/table.dat', 'raw bytes, changed\n');
    put(root, 'node_modules/pkg/index.js', 'module.exports = 1;\n');
    unlinkSync(join(root, 'src/b.ts'));

    const row = await makeAutoPatch(parts, 'a', 'handoff');
    expect(row).toMatchObject({ conversation: 'a', n: 1, run: 'r1', role: 'r', reason: 'handoff', files: 5 });
    expect(readdirMarkers(markers)).toEqual([]);
    const bytes = readFileSync(parts.platform.artifactStore.objectPath(row!.sha256));
    expect(bytes.length).toBe(row!.bytes);
    const text = bytes.toString('latin1');
    expect(text).toContain('diff --git a/README.md b/README.md');
    expect(text).toContain('diff --git a/notes/new.md b/notes/new.md');
    expect(text).toContain('GIT binary patch');
    expect(text).toContain('deleted file mode 100644');
    expect(text).toContain('+raw bytes, changed');
    expect(text).not.toContain('node_modules');
    expect(parts.store.runs.patches('a').map((p) => p.sha256)).toEqual([row!.sha256]);
    expect((await host.status()).find((r) => r.conversation === 'a')).toMatchObject({ patches: 1, latestPatch: row!.sha256 });
    const kept = (await host.events()).filter((e) => e.type === 'patch.kept');
    expect(kept.map((e) => e.data)).toEqual([{ n: 1, sha256: row!.sha256, bytes: row!.bytes, files: 5, reason: 'handoff' }]);
    // The workspace itself is as the agent left it: the patch is never applied anywhere.
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# demo\nmore\n');

    // A fresh checkout of the pinned base, without the drivers: the patch applies and gives the same files.
    repo.git('config', '--remove-section', 'filter.marker');
    repo.git('config', '--remove-section', 'diff.marker');
    const fresh = join(mkdtempSync(join(tmpdir(), 'gatefs-apply-')), 'wt');
    cleanups.push(() => rmSync(dirname(fresh), { recursive: true, force: true }));
    repo.git('worktree', 'add', '--detach', fresh, row!.baseSha);
    const patchFile = join(dirname(fresh), 'p.patch');
    writeFileSync(patchFile, bytes);
    git(fresh, 'apply', '--check', patchFile);
    git(fresh, 'apply', patchFile);
    for (const path of ['README.md', 'notes/new.md', 'img/logo.bin', 'data/table.dat']) {
      expect(readFileSync(join(fresh, path)).equals(readFileSync(join(root, path))), path).toBe(true);
    }
    expect(existsSync(join(fresh, 'src/b.ts'))).toBe(false);
    expect(existsSync(join(fresh, 'node_modules'))).toBe(false);
    expect(readdirMarkers(markers)).toEqual([]);
  });

  it('an unchanged workspace gets a patch record of 0 files and 0 bytes (the empty object)', async () => {
    const { host, parts, folderOf } = await setup();
    await host.prepare({ conversation: 'b', role: 'r', run: 'r1' });
    visit(parts, 'b');
    put(folderOf('b'), 'node_modules/only-ignored.js', 'x\n');
    const row = await makeAutoPatch(parts, 'b', 'end');
    expect(row).toMatchObject({ files: 0, bytes: 0, sha256: EMPTY_SHA256, reason: 'end' });
    expect(parts.platform.artifactStore.has(EMPTY_SHA256)).toBe(true);
    // The next one is number 2, after a change.
    put(folderOf('b'), 'later.txt', 'later\n');
    expect(await makeAutoPatch(parts, 'b', 'end')).toMatchObject({ n: 2, files: 1 });
  });

  it('answers null for a workspace that is not a worktree (a copy keeps no auto-patch)', async () => {
    const { host, parts } = await setup();
    await host.prepare({ conversation: 'c', role: 'cp', run: 'r1' });
    expect(await makeAutoPatch(parts, 'c', 'end')).toBeNull();
    expect(parts.store.runs.patches('c')).toEqual([]);
  });
});

describe('auto-patch on the memory host', () => {
  const files = {
    'README.md': '# demo\n',
    'src/a.ts': 'export const a = 1;\n',
    'src/b.ts': 'export const b = 2;\n',
    '.gitignore': 'node_modules/\n',
  };
  const manifest = { roles: [{ name: 'r', tools, workspace: { backend: 'worktree' } }] };

  async function play() {
    const host = await createMemoryHost({ files, manifest });
    const parts = partsOf(host);
    await host.prepare({ conversation: 'a', role: 'r', run: 'r1' });
    visit(parts, 'a');
    const w = async (path: string, content: string) => expect((await host.gate.call('a', 'write', { path, content })).ok).toBe(true);
    await w('README.md', '# demo\nmore\n');
    await w('notes/new.md', 'a new note\n');
    await w('node_modules/pkg/index.js', 'module.exports = 1;\n');
    await host.gate.call('a', 'delete', { path: 'src/b.ts' });
    // A binary file, as a command would write it.
    const volume = (
      parts.platform as unknown as { volume: { writeFileSync(p: string, b: Uint8Array): void; mkdirSync(p: string, o: object): void } }
    ).volume;
    const root = `${parts.platform.stateDir}/worktrees/a`;
    volume.mkdirSync(`${root}/img`, { recursive: true });
    volume.writeFileSync(`${root}/img/logo.bin`, BINARY);
    const row = await makeAutoPatch(parts, 'a', 'handoff');
    const bytes = Buffer.from(await parts.platform.artifactStore.read(row!.sha256));
    await host.close();
    return { row: row!, bytes };
  }

  it('is deterministic, leaves ignored files out, and the git program applies it to the same base', async () => {
    const first = await play();
    const second = await play();
    expect(second.row).toEqual(first.row);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(first.row).toMatchObject({ n: 1, reason: 'handoff', files: 4, bytes: first.bytes.length });
    const text = first.bytes.toString('latin1');
    expect(text).not.toContain('node_modules');
    expect(text).toContain('GIT binary patch');

    // The same files committed with the git program have the same blob ids: git apply checks them.
    const repo = makeTempRepo(files);
    cleanups.push(() => repo.cleanup());
    const patchFile = join(repo.dir, '..', 'p.patch');
    writeFileSync(patchFile, first.bytes);
    git(repo.dir, 'apply', '--check', patchFile);
    git(repo.dir, 'apply', patchFile);
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe('# demo\nmore\n');
    expect(readFileSync(join(repo.dir, 'notes/new.md'), 'utf8')).toBe('a new note\n');
    expect(readFileSync(join(repo.dir, 'img/logo.bin')).equals(BINARY)).toBe(true);
    expect(existsSync(join(repo.dir, 'src/b.ts'))).toBe(false);
  });
});

function readdirMarkers(folder: string): string[] {
  return ['clean', 'smudge', 'textconv'].filter((m) => existsSync(join(folder, m)));
}
