import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHostLayer } from '../../vfs/host-layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { addWorkspace, errorOf, setupGate, valueOf } from './workspace-fixture.js';

function setup() {
  const s = setupGate();
  const layer = new MemoryLayer({
    root: '/ws',
    files: {
      'README.md': 'hello',
      'src/a.ts': 'aaa',
      'src/b.js': 'b',
      'src/sub/c.ts': 'cc',
      '.github/ci.yml': 'y',
      '.git/config': 'c',
      'e/.keep': '',
    },
  });
  layer.volume.mkdirSync('/outside');
  layer.volume.writeFileSync('/outside/secret.ts', 'SENTINEL');
  layer.volume.symlinkSync('/outside', '/ws/src/link');
  const campaign = new MemoryLayer({ files: { 'plan.md': 'plan!', 'notes/n.ts': 'n' } });
  addWorkspace(s, 'a', {
    layer,
    mounts: [
      { path: '/worktrees/a/.campaign', layer: readOnly(campaign), writable: false },
      { path: '/data/out', layer: new MemoryLayer({ files: { 'o.ts': 'o' } }), writable: true },
    ],
  });
  return { ...s, list: (args: unknown) => s.gate.call('a', 'list', args) };
}

describe('list', () => {
  it('lists the root with mount points, types and sizes, sorted', async () => {
    const { list } = setup();
    expect(valueOf(await list({})).entries).toEqual([
      { path: '.campaign', type: 'directory', size: 0 },
      { path: '.github', type: 'directory', size: 0 },
      { path: 'README.md', type: 'file', size: 5 },
      { path: 'e', type: 'directory', size: 0 },
      { path: 'src', type: 'directory', size: 0 },
    ]);
  });

  it('lists one folder and shows a symlink without following it', async () => {
    const { list } = setup();
    const v = valueOf(await list({ path: 'src' }));
    expect(v.entries.map((e: { path: string; type: string }) => `${e.path}:${e.type}`)).toEqual([
      'src/a.ts:file',
      'src/b.js:file',
      'src/link:symlink',
      'src/sub:directory',
    ]);
    expect(v.truncated).toBe(false);
    expect(errorOf(await list({ path: 'src/link' })).code).toBe('SYMLINK_ESCAPE');
  });

  it('finds by glob across folders and mounts, never descending links or .git', async () => {
    const { list } = setup();
    const v = valueOf(await list({ pattern: '**/*.ts' }));
    expect(v.entries.map((e: { path: string }) => e.path)).toEqual(['.campaign/notes/n.ts', 'src/a.ts', 'src/sub/c.ts']);
    expect(JSON.stringify(v)).not.toContain('secret');
    expect(valueOf(await list({ pattern: '*.md' })).entries.map((e: { path: string }) => e.path)).toEqual(['README.md']);
    expect(valueOf(await list({ path: 'src', pattern: 'sub/*' })).entries.map((e: { path: string }) => e.path)).toEqual(['src/sub/c.ts']);
    expect(valueOf(await list({ pattern: '.github/**' })).entries.map((e: { path: string }) => e.path)).toEqual([
      '.github',
      '.github/ci.yml',
    ]); // picomatch: '**' also matches zero segments
    expect(valueOf(await list({ path: '/data/out', pattern: '**' })).entries).toEqual([{ path: '/data/out/o.ts', type: 'file', size: 1 }]);
  });

  it('reads braces and negated classes, and refuses brace bombs and extglobs naming the field', async () => {
    const { list } = setup();
    const paths = (r: Awaited<ReturnType<typeof list>>) => valueOf(r).entries.map((e: { path: string }) => e.path);
    expect(paths(await list({ pattern: '{src,.github}/*.{ts,yml}' }))).toEqual(['.github/ci.yml', 'src/a.ts']);
    expect(paths(await list({ pattern: 'src/[!a]*' }))).toEqual(['src/b.js', 'src/link', 'src/sub']);
    expect(paths(await list({ pattern: '*/**/c.ts' }))).toEqual(['src/sub/c.ts']);
    for (const [pattern, message] of [
      ['{a,b,c,d}'.repeat(6), /^pattern: braces expand to more than 1024 alternatives/],
      ['src/+(a|b).ts', /^pattern: the extglob '\+\(…\)' is not supported/],
    ] as const) {
      const e = errorOf(await list({ pattern }));
      expect(e.code).toBe('INVALID_INPUT');
      expect(e.message).toMatch(message);
    }
  });

  it('walks a pattern like packages/*/src/** by looking up the names it spells out, listing only what can match', async () => {
    const files: Record<string, string> = { 'README.md': 'r' };
    for (const p of ['ui', 'db', 'cli']) {
      files[`packages/${p}/package.json`] = '{}';
      files[`packages/${p}/lib/index.js`] = 'x';
      if (p !== 'cli') files[`packages/${p}/src/index.ts`] = 'x';
    }
    files['packages/ui/src/deep/a.ts'] = 'x';
    files['docs/guide.md'] = 'g';
    const layer = new MemoryLayer({ files });
    const listed: string[] = [];
    const readdir = layer.readdir.bind(layer);
    layer.readdir = async (p: string) => {
      listed.push(p);
      return readdir(p);
    };
    const s = setupGate();
    addWorkspace(s, 'a', { layer });
    const v = valueOf(await s.gate.call('a', 'list', { pattern: 'packages/*/src/**/*.ts' }));
    expect(v.entries.map((e: { path: string }) => e.path)).toEqual([
      'packages/db/src/index.ts',
      'packages/ui/src/deep/a.ts',
      'packages/ui/src/index.ts',
    ]);
    // The root and each package are looked up by name (packages, src, and .gitignore), never listed.
    expect(listed.sort()).toEqual(['packages', 'packages/db/src', 'packages/ui/src', 'packages/ui/src/deep']);
    // The same answer as filtering the whole tree with the pattern.
    const all = valueOf(await s.gate.call('a', 'list', { pattern: '**' })).entries.map((e: { path: string }) => e.path);
    expect(all.filter((p: string) => /^packages\/[^/]+\/src\/.*\.ts$/.test(p))).toEqual(v.entries.map((e: { path: string }) => e.path));
  });

  it('never looks up a name no entry can have, however the pattern spells it', async () => {
    const { list } = setup();
    expect(valueOf(await list({ pattern: `${'x'.repeat(300)}/*` })).entries).toEqual([]);
    expect(valueOf(await list({ pattern: '['.repeat(1000) })).entries).toEqual([]);
    expect(valueOf(await list({ pattern: 'src/../README.md' })).entries).toEqual([]);
  });

  it('leads through folders that exist only because a mount lies below them', async () => {
    const s = setupGate();
    addWorkspace(s, 'a', {
      files: { 'top.txt': 't' },
      mounts: [{ path: '/worktrees/a/deep/er/m', layer: new MemoryLayer({ files: { 'in.md': 'in', 'sub/x.md': 'x' } }), writable: false }],
    });
    expect(valueOf(await s.gate.call('a', 'list', { pattern: '**' })).entries.map((e: { path: string }) => e.path)).toEqual([
      'deep',
      'deep/er',
      'deep/er/m',
      'deep/er/m/in.md',
      'deep/er/m/sub',
      'deep/er/m/sub/x.md',
      'top.txt',
    ]);
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'x|in' })).files).toEqual(['deep/er/m/in.md', 'deep/er/m/sub/x.md']);
  });

  it('truncates at maxResults and says where the next page starts; pages with offset until none is left', async () => {
    const { list } = setup();
    const v = valueOf(await list({ pattern: '**', maxResults: 3 }));
    expect(v.entries).toHaveLength(3);
    expect(v).toMatchObject({ truncated: true, nextOffset: 3 });
    const last = valueOf(await list({ path: 'src/sub', maxResults: 1 }));
    expect(last.truncated).toBe(false);
    expect('nextOffset' in last).toBe(false);
    const all = valueOf(await list({ pattern: '**' })).entries;
    const paged: unknown[] = [];
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      const page: { entries: unknown[]; nextOffset?: number } = valueOf(await list({ pattern: '**', offset, maxResults: 4 }));
      paged.push(...page.entries);
      offset = page.nextOffset;
    }
    expect(paged).toEqual(all);
    expect(valueOf(await list({ offset: 50 }))).toEqual({ entries: [], truncated: false });
  });

  it('leaves out what .gitignore ignores and counts it, unless includeIgnored; a folder named explicitly is listed', async () => {
    const s = setupGate();
    addWorkspace(s, 'a', {
      files: {
        '.gitignore': 'node_modules/\n*.log\n',
        'app.ts': 'a',
        'debug.log': 'l',
        'node_modules/dep/index.js': 'd',
        'src/x.ts': 'x',
        'src/.gitignore': 'gen/\n',
        'src/gen/y.ts': 'y',
      },
    });
    const list = async (args: Record<string, unknown>) => valueOf(await s.gate.call('a', 'list', args));
    const paths = (v: { entries: { path: string }[] }) => v.entries.map((e) => e.path);
    const top = await list({});
    expect(paths(top)).toEqual(['.gitignore', 'app.ts', 'src']);
    expect(top.ignored).toBe(2);
    const ts = await list({ pattern: '**/*.ts' });
    expect(paths(ts)).toEqual(['app.ts', 'src/x.ts']);
    expect(ts.ignored).toBe(2); // node_modules/ (a folder, once) and src/gen/; debug.log is no match
    expect(paths(await list({ pattern: '**/*.ts', includeIgnored: true }))).toEqual(['app.ts', 'src/gen/y.ts', 'src/x.ts']);
    expect(paths(await list({ includeIgnored: true }))).toEqual(['.gitignore', 'app.ts', 'debug.log', 'node_modules', 'src']);
    expect('ignored' in (await list({ includeIgnored: true }))).toBe(false);
    expect(paths(await list({ path: 'node_modules', pattern: '**' }))).toEqual(['node_modules/dep', 'node_modules/dep/index.js']);
  });

  it('sorts by modification time, newest first (ties in name order), and shows each mtime', async () => {
    const s = setupGate();
    const { layer } = addWorkspace(s, 'a', { files: { 'old.ts': 'o', 'mid.ts': 'm', 'new.ts': 'n', 'same-b.ts': 'b', 'same-a.ts': 'a' } });
    const volume = (layer as MemoryLayer).volume;
    const at = (name: string, iso: string) => volume.utimesSync(`/${name}`, new Date(iso), new Date(iso));
    at('old.ts', '2020-01-01T00:00:00.000Z');
    at('mid.ts', '2022-06-01T12:00:00.000Z');
    at('new.ts', '2025-03-04T05:06:07.000Z');
    at('same-a.ts', '2021-01-01T00:00:00.000Z');
    at('same-b.ts', '2021-01-01T00:00:00.000Z');
    const v = valueOf(await s.gate.call('a', 'list', { pattern: '*.ts', sort: 'mtime' }));
    expect(v.entries).toEqual([
      { path: 'new.ts', type: 'file', size: 1, mtime: '2025-03-04T05:06:07.000Z' },
      { path: 'mid.ts', type: 'file', size: 1, mtime: '2022-06-01T12:00:00.000Z' },
      { path: 'same-a.ts', type: 'file', size: 1, mtime: '2021-01-01T00:00:00.000Z' },
      { path: 'same-b.ts', type: 'file', size: 1, mtime: '2021-01-01T00:00:00.000Z' },
      { path: 'old.ts', type: 'file', size: 1, mtime: '2020-01-01T00:00:00.000Z' },
    ]);
    const page = valueOf(await s.gate.call('a', 'list', { pattern: '*.ts', sort: 'mtime', offset: 1, maxResults: 2 }));
    expect(page.entries.map((e: { path: string }) => e.path)).toEqual(['mid.ts', 'same-a.ts']);
    expect(page.nextOffset).toBe(3);
    expect(valueOf(await s.gate.call('a', 'list', { pattern: '*.ts', sort: 'name' })).entries[0]).toEqual({
      path: 'mid.ts',
      type: 'file',
      size: 1,
    });
  });

  it("lists the folders leading to mount points with only this namespace's mounts", async () => {
    const { list } = setup();
    expect(valueOf(await list({ path: '/' })).entries.map((e: { path: string }) => e.path)).toEqual(['/data', '/worktrees']);
    expect(valueOf(await list({ path: '/worktrees' })).entries.map((e: { path: string; type: string }) => [e.path, e.type])).toEqual([
      ['.', 'directory'],
    ]); // the workspace root, shown as agents address it
    expect(valueOf(await list({ path: '/data' })).entries.map((e: { path: string }) => e.path)).toEqual(['/data/out']);
  });

  it('refuses a file as the folder, missing folders and escapes', async () => {
    const { list } = setup();
    expect(errorOf(await list({ path: 'README.md' })).code).toBe('NOT_DIRECTORY');
    expect(errorOf(await list({ path: 'nope' })).code).toBe('NOT_FOUND');
    expect(errorOf(await list({ path: '..' })).code).toBe('PATH_ESCAPE');
    expect(errorOf(await list({ path: '/worktrees/b' })).code).toBe('OUTSIDE_MOUNTS');
    expect(errorOf(await list({ pattern: '/etc/*' })).code).toBe('INVALID_INPUT');
  });
});

describe('list over a host folder (sizes taken through the folders the walk holds)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  function hostSetup() {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-list-'));
    dirs.push(base);
    const ws = path.join(base, 'ws');
    for (const [rel, content] of Object.entries({
      'README.md': 'hello',
      'src/a.ts': 'aaa',
      'src/b.js': 'b',
      'src/sub/c.ts': 'cc',
      'src/z.ts': 'zzzz',
    })) {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), content);
    }
    fs.mkdirSync(path.join(base, 'outside'));
    fs.writeFileSync(path.join(base, 'outside/secret.ts'), 'SENTINEL');
    fs.symlinkSync(path.join(base, 'outside'), path.join(ws, 'src/link'));
    fs.symlinkSync('../outside/secret.ts', path.join(ws, 'leaf.ts'));
    const s = setupGate();
    const layer = openHostLayer(ws);
    const campaign = new MemoryLayer({ files: { 'plan.md': 'plan!' } });
    addWorkspace(s, 'a', { layer, mounts: [{ path: '/worktrees/a/.campaign', layer: readOnly(campaign), writable: false }] });
    return { layer, list: (args: unknown) => s.gate.call('a', 'list', args) };
  }

  it("never lists a worktree's .git file (nor a name git treats as .git), with or without a pattern", async () => {
    const { layer, list } = hostSetup();
    try {
      fs.writeFileSync(path.join(dirs[0], 'ws/.git'), 'gitdir: /somewhere/.git/worktrees/ws\n');
      fs.writeFileSync(path.join(dirs[0], 'ws/src/.GIT'), 'gitdir: elsewhere\n');
      for (const args of [{}, { pattern: '**' }, { pattern: '**/.git*' }, { pattern: '.git' }, { includeIgnored: true, pattern: '**' }]) {
        const v = valueOf(await list(args));
        expect(v.entries.map((e: { path: string }) => e.path).filter((p: string) => /\.git$/i.test(p))).toEqual([]);
        expect(JSON.stringify(v)).not.toContain('gitdir');
      }
    } finally {
      layer.close();
    }
  });

  it('reports the same sizes as a stat, links by their text, in tree order, over mount points too', async () => {
    const { layer, list } = hostSetup();
    try {
      const all = valueOf(await list({ pattern: '**' }));
      expect(all.entries).toEqual([
        { path: '.campaign', type: 'directory', size: 0 },
        { path: '.campaign/plan.md', type: 'file', size: 5 },
        { path: 'README.md', type: 'file', size: 5 },
        { path: 'leaf.ts', type: 'symlink', size: '../outside/secret.ts'.length },
        { path: 'src', type: 'directory', size: 0 },
        { path: 'src/a.ts', type: 'file', size: 3 },
        { path: 'src/b.js', type: 'file', size: 1 },
        { path: 'src/link', type: 'symlink', size: fs.readlinkSync(path.join(dirs[0], 'ws/src/link')).length },
        { path: 'src/sub', type: 'directory', size: 0 },
        { path: 'src/sub/c.ts', type: 'file', size: 2 },
        { path: 'src/z.ts', type: 'file', size: 4 },
      ]);
      expect(JSON.stringify(all)).not.toContain('SENTINEL');
      // Fewer results than matches: entries the walk did not size are stat'ed afterwards.
      const few = valueOf(await list({ pattern: '**/*.ts', maxResults: 2 }));
      expect(few).toEqual({
        entries: [
          { path: 'leaf.ts', type: 'symlink', size: 20 },
          { path: 'src/a.ts', type: 'file', size: 3 },
        ],
        truncated: true,
        nextOffset: 2,
      });
      expect(valueOf(await list({ path: 'src' })).entries.map((e: { path: string; size: number }) => `${e.path}:${e.size}`)).toEqual([
        'src/a.ts:3',
        'src/b.js:1',
        `src/link:${fs.readlinkSync(path.join(dirs[0], 'ws/src/link')).length}`,
        'src/sub:0',
        'src/z.ts:4',
      ]);
    } finally {
      layer.close();
    }
  });
});
