/**
 * Loading a manifest from a file, from YAML text, from nothing (the default), and the starter
 * text `gatefs init` writes; `findRole`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultManifest } from '../../src/manifest/default.js';
import { findRole, loadManifest, ManifestError, starterManifestText } from '../../src/manifest/index.js';
import { parseManifestText } from '../../src/manifest/load.js';
import { TOOL_NAMES } from '../../src/manifest/types.js';
import { WorkspaceError } from '../../src/workspace-error.js';

const fixture = (name: string) => join('fixtures', 'manifests', name);
const dir = mkdtempSync(join(tmpdir(), 'gatefs-manifest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('the default manifest', () => {
  it('is one role agent, backend worktree, with the tools that bring work home and read its outcome', () => {
    const m = loadManifest(undefined);
    expect(m.roles).toHaveLength(1);
    expect(m.roles[0]).toMatchObject({
      name: 'agent',
      tools: ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move', 'diff', 'commit', 'submit', 'messages', 'whereami'],
      workspace: { backend: 'worktree', mounts: [], progressiveDisclosure: null },
      artifacts: { autoPatch: true, maxFileBytes: 1048576, maxFiles: 32 },
    });
    expect(m).toEqual(defaultManifest());
  });

  it('is a fresh copy each time', () => {
    const a = defaultManifest();
    a.roles[0]!.tools.pop();
    expect(defaultManifest().roles[0]!.tools).toHaveLength(12);
  });
});

describe('loading from a file', () => {
  it('loads the full example manifest (design-example.yaml) with every key, camelCased', () => {
    expect(loadManifest(fixture('design-example.yaml'))).toEqual({
      roles: [
        {
          name: 'implementer',
          maxVisits: 3,
          tools: ['read', 'grep', 'list', 'edit', 'write', 'request_files'],
          workspace: {
            backend: 'worktree',
            mounts: [
              { path: '.campaign', writable: false },
              { path: '/data/out', writable: true },
            ],
            progressiveDisclosure: { initialPaths: ['src/schema/card.ts'], allowedPaths: ['src/schema', 'tests/schema'] },
          },
          artifacts: { autoPatch: true, maxFileBytes: 1048576, maxFiles: 32 },
          subagents: { isolate: 'worktree' },
          exec: {
            network: false,
            timeoutMs: 120_000,
            memoryBytes: 2 * 1024 ** 3,
            processes: 256,
            outputBytes: 1024 ** 2,
            env: ['PATH', 'LANG', 'TERM'],
            checkpoint: false,
          },
          share: [],
          attachMode: 'shared-read',
        },
      ],
      checks: [],
    });
  });

  it("takes a role's subagents: { isolate: worktree } and refuses any other isolation, naming the key", () => {
    const role = { name: 'a', tools: ['read'] };
    expect(loadManifest({ roles: [{ ...role, subagents: { isolate: 'worktree' } }] }).roles[0]!.subagents).toEqual({ isolate: 'worktree' });
    const e = thrown(() => loadManifest({ roles: [{ ...role, subagents: { isolate: 'container' } }] })) as ManifestError;
    expect(e).toMatchObject({ code: 'INVALID_VALUE', keyPath: 'roles[0].subagents.isolate' });
    const unknown = thrown(() => loadManifest({ roles: [{ ...role, subagents: { depth: 2 } }] })) as ManifestError;
    expect(unknown).toMatchObject({ code: 'UNKNOWN_KEY', keyPath: 'roles[0].subagents.depth' });
  });

  it('loads one role per backend', () => {
    const m = loadManifest(fixture('three-roles.yaml'));
    expect(m.roles.map((r) => `${r.name}:${r.workspace.backend}`)).toEqual(['implementer:worktree', 'scratch:copy', 'observer:shared']);
  });

  it('a missing file is FILE_NOT_FOUND naming the file', () => {
    const file = join(dir, 'nope', 'gatefs.yaml');
    const e = thrown(() => loadManifest(file)) as ManifestError;
    expect(e).toBeInstanceOf(ManifestError);
    expect(e.code).toBe('FILE_NOT_FOUND');
    expect(e.source).toBe(file);
    expect(e.message).toContain(file);
  });

  it('a folder is FILE_UNREADABLE', () => {
    const e = thrown(() => loadManifest(dir)) as ManifestError;
    expect(e.code).toBe('FILE_UNREADABLE');
    expect(e.message).toContain(dir);
  });

  it('points at the line of the bad value', () => {
    const e = thrown(() => loadManifest(fixture('bad-backend.yaml'))) as ManifestError;
    expect({ code: e.code, keyPath: e.keyPath, line: e.line }).toEqual({
      code: 'INVALID_VALUE',
      keyPath: 'roles[0].workspace.backend',
      line: 5,
    });
    expect(e.message).toBe(
      `${fixture('bad-backend.yaml')}:5: roles[0].workspace.backend: expected one of shared, worktree, copy, empty, got "worktrees"`,
    );
  });

  it('invalid YAML is PARSE_ERROR with a line', () => {
    const e = thrown(() => loadManifest(fixture('not-yaml.yaml'))) as ManifestError;
    expect(e.code).toBe('PARSE_ERROR');
    expect(e.line).toBeGreaterThanOrEqual(3);
  });

  it('a container backend in a file is BACKEND_UNAVAILABLE naming the file and line, and writes nothing', () => {
    const file = join(dir, 'gatefs.yaml');
    writeFileSync(file, readFileSync(fixture('container.yaml')));
    const before = readdirSync(dir);
    const e = thrown(() => loadManifest(file)) as WorkspaceError;
    expect(e).toBeInstanceOf(WorkspaceError);
    expect(e.code).toBe('BACKEND_UNAVAILABLE');
    expect(e.message).toContain(`${file}:6: roles[0].workspace.backend`);
    expect(e.data).toMatchObject({ source: file, line: 6 });
    expect(readdirSync(dir)).toEqual(before);
  });
});

describe('parsing YAML text', () => {
  it('a key written twice is PARSE_ERROR at its line', () => {
    const e = thrown(() => parseManifestText('roles:\n  - name: a\n    name: b\n    tools: [read]\n', 'x.yaml')) as ManifestError;
    expect({ code: e.code, line: e.line, source: e.source }).toEqual({ code: 'PARSE_ERROR', line: 3, source: 'x.yaml' });
  });

  it('an empty file says the roles list is missing', () => {
    const e = thrown(() => parseManifestText('', 'gatefs.yaml')) as ManifestError;
    expect(e.code).toBe('INVALID_VALUE');
    expect(e.message).toContain("a mapping with a 'roles' list");
  });

  it('a missing key points at the line of its parent mapping', () => {
    const e = thrown(() =>
      parseManifestText('roles:\n  - name: a\n    workspace:\n      mounts:\n        - path: x\n', 'g.yaml'),
    ) as ManifestError;
    // tools is missing from roles[0], which starts on line 2
    expect({ code: e.code, keyPath: e.keyPath, line: e.line }).toEqual({ code: 'MISSING_KEY', keyPath: 'roles[0].tools', line: 2 });
  });

  it('an unknown key points at its line', () => {
    const e = thrown(() => parseManifestText('roles:\n  - name: a\n    tools: [read]\n    tool: [write]\n', 'g.yaml')) as ManifestError;
    expect({ code: e.code, keyPath: e.keyPath, line: e.line }).toEqual({ code: 'UNKNOWN_KEY', keyPath: 'roles[0].tool', line: 4 });
  });

  it('`writable: yes` is a string in YAML 1.2, so it is refused rather than read as true', () => {
    const e = thrown(() =>
      parseManifestText(
        'roles:\n  - name: a\n    tools: [read]\n    workspace:\n      mounts:\n        - { path: x, writable: yes }\n',
        'g.yaml',
      ),
    ) as ManifestError;
    expect({ code: e.code, keyPath: e.keyPath }).toEqual({ code: 'INVALID_VALUE', keyPath: 'roles[0].workspace.mounts[0].writable' });
  });

  it('a billion-laughs alias bomb is refused as PARSE_ERROR', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(', ')}]`,
      );
    const e = thrown(() => parseManifestText(lines.join('\n'), 'bomb.yaml')) as ManifestError;
    expect(e.code).toBe('PARSE_ERROR');
  });
});

describe('an already parsed object', () => {
  it('errors name the source as (manifest object)', () => {
    const e = thrown(() => loadManifest({ roles: [{ name: 'a' }] })) as ManifestError;
    expect(e.message).toBe(
      `(manifest object): roles[0].tools: missing key 'tools': expected a non-empty list of tools from ${TOOL_NAMES.join(', ')}`,
    );
  });

  it('a number is not a manifest', () => {
    const e = thrown(() => loadManifest(42 as unknown as object)) as ManifestError;
    expect(e.code).toBe('INVALID_VALUE');
  });
});

describe('the writes policy', () => {
  const roles = 'roles:\n  - name: a\n    tools: [read, write]\n';

  it('is absent by default (no fsync) and read from writes: { fsync }', () => {
    expect(parseManifestText(roles).writes).toBeUndefined();
    expect(parseManifestText(`${roles}writes:\n  fsync: true\n`).writes).toEqual({ fsync: true });
    expect(parseManifestText(`${roles}writes:\n  fsync: false\n`).writes).toEqual({ fsync: false });
    expect(parseManifestText(`${roles}writes: {}\n`).writes).toEqual({ fsync: false });
  });

  it('refuses anything but true or false, and unknown keys, naming the key', () => {
    const notBoolean = thrown(() => parseManifestText(`${roles}writes:\n  fsync: yes\n`)) as ManifestError;
    expect({ code: notBoolean.code, at: notBoolean.keyPath }).toEqual({ code: 'INVALID_VALUE', at: 'writes.fsync' });
    const unknown = thrown(() => parseManifestText(`${roles}writes:\n  sync: true\n`)) as ManifestError;
    expect({ code: unknown.code, at: unknown.keyPath }).toEqual({ code: 'UNKNOWN_KEY', at: 'writes.sync' });
  });
});

describe('findRole', () => {
  const m = loadManifest(fixture('three-roles.yaml'));

  it('defaults to the first role and finds others by name', () => {
    expect(findRole(m).name).toBe('implementer');
    expect(findRole(m, 'observer').workspace.backend).toBe('shared');
  });

  it('an unknown role is UNKNOWN_ROLE listing the roles', () => {
    const e = thrown(() => findRole(m, 'reviewer')) as ManifestError;
    expect(e.code).toBe('UNKNOWN_ROLE');
    expect(e.keyPath).toBe('roles');
    expect(e.message).toContain("no role named 'reviewer' (roles: implementer, scratch, observer)");
  });
});

describe('the starter manifest', () => {
  it('loads to the default manifest', () => {
    expect(parseManifestText(starterManifestText(), 'gatefs.yaml')).toEqual(defaultManifest());
  });

  it('for a folder outside git, its role is a copy and nothing else differs', () => {
    const copy = parseManifestText(starterManifestText({ backend: 'copy' }), 'gatefs.yaml');
    const expected = defaultManifest();
    expected.roles[0]!.workspace.backend = 'copy';
    expected.roles[0]!.artifacts.autoPatch = false; // auto-patches are a worktree's default only
    expect(copy).toEqual(expected);
  });

  it('its commented examples load too once uncommented', () => {
    const uncommented = starterManifestText()
      .split('\n')
      .map((line) => line.replace(/^(\s*)# ((?: *)(?:- )?(?:[a-z_]+:|\{))/, '$1$2'))
      .join('\n');
    expect(uncommented).not.toBe(starterManifestText());
    const m = parseManifestText(uncommented, 'uncommented.yaml');
    expect(m.roles.map((r) => r.name)).toEqual(['agent', 'reviewer']);
    expect(m.roles[0]!.maxVisits).toBe(3);
    expect(m.roles[0]!.workspace.mounts).toEqual([
      { path: '.campaign', writable: false },
      { path: '/data/out', writable: true },
    ]);
    expect(m.roles[1]!.workspace.progressiveDisclosure).toEqual({ initialPaths: ['README.md'], allowedPaths: ['src', 'docs'] });
    expect(m.writes).toEqual({ fsync: false });
  });
});
