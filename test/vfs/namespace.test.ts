import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { readOnly } from '../../vfs/read-only-layer.js';

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

function makeNamespace() {
  const work = new MemoryLayer({ files: { 'src/a.ts': 'A', 'README.md': 'hi' } });
  const campaign = new MemoryLayer({ files: { 'plan.md': 'plan' } });
  const docs = new MemoryLayer({ files: { 'guide.md': 'guide' } });
  const docsExtra = new MemoryLayer({ files: { 'x.md': 'x' } });
  const ns = new Namespace({
    root: '/worktrees/a',
    mounts: [
      { path: '/worktrees/a', layer: work, writable: true },
      { path: '/worktrees/a/.campaign', layer: readOnly(campaign), writable: false },
      { path: '/docs', layer: docs, writable: true },
      { path: '/docs-extra', layer: docsExtra, writable: false },
    ],
  });
  return { ns, work, campaign, docs };
}

describe('Namespace', () => {
  it('resolves relative paths at the workspace root and absolute namespace paths', async () => {
    const { ns } = makeNamespace();
    expect(text(await ns.readFile('src/a.ts'))).toBe('A');
    expect(text(await ns.readFile('/worktrees/a/./src//./../src/a.ts'))).toBe('A');
    expect(text(await ns.readFile('/docs/guide.md'))).toBe('guide');
  });

  it('refuses escapes, other conversations and prefix confusion', async () => {
    const { ns } = makeNamespace();
    await expect(ns.readFile('../b/x')).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    await expect(ns.readdir('..')).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    await expect(ns.readFile('../a/src/a.ts')).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    await expect(ns.readFile('/worktrees/b/src/a.ts')).rejects.toMatchObject({ code: 'OUTSIDE_MOUNTS' });
    await expect(ns.readFile('/worktrees/ax/src/a.ts')).rejects.toMatchObject({ code: 'OUTSIDE_MOUNTS' });
    await expect(ns.readFile('/etc/hostname')).rejects.toMatchObject({ code: 'OUTSIDE_MOUNTS' });
    await expect(ns.writeFile('/docs-extra/x.md', Buffer.from('no'))).rejects.toMatchObject({ code: 'READ_ONLY' });
    await ns.writeFile('/docs/new.md', Buffer.from('yes'));
    expect(text(await ns.readFile('/docs/new.md'))).toBe('yes');
  });

  it('lists mount points inside a folder and keeps nested read-only mounts read-only', async () => {
    const { ns, campaign } = makeNamespace();
    expect((await ns.readdir('.')).map((e) => e.name)).toEqual(['.campaign', 'README.md', 'src']);
    await expect(ns.writeFile('.campaign/plan.md', Buffer.from('x'))).rejects.toMatchObject({
      code: 'READ_ONLY',
      path: '/worktrees/a/.campaign/plan.md',
    });
    expect(text(await campaign.readFile('plan.md'))).toBe('plan');
  });

  it('protects .git at any depth and creates parents inside the same mount', async () => {
    const { ns } = makeNamespace();
    await expect(ns.writeFile('.git/config', Buffer.from('x'), { createParents: true })).rejects.toMatchObject({ code: 'PROTECTED_PATH' });
    await expect(ns.writeFile('sub/.git', Buffer.from('x'), { createParents: true })).rejects.toMatchObject({ code: 'PROTECTED_PATH' });
    const result = await ns.writeFile('deep/er/f.txt', Buffer.from('f'), { createParents: true });
    expect(result.created).toBe(true);
    expect(text(await ns.readFile('deep/er/f.txt'))).toBe('f');
  });

  it('names errors with namespace paths', async () => {
    const { ns } = makeNamespace();
    await expect(ns.readFile('src/missing.ts')).rejects.toMatchObject({ code: 'NOT_FOUND', path: '/worktrees/a/src/missing.ts' });
    await expect(ns.readFile('src')).rejects.toMatchObject({ code: 'IS_DIRECTORY' });
  });
});

describe('Namespace: nothing of the host git shows, authority files stay as they are', () => {
  const hashOf = async (layer: MemoryLayer) => JSON.stringify(layer.volume.toJSON());

  it('hides every name git treats as .git, as a folder, a file or a mount point', async () => {
    const work = new MemoryLayer({
      files: {
        '.git': 'gitdir: /host/repo/.git/worktrees/a\n',
        'sub/.GIT/config': 'c',
        'sub/git~1/x': 'x',
        'sub/ok.txt': 'ok',
        '.github/ci.yml': 'ci',
        'nested-repo/.git/HEAD': 'ref',
      },
    });
    const ns = new Namespace({
      root: '/worktrees/a',
      mounts: [
        { path: '/worktrees/a', layer: work, writable: true },
        { path: '/data/.git', layer: new MemoryLayer({ files: { HEAD: 'ref' } }), writable: true },
      ],
    });
    expect((await ns.readdir('.')).map((e) => e.name)).toEqual(['.github', 'nested-repo', 'sub']);
    expect(await ns.readdir('nested-repo')).toEqual([]);
    // It looks empty, but removing it would remove a repository's .git.
    await expect(ns.remove('nested-repo')).rejects.toMatchObject({ code: 'PROTECTED_PATH', path: '/worktrees/a/nested-repo' });
    expect((await ns.readdir('sub')).map((e) => e.name)).toEqual(['ok.txt']);
    expect(await ns.readdir('/data')).toEqual([]);
    for (const path of ['.git', 'sub/.GIT/config', 'sub/git~1', 'sub/.git./x', '/data/.git/HEAD']) {
      await expect(ns.readFile(path)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(ns.stat(path)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(ns.writeFile(path, new Uint8Array(1), { createParents: true })).rejects.toMatchObject({ code: 'PROTECTED_PATH' });
      await expect(ns.mkdir(path, { parents: true })).rejects.toMatchObject({ code: 'PROTECTED_PATH' });
    }
    await expect(ns.remove('sub/git~1')).rejects.toMatchObject({ code: 'PROTECTED_PATH' });
    await expect(ns.remove('.git')).rejects.toMatchObject({ code: 'PROTECTED_PATH' });
    expect(text(await ns.readFile('.github/ci.yml'))).toBe('ci');
  });

  it('keeps authority files readable and refuses to change or remove them or a folder above them', async () => {
    const work = new MemoryLayer({
      files: { 'gatefs.yaml': 'roles: []\n', 'cfg/agents.yaml': 'a', 'cfg/other.yaml': 'o', 'x/gatefs.yaml': 'x' },
    });
    const ns = new Namespace({
      root: '/worktrees/a',
      mounts: [{ path: '/worktrees/a', layer: work, writable: true }],
      authorityFiles: ['/worktrees/a/gatefs.yaml', '/worktrees/a/cfg/agents.yaml', '/worktrees/a/new/settings.json'],
    });
    const before = await hashOf(work);
    expect(text(await ns.readFile('gatefs.yaml'))).toBe('roles: []\n');
    expect(ns.isAuthorityFile('/worktrees/a/GATEFS.yaml')).toBe(true);
    const refused = [
      () => ns.writeFile('gatefs.yaml', new Uint8Array(1)),
      () => ns.writeFile('Gatefs.YAML.', new Uint8Array(1)),
      () => ns.writeFile('cfg/agents.yaml', new Uint8Array(1)),
      () => ns.writeFile('new/settings.json', new Uint8Array(1), { createParents: true }),
      () => ns.mkdir('gatefs.yaml/sub', { parents: true }),
      () => ns.remove('gatefs.yaml'),
      () => ns.remove('cfg'),
      () => ns.remove('cfg/agents.yaml'),
      () => ns.remove('GATEFS.yaml'),
    ];
    for (const attempt of refused) await expect(attempt()).rejects.toMatchObject({ code: 'PROTECTED_PATH' });
    expect(await hashOf(work)).toBe(before);
    await ns.writeFile('cfg/other.yaml', new TextEncoder().encode('changed'));
    // Only the listed files: a gatefs.yaml elsewhere is an ordinary file.
    await ns.remove('x/gatefs.yaml');
    await expect(ns.stat('x/gatefs.yaml')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
