/**
 * Every manifest rule: the mistake, the error code, and the key path the error names.
 * Manifests are given as parsed objects (the file's snake_case form); `load.test.ts` covers YAML.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadManifest, ManifestError, type ManifestErrorCode } from '../../src/manifest/index.js';
import { WorkspaceError } from '../../src/workspace-error.js';

type Obj = Record<string, unknown>;

function role(extra: Obj = {}): Obj {
  return { name: 'r', tools: ['read', 'grep', 'list', 'edit', 'write'], ...extra };
}
function withWorkspace(workspace: Obj, extra: Obj = {}): Obj {
  return { roles: [role({ workspace, ...extra })] };
}
const disclosureRole = (policy: unknown, backend = 'worktree'): Obj =>
  withWorkspace({ backend, progressive_disclosure: policy }, { tools: ['read', 'request_files'] });

function failure(value: unknown): ManifestError {
  try {
    loadManifest(value as object);
  } catch (e) {
    if (e instanceof ManifestError) return e;
    throw e;
  }
  throw new Error('expected a ManifestError, the manifest loaded');
}

const cases: [string, unknown, ManifestErrorCode, string][] = [
  ['roles missing', {}, 'MISSING_KEY', 'roles'],
  ['roles empty', { roles: [] }, 'INVALID_VALUE', 'roles'],
  ['root is a list', [role()], 'INVALID_VALUE', ''],
  ['unknown top-level key', { roles: [role()], version: 2 }, 'UNKNOWN_KEY', 'version'],
  ['role is not a mapping', { roles: ['agent'] }, 'INVALID_VALUE', 'roles[0]'],
  ['name missing', { roles: [{ tools: ['read'] }] }, 'MISSING_KEY', 'roles[0].name'],
  ['name empty', { roles: [role({ name: '' })] }, 'INVALID_VALUE', 'roles[0].name'],
  ['name blank', { roles: [role({ name: '   ' })] }, 'INVALID_VALUE', 'roles[0].name'],
  ['name not a string', { roles: [role({ name: 7 })] }, 'INVALID_VALUE', 'roles[0].name'],
  ['name with a newline', { roles: [role({ name: 'a\nb' })] }, 'INVALID_VALUE', 'roles[0].name'],
  ['name over 128 characters', { roles: [role({ name: 'r'.repeat(129) })] }, 'INVALID_VALUE', 'roles[0].name'],
  ['duplicate role names', { roles: [role({ name: 'a' }), role({ name: 'b' }), role({ name: 'a' })] }, 'DUPLICATE', 'roles[2].name'],
  ['max_visits zero', { roles: [role({ max_visits: 0 })] }, 'INVALID_VALUE', 'roles[0].max_visits'],
  ['max_visits negative', { roles: [role({ max_visits: -2 })] }, 'INVALID_VALUE', 'roles[0].max_visits'],
  ['max_visits fractional', { roles: [role({ max_visits: 1.5 })] }, 'INVALID_VALUE', 'roles[0].max_visits'],
  ['max_visits a string', { roles: [role({ max_visits: '3' })] }, 'INVALID_VALUE', 'roles[0].max_visits'],
  ['unknown role key (typo)', { roles: [role({ maxVisits: 3 })] }, 'UNKNOWN_KEY', 'roles[0].maxVisits'],
  ['tools missing', { roles: [{ name: 'r' }] }, 'MISSING_KEY', 'roles[0].tools'],
  ['tools empty', { roles: [role({ tools: [] })] }, 'INVALID_VALUE', 'roles[0].tools'],
  ['tools not a list', { roles: [role({ tools: 'read' })] }, 'INVALID_VALUE', 'roles[0].tools'],
  ['unknown tool', { roles: [role({ tools: ['read', 'bash'] })] }, 'INVALID_VALUE', 'roles[0].tools[1]'],
  ['duplicate tool', { roles: [role({ tools: ['read', 'grep', 'read'] })] }, 'DUPLICATE', 'roles[0].tools[2]'],
  ['unknown backend', withWorkspace({ backend: 'docker' }), 'INVALID_VALUE', 'roles[0].workspace.backend'],
  ['unknown workspace key', withWorkspace({ mount: [] }), 'UNKNOWN_KEY', 'roles[0].workspace.mount'],
  ['mounts null', withWorkspace({ mounts: null }), 'INVALID_VALUE', 'roles[0].workspace.mounts'],
  ['mount path missing', withWorkspace({ mounts: [{ writable: true }] }), 'MISSING_KEY', 'roles[0].workspace.mounts[0].path'],
  ['mount writable missing', withWorkspace({ mounts: [{ path: 'a' }] }), 'MISSING_KEY', 'roles[0].workspace.mounts[0].writable'],
  [
    'mount writable a string',
    withWorkspace({ mounts: [{ path: 'a', writable: 'yes' }] }),
    'INVALID_VALUE',
    'roles[0].workspace.mounts[0].writable',
  ],
  [
    'unknown mount key',
    withWorkspace({ mounts: [{ path: 'a', writable: true, mode: 'rw' }] }),
    'UNKNOWN_KEY',
    'roles[0].workspace.mounts[0].mode',
  ],
  [
    'relative mount declared writable',
    withWorkspace({
      mounts: [
        { path: '/data/out', writable: true },
        { path: '.campaign', writable: true },
      ],
    }),
    'INVALID_VALUE',
    'roles[0].workspace.mounts[1].writable',
  ],
  [
    'relative mount inside another relative mount',
    withWorkspace({
      mounts: [
        { path: 'docs', writable: false },
        { path: '/data/out', writable: true },
        { path: 'docs/api', writable: false },
      ],
    }),
    'INVALID_VALUE',
    'roles[0].workspace.mounts[2].path',
  ],
  [
    'relative mount shadowing an allowed disclosure folder',
    withWorkspace(
      {
        mounts: [{ path: 'src', writable: false }],
        progressive_disclosure: { initial_paths: ['README.md'], allowed_paths: ['src'] },
      },
      { tools: ['read', 'request_files'] },
    ),
    'INVALID_VALUE',
    'roles[0].workspace.mounts[0].path',
  ],
  [
    'relative mount inside an allowed disclosure folder',
    withWorkspace(
      {
        mounts: [
          { path: '.campaign', writable: false },
          { path: 'src/gen', writable: false },
        ],
        progressive_disclosure: { initial_paths: [], allowed_paths: ['src'] },
      },
      { tools: ['read', 'request_files'] },
    ),
    'INVALID_VALUE',
    'roles[0].workspace.mounts[1].path',
  ],
  [
    'relative mount holding an initial disclosure file',
    withWorkspace(
      {
        mounts: [{ path: 'docs', writable: false }],
        progressive_disclosure: { initial_paths: ['docs/intro.md'], allowed_paths: ['src'] },
      },
      { tools: ['read', 'request_files'] },
    ),
    'INVALID_VALUE',
    'roles[0].workspace.mounts[0].path',
  ],
  [
    'policy without initial_paths',
    disclosureRole({ allowed_paths: ['src'] }),
    'MISSING_KEY',
    'roles[0].workspace.progressive_disclosure.initial_paths',
  ],
  [
    'policy without allowed_paths',
    disclosureRole({ initial_paths: [] }),
    'MISSING_KEY',
    'roles[0].workspace.progressive_disclosure.allowed_paths',
  ],
  [
    'policy path not a string',
    disclosureRole({ initial_paths: [3], allowed_paths: [] }),
    'INVALID_VALUE',
    'roles[0].workspace.progressive_disclosure.initial_paths[0]',
  ],
  [
    'policy on copy',
    disclosureRole({ initial_paths: [], allowed_paths: ['src'] }, 'copy'),
    'INVALID_VALUE',
    'roles[0].workspace.progressive_disclosure',
  ],
  [
    'policy on shared',
    disclosureRole({ initial_paths: [], allowed_paths: ['src'] }, 'shared'),
    'INVALID_VALUE',
    'roles[0].workspace.progressive_disclosure',
  ],
  [
    'policy without request_files',
    withWorkspace({ progressive_disclosure: { initial_paths: [], allowed_paths: ['src'] } }),
    'INVALID_VALUE',
    'roles[0].workspace.progressive_disclosure',
  ],
  ['request_files without policy', { roles: [role({ tools: ['read', 'request_files'] })] }, 'INVALID_VALUE', 'roles[0].tools[1]'],
  [
    'artifacts max_file_bytes zero',
    { roles: [role({ artifacts: { max_file_bytes: 0 } })] },
    'INVALID_VALUE',
    'roles[0].artifacts.max_file_bytes',
  ],
  ['artifacts max_files negative', { roles: [role({ artifacts: { max_files: -1 } })] }, 'INVALID_VALUE', 'roles[0].artifacts.max_files'],
  [
    'artifacts auto_patch a string',
    { roles: [role({ artifacts: { auto_patch: 'true' } })] },
    'INVALID_VALUE',
    'roles[0].artifacts.auto_patch',
  ],
  ['unknown artifacts key', { roles: [role({ artifacts: { patch: true } })] }, 'UNKNOWN_KEY', 'roles[0].artifacts.patch'],
  ['workspace source not snapshot', withWorkspace({ source: 'checkout' }), 'INVALID_VALUE', 'roles[0].workspace.source'],
  ['workspace source not a string', withWorkspace({ source: true }), 'INVALID_VALUE', 'roles[0].workspace.source'],
  ...(['copy', 'shared', 'empty'] as const).map((backend): [string, unknown, ManifestErrorCode, string] => [
    `auto_patch true on ${backend}`,
    { roles: [role({ workspace: { backend }, artifacts: { auto_patch: true } })] },
    'INVALID_VALUE',
    'roles[0].artifacts.auto_patch',
  ]),
  ...['has space', 'a/b', '-lead', '.hidden', 'é', 'x'.repeat(64)].map((name): [string, unknown, ManifestErrorCode, string] => [
    `handoff role named ${JSON.stringify(name)}`,
    { roles: [role({ name: 'ok' }), role({ name, tools: ['read', 'handoff'] })] },
    'INVALID_VALUE',
    'roles[1].name',
  ]),
  [
    'error in the second role',
    { roles: [role({ name: 'a' }), role({ name: 'b', tools: ['reed'] })] },
    'INVALID_VALUE',
    'roles[1].tools[0]',
  ],
];

describe('manifest rules', () => {
  it.each(cases)('%s → %s at %s', (_label, value, code, keyPath) => {
    const e = failure(value);
    expect({ code: e.code, keyPath: e.keyPath }).toEqual({ code, keyPath });
    expect(e.message).toContain(`${keyPath}: `);
  });

  it('names the expected values and the known keys in the message', () => {
    expect(failure(withWorkspace({ backend: 'docker' })).message).toContain('one of shared, worktree, copy');
    expect(failure(withWorkspace({ mount: [] })).message).toContain('known keys are backend, source, mounts, progressive_disclosure');
    expect(failure(withWorkspace({ source: 'main' })).message).toContain('expected snapshot');
    expect(failure(withWorkspace({ backend: 'copy' }, { artifacts: { auto_patch: true } })).message).toContain('use backend worktree');
    expect(failure({ roles: [role({ name: 'code reviewer', tools: ['handoff'] })] }).message).toContain('<role>-v<visit>');
    expect(failure({ roles: [role({ tools: ['bash'] })] }).message).toContain('request_files');
    expect(failure(withWorkspace({ mounts: [{ path: 'src', writable: true }] })).message).toContain(
      "roles[0].workspace.mounts[0].writable: the relative mount 'src' shows the pinned commit and is always read-only: write writable: false, or mount a host folder by its absolute path to make it writable",
    );
  });
});

describe('mount paths', () => {
  const mount = (path: unknown) => withWorkspace({ mounts: [{ path, writable: false }] });
  const key = 'roles[0].workspace.mounts[0].path';

  it.each([
    ['empty', ''],
    ['a .. segment', 'a/../b'],
    ['.. alone', '..'],
    ['a leading ..', '../outside'],
    ['an absolute path with ..', '/data/../etc'],
    ['a backslash', 'a\\b'],
    ['a NUL', 'a\u0000b'],
    ['an empty segment', 'a//b'],
    ['a . segment', './campaign'],
    ['.git', '.git'],
    ['under .git', '.git/hooks'],
    ['.GIT in another case', '.GIT/config'],
    ['the namespace root', '/'],
    ['/worktrees', '/worktrees'],
    ['under /worktrees', '/worktrees/other-conversation'],
    ['a 256-byte name', `x/${'a'.repeat(256)}`],
  ])('rejects %s', (_label, path) => {
    const e = failure(mount(path));
    expect({ code: e.code, keyPath: e.keyPath }).toEqual({ code: 'INVALID_VALUE', keyPath: key });
  });

  it.each(['.campaign', 'docs/ref', '/data/out', '/worktreesx', '.github', '.gitignore-data', '/data/out/'])('accepts %s', (path) => {
    expect(() => loadManifest(mount(path))).not.toThrow();
  });

  it('a relative mount that shadows a disclosed folder says why, naming the disclosure key', () => {
    const e = failure(
      withWorkspace(
        {
          mounts: [{ path: 'src', writable: false }],
          progressive_disclosure: { initial_paths: [], allowed_paths: ['tests', 'src/schema'] },
        },
        { tools: ['read', 'request_files'] },
      ),
    );
    expect(e.message).toContain("shadows the disclosed folder 'src/schema' (progressive_disclosure.allowed_paths[1])");
    expect(e.message).toContain('without request_files');
  });

  it('accepts mounts beside each other and beside disclosed folders (whole segments compared)', () => {
    const manifest = withWorkspace(
      {
        mounts: [
          { path: 'docs', writable: false },
          { path: 'docs-extra', writable: false },
          { path: 'src2', writable: false },
          { path: '/data', writable: false },
          { path: '/data/out', writable: true },
        ],
        progressive_disclosure: { initial_paths: ['src/a.ts'], allowed_paths: ['src'] },
      },
      { tools: ['read', 'request_files'] },
    );
    expect(() => loadManifest(manifest)).not.toThrow();
  });

  it('normalizes a trailing slash and then finds duplicates', () => {
    const m = loadManifest(withWorkspace({ mounts: [{ path: '/data/out/', writable: true }] }));
    expect(m.roles[0]!.workspace.mounts).toEqual([{ path: '/data/out', writable: true }]);
    const e = failure(
      withWorkspace({
        mounts: [
          { path: '/data/out', writable: true },
          { path: '/data/out/', writable: false },
        ],
      }),
    );
    expect({ code: e.code, keyPath: e.keyPath }).toEqual({ code: 'DUPLICATE', keyPath: 'roles[0].workspace.mounts[1].path' });
  });
});

describe('progressive disclosure paths', () => {
  const policy = (initial: string[], allowed: string[]) => disclosureRole({ initial_paths: initial, allowed_paths: allowed });

  it.each([
    ['absolute', '/etc/passwd'],
    ['traversal', '../secret'],
    ['inner traversal', 'src/../../secret'],
    ['backslash', 'src\\schema'],
    ['star', 'src/*.ts'],
    ['question mark', 'src/a?.ts'],
    ['brackets', 'src/[ab].ts'],
    ['closing bracket', 'src/a].ts'],
    ['braces', 'src/{a,b}.ts'],
    ['closing brace', 'src/a}.ts'],
    ['empty', ''],
    ['dot segment', './src'],
    ['.git', '.git/config'],
  ])('rejects %s in initial_paths and in allowed_paths', (_label, path) => {
    const a = failure(policy([path], ['src']));
    expect({ code: a.code, keyPath: a.keyPath }).toEqual({
      code: 'INVALID_VALUE',
      keyPath: 'roles[0].workspace.progressive_disclosure.initial_paths[0]',
    });
    const b = failure(policy([], ['src', path]));
    expect({ code: b.code, keyPath: b.keyPath }).toEqual({
      code: 'INVALID_VALUE',
      keyPath: 'roles[0].workspace.progressive_disclosure.allowed_paths[1]',
    });
  });

  it('names glob syntax and traversal in the message', () => {
    expect(failure(policy(['src/*.ts'], [])).message).toContain('glob');
    expect(failure(policy(['../x'], [])).message).toContain('traversal');
    expect(failure(policy(['/x'], [])).message).toContain('repository-relative');
  });

  it('rejects duplicates, also after normalizing a trailing slash', () => {
    const a = failure(policy(['a.ts', 'b.ts', 'a.ts'], []));
    expect({ code: a.code, keyPath: a.keyPath }).toEqual({
      code: 'DUPLICATE',
      keyPath: 'roles[0].workspace.progressive_disclosure.initial_paths[2]',
    });
    const b = failure(policy([], ['src/schema', 'src/schema/']));
    expect({ code: b.code, keyPath: b.keyPath }).toEqual({
      code: 'DUPLICATE',
      keyPath: 'roles[0].workspace.progressive_disclosure.allowed_paths[1]',
    });
  });

  it('keeps a valid policy, normalized', () => {
    const m = loadManifest(policy(['src/schema/card.ts'], ['src/schema/', 'tests/schema', 'odd name ü.md']));
    expect(m.roles[0]!.workspace.progressiveDisclosure).toEqual({
      initialPaths: ['src/schema/card.ts'],
      allowedPaths: ['src/schema', 'tests/schema', 'odd name ü.md'],
    });
  });
});

describe('container backend', () => {
  it('is a WorkspaceError BACKEND_UNAVAILABLE naming the key path, not a fallback', () => {
    let caught: unknown;
    try {
      loadManifest(withWorkspace({ backend: 'container' }));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(WorkspaceError);
    const e = caught as WorkspaceError;
    expect(e.code).toBe('BACKEND_UNAVAILABLE');
    expect(e.data).toMatchObject({ backend: 'container', role: 'r', keyPath: 'roles[0].workspace.backend' });
    expect(e.message).toContain('roles[0].workspace.backend');
  });

  it('is refused even when a later role is valid', () => {
    const value = { roles: [role({ name: 'ok' }), role({ name: 'boxed', workspace: { backend: 'container' } })] };
    expect(() => loadManifest(value)).toThrow(WorkspaceError);
  });
});

describe('defaults filled in', () => {
  it('backend worktree, no mounts, no policy, unlimited visits, artifacts by backend', () => {
    const m = loadManifest({
      roles: [
        role({ name: 'w' }),
        role({ name: 'c', workspace: { backend: 'copy' } }),
        role({ name: 's', workspace: { backend: 'shared' } }),
      ],
    });
    expect(m.roles.map((r) => [r.name, r.workspace.backend, r.artifacts.autoPatch, r.maxVisits])).toEqual([
      ['w', 'worktree', true, null],
      ['c', 'copy', false, null],
      ['s', 'shared', false, null],
    ]);
    for (const r of m.roles) {
      expect(r.workspace.mounts).toEqual([]);
      expect(r.workspace.progressiveDisclosure).toBeNull();
      expect(r.artifacts).toMatchObject({ maxFileBytes: 1048576, maxFiles: 32 });
    }
  });

  it('explicit artifact values win over the defaults', () => {
    const m = loadManifest({
      roles: [
        role({ name: 'w', artifacts: { auto_patch: false, max_file_bytes: 10, max_files: 0 } }),
        role({ name: 'c', workspace: { backend: 'copy' }, artifacts: { auto_patch: false, max_file_bytes: 7 } }),
      ],
    });
    expect(m.roles.map((r) => r.artifacts)).toEqual([
      { autoPatch: false, maxFileBytes: 10, maxFiles: 0 },
      { autoPatch: false, maxFileBytes: 7, maxFiles: 32 },
    ]);
  });

  it('does not modify or keep the object it was given', () => {
    const value = { roles: [role({ workspace: { mounts: [{ path: '/data/out/', writable: true }] } })] };
    const before = JSON.stringify(value);
    const m = loadManifest(value);
    expect(JSON.stringify(value)).toBe(before);
    m.roles[0]!.tools.push('request_files');
    expect((value.roles[0] as { tools: string[] }).tools).not.toContain('request_files');
  });
});

describe('path rules hold for generated paths', () => {
  const segment = fc.stringMatching(/^[a-z0-9_-][a-z0-9._-]{0,11}$/).filter((s) => s !== '.' && s !== '..' && s.toLowerCase() !== '.git');
  const literal = fc.array(segment, { minLength: 1, maxLength: 5 }).map((segs) => segs.join('/'));
  const policy = (paths: string[]) => disclosureRole({ initial_paths: paths, allowed_paths: [] });

  it('a literal relative path is accepted as written, as a disclosure path and as a mount', () => {
    fc.assert(
      fc.property(literal, (path) => {
        expect(loadManifest(policy([path])).roles[0]!.workspace.progressiveDisclosure!.initialPaths).toEqual([path]);
        expect(loadManifest(withWorkspace({ mounts: [{ path, writable: false }] })).roles[0]!.workspace.mounts[0]!.path).toBe(path);
      }),
      { numRuns: 200 },
    );
  });

  it('inserting a .. segment, a glob character or a backslash anywhere is always refused', () => {
    const poison = fc.constantFrom('..', '*', '?', '[', ']', '{', '}', '\\');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), poison, fc.nat(), (segs, bad, at) => {
        const i = at % (segs.length + 1);
        const path = bad === '..' ? [...segs.slice(0, i), '..', ...segs.slice(i)].join('/') : `${segs.join('/')}${bad}x`;
        const e = failure(policy([path]));
        expect(e.keyPath).toBe('roles[0].workspace.progressive_disclosure.initial_paths[0]');
      }),
      { numRuns: 200 },
    );
  });
});

describe('Conductor keys: source, handoff names, auto_patch', () => {
  it('accepts workspace.source: snapshot on every backend and keeps nothing of it', () => {
    const m = loadManifest({
      roles: (['worktree', 'copy', 'shared', 'empty'] as const).map((backend) =>
        role({ name: backend, workspace: { backend, source: 'snapshot' } }),
      ),
    });
    expect(m.roles.map((r) => r.workspace.backend)).toEqual(['worktree', 'copy', 'shared', 'empty']);
    expect(m.roles.map((r) => Object.keys(r.workspace).sort())).toEqual(Array(4).fill(['backend', 'mounts', 'progressiveDisclosure']));
  });

  it('accepts folder-safe names for handoff roles, and any name for roles without handoff', () => {
    const m = loadManifest({
      roles: [
        role({ name: 'Plan.v2_final-1', tools: ['read', 'handoff'] }),
        role({ name: 'x'.repeat(63), tools: ['read', 'handoff', 'end'] }),
        role({ name: 'code reviewer', tools: ['read', 'end'] }),
      ],
    });
    expect(m.roles.map((r) => r.tools)).toEqual([
      ['read', 'handoff'],
      ['read', 'handoff', 'end'],
      ['read', 'end'],
    ]);
  });

  it('auto_patch defaults to true for worktree and false elsewhere; true is taken on worktree', () => {
    const m = loadManifest({
      roles: [
        role({ name: 'w', artifacts: { auto_patch: true } }),
        role({ name: 'c', workspace: { backend: 'copy' } }),
        role({ name: 'c2', workspace: { backend: 'copy' }, artifacts: { auto_patch: false } }),
      ],
    });
    expect(m.roles.map((r) => r.artifacts.autoPatch)).toEqual([true, false, false]);
  });
});
