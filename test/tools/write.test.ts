import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { addWorkspace, errorOf, setupGate, text, valueOf } from './workspace-fixture.js';

const sha = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

function setup(files: Record<string, string> = {}) {
  const s = setupGate();
  const layer = new MemoryLayer({ root: '/ws', files });
  const campaign = new MemoryLayer({ files: { 'plan.md': 'plan' } });
  const out = new MemoryLayer();
  const w = addWorkspace(s, 'a', {
    layer,
    mounts: [
      { path: '/worktrees/a/.campaign', layer: readOnly(campaign), writable: false },
      { path: '/data/out', layer: out, writable: true },
      { path: '/data/ref', layer: new MemoryLayer({ files: { 'r.txt': 'r' } }), writable: false },
    ],
  });
  return { ...s, ...w, layer, campaign, out, write: (args: unknown) => s.gate.call('a', 'write', args) };
}

describe('write', () => {
  it('creates a file with its missing parent folders and reports bytes, sha256, created', async () => {
    const { write, layer } = setup();
    const v = valueOf(await write({ path: 'src/deep/new.txt', content: 'héllo\n' }));
    expect(v).toEqual({ path: 'src/deep/new.txt', bytes: 7, sha256: sha('héllo\n'), created: true });
    expect(text(await layer.readFile('src/deep/new.txt'))).toBe('héllo\n');
  });

  it('replaces an existing file, keeping its mode', async () => {
    const { write, layer } = setup({ 'run.sh': '#!/bin/sh\n' });
    layer.volume.chmodSync('/ws/run.sh', 0o755);
    const v = valueOf(await write({ path: 'run.sh', content: '#!/bin/sh\necho hi\n' }));
    expect(v.created).toBe(false);
    expect((await layer.stat('run.sh')).mode).toBe(0o755);
    expect(text(await layer.readFile('run.sh'))).toBe('#!/bin/sh\necho hi\n');
  });

  it('expectedSha256: null creates only; a hash must match the current bytes', async () => {
    const { write, layer } = setup({ 'a.txt': 'old' });
    expect(errorOf(await write({ path: 'a.txt', content: 'x', expectedSha256: null }))).toMatchObject({
      code: 'ALREADY_EXISTS',
      path: 'a.txt',
    });
    expect(valueOf(await write({ path: 'b.txt', content: 'b', expectedSha256: null })).created).toBe(true);
    const stale = errorOf(await write({ path: 'a.txt', content: 'x', expectedSha256: sha('other') }));
    expect(stale.code).toBe('STALE_CONTENT');
    expect(text(await layer.readFile('a.txt'))).toBe('old');
    expect(errorOf(await write({ path: 'gone.txt', content: 'x', expectedSha256: sha('old') })).code).toBe('STALE_CONTENT');
    expect(valueOf(await write({ path: 'a.txt', content: 'new', expectedSha256: sha('old').toUpperCase() })).created).toBe(false);
    expect(text(await layer.readFile('a.txt'))).toBe('new');
  });

  it('writes into a writable absolute mount and refuses read-only mounts, nested or absolute', async () => {
    const { write, out, campaign } = setup();
    expect(valueOf(await write({ path: '/data/out/report/r.md', content: 'r' })).path).toBe('/data/out/report/r.md');
    expect(text(await out.readFile('report/r.md'))).toBe('r');
    expect(errorOf(await write({ path: '.campaign/plan.md', content: 'changed' }))).toMatchObject({
      code: 'READ_ONLY',
      path: '.campaign/plan.md',
    });
    expect(errorOf(await write({ path: '.campaign/new/x.md', content: 'x' })).code).toBe('READ_ONLY');
    expect(errorOf(await write({ path: '/data/ref/r.txt', content: 'x' })).code).toBe('READ_ONLY');
    expect(text(await campaign.readFile('plan.md'))).toBe('plan');
    await expect(campaign.stat('new')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('never writes .git: config, hooks, or a linked worktree .git file', async () => {
    const { write, layer } = setup({ '.git': 'gitdir: /repo/.git/worktrees/a\n', 'sub/.git/config': '[core]\n' });
    for (const path of [
      '.git',
      '.git/config',
      '.git/hooks/pre-commit',
      'sub/.git/config',
      'sub/.git/hooks/post-checkout',
      '/worktrees/a/./x/../.git',
    ]) {
      expect(errorOf(await write({ path, content: 'evil' }))).toMatchObject({ code: 'PROTECTED_PATH' });
    }
    expect(text(await layer.readFile('.git'))).toBe('gitdir: /repo/.git/worktrees/a\n');
    expect(text(await layer.readFile('sub/.git/config'))).toBe('[core]\n');
    expect(layer.volume.existsSync('/ws/.git/hooks')).toBe(false);
  });

  it('refuses a folder as target, a file as parent, and a symlink parent', async () => {
    const { write, layer } = setup({ 'dir/x': 'x', file: 'f' });
    layer.volume.mkdirSync('/outside');
    layer.volume.symlinkSync('/outside', '/ws/link');
    expect(errorOf(await write({ path: 'dir', content: 'x' })).code).toBe('IS_DIRECTORY');
    expect(errorOf(await write({ path: 'file/child', content: 'x' })).code).toBe('NOT_DIRECTORY');
    expect(errorOf(await write({ path: 'link/escaped', content: 'x' })).code).toBe('SYMLINK_ESCAPE');
    expect(layer.volume.readdirSync('/outside')).toEqual([]);
  });

  describe('syntax errors the new content introduced', () => {
    it('a new source file: every error it has, with line and column; the file is written all the same', async () => {
      const { write, layer } = setup();
      const v = valueOf(await write({ path: 'src/app.py', content: 'def main(:\n    return 1\n' }));
      expect(text(await layer.readFile('src/app.py'))).toBe('def main(:\n    return 1\n');
      expect(v.syntax).toMatchObject({ language: 'python', checked: true });
      expect(v.syntax.introducedCount).toBeGreaterThan(0);
      expect(v.syntax.introduced[0]).toMatchObject({ line: 1 });
      const clean = valueOf(await write({ path: 'src/ok.rs', content: 'fn main() {\n    println!("hi");\n}\n' }));
      expect(clean.syntax).toEqual({ language: 'rust', checked: true, introduced: [], introducedCount: 0 });
    });

    it('replacing a file: only errors the old content did not have, with or without expectedSha256', async () => {
      const old = 'const a = ;\nexport const b = 2;\n';
      const { write } = setup({ 'a.ts': old, 'b.ts': old });
      const same = valueOf(await write({ path: 'a.ts', content: `// header\n${old}` }));
      expect(same.syntax).toMatchObject({ checked: true, introducedCount: 0 });
      const worse = valueOf(await write({ path: 'b.ts', content: `${old}export function f( {\n`, expectedSha256: sha(old) }));
      expect(worse.syntax.introducedCount).toBeGreaterThan(0);
      expect(worse.syntax.introduced.every((e: { line: number }) => e.line >= 3)).toBe(true);
    });

    it('says nothing for files it has no grammar for, and skips files over 1 Mi characters', async () => {
      const { write } = setup();
      expect(valueOf(await write({ path: 'notes.md', content: '# (' })).syntax).toBeUndefined();
      const big = valueOf(await write({ path: 'big.js', content: `${'x = 1;\n'.repeat(150_000)}` }));
      expect(big.syntax).toMatchObject({ language: 'javascript', checked: false, reason: expect.stringContaining('not parsed') });
    });

    it('gives up past its parse budget (counted in parser steps, the same on every machine) and says so', async () => {
      const { write, layer } = setup();
      const content = 'x = 1;\n'.repeat(120_000);
      const v = valueOf(await write({ path: 'long.js', content }));
      expect(v.syntax).toMatchObject({ language: 'javascript', checked: false, reason: expect.stringContaining('work budget') });
      expect(text(await layer.readFile('long.js'))).toBe(content);
    });
  });
});
