/**
 * Lander settings: from a JSON file, an object, the manifest's `lander:` key, or nothing; the
 * errors an operator editing them sees; which source wins.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { branchNameProblem } from '../../src/manifest/branch-name.js';
import { chooseLanderSettings, loadManifest, ManifestError } from '../../src/manifest/index.js';
import { parseManifestText } from '../../src/manifest/load.js';
import { loadSettings } from '../../src/manifest/settings.js';

const dir = mkdtempSync(join(tmpdir(), 'gatefs-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(text: string): string {
  const f = join(dir, `settings-${n++}.json`);
  writeFileSync(f, text);
  return f;
}

function thrown(fn: () => unknown): ManifestError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ManifestError) return e;
    throw e;
  }
  throw new Error('expected a ManifestError');
}

const roles = [{ name: 'agent', tools: ['read'] }];

describe('loadSettings', () => {
  it('with nothing configured: no checks, no push, the current branch', () => {
    expect(loadSettings(undefined)).toEqual({ checks: [], push: null, branch: null });
    expect(loadSettings({})).toEqual({ checks: [], push: null, branch: null });
    expect(loadSettings({ lander: {} })).toEqual({ checks: [], push: null, branch: null });
  });

  it('reads the settings file form: strings and objects, timeouts in seconds, default 600 s', () => {
    const f = file(
      JSON.stringify({
        lander: {
          checks: ['npm test', { command: 'npx tsc --noEmit', timeout: 30 }, { command: "sh -c 'make lint'", name: 'lint', timeout: 0.5 }],
          push: 'origin',
          branch: 'release/2.x',
        },
      }),
    );
    expect(loadSettings(f)).toEqual({
      checks: [
        { name: 'npm test', argv: ['npm', 'test'], timeoutMs: 600_000, command: 'npm test' },
        { name: 'npx tsc --noEmit', argv: ['npx', 'tsc', '--noEmit'], timeoutMs: 30_000, command: 'npx tsc --noEmit' },
        { name: 'lint', argv: ['sh', '-c', 'make lint'], timeoutMs: 500, command: "sh -c 'make lint'" },
      ],
      push: 'origin',
      branch: 'release/2.x',
    });
  });

  it('names an unnamed check by its command, blanks collapsed, cut at 60 characters', () => {
    const long = `npx vitest run ${'test/a-very-long-path/'.repeat(5)}`;
    const s = loadSettings({ lander: { checks: [long, 'npx   tsc\t-b'] } });
    expect(s.checks[0].name).toBe(long.slice(0, 60));
    expect(s.checks[1].name).toBe('npx tsc -b');
  });

  it('explicit nulls mean the defaults', () => {
    expect(loadSettings({ lander: { push: null, branch: null } })).toEqual({ checks: [], push: null, branch: null });
  });

  it('points at the key that is wrong, in the file that has it', () => {
    const f = file(JSON.stringify({ lander: { checks: ['npm test', { command: 'x', timeout: 0 }] } }));
    const e = thrown(() => loadSettings(f));
    expect(e).toMatchObject({ code: 'INVALID_VALUE', keyPath: 'lander.checks[1].timeout', source: f });
    expect(e.message).toBe(`${f}: lander.checks[1].timeout: expected a timeout in seconds: more than 0, at most 86400, got 0`);
    for (const [value, code, keyPath] of [
      [{ lander: { checks: [{ command: 'x', timeout: 86401 }] } }, 'INVALID_VALUE', 'lander.checks[0].timeout'],
      [{ lander: { checks: [{ command: 'x', timeout: '30' }] } }, 'INVALID_VALUE', 'lander.checks[0].timeout'],
      [{ lander: { checks: [{ timeout: 3 }] } }, 'MISSING_KEY', 'lander.checks[0].command'],
      [{ lander: { checks: [{ command: 'x', timout: 3 }] } }, 'UNKNOWN_KEY', 'lander.checks[0].timout'],
      [{ lander: { checks: [''] } }, 'INVALID_VALUE', 'lander.checks[0]'],
      [{ lander: { checks: ['  '] } }, 'INVALID_VALUE', 'lander.checks[0]'],
      [{ lander: { checks: [{ command: ' ' }] } }, 'INVALID_VALUE', 'lander.checks[0].command'],
      [{ lander: { checks: [{ command: 'x', name: '' }] } }, 'INVALID_VALUE', 'lander.checks[0].name'],
      [{ lander: { checks: [{ command: 'x', name: 'a\nb' }] } }, 'INVALID_VALUE', 'lander.checks[0].name'],
      [{ lander: { checks: [{ command: 'a\u0000b' }] } }, 'INVALID_VALUE', 'lander.checks[0].command'],
      [{ lander: { chekcs: [] } }, 'UNKNOWN_KEY', 'lander.chekcs'],
      [{ landr: {} }, 'UNKNOWN_KEY', 'landr'],
      [{ lander: { push: 'bad remote' } }, 'INVALID_VALUE', 'lander.push'],
      [{ lander: { push: 'origin', branch: 'HEAD' } }, 'INVALID_VALUE', 'lander.branch'],
      [{ lander: { push: '-origin' } }, 'INVALID_VALUE', 'lander.push'],
      [{ lander: { push: '' } }, 'INVALID_VALUE', 'lander.push'],
      [{ lander: { branch: 'a..b' } }, 'INVALID_VALUE', 'lander.branch'],
      [{ lander: { checks: 'npm test' } }, 'INVALID_VALUE', 'lander.checks'],
    ] as const) {
      const err = thrown(() => loadSettings(value));
      expect({ code: err.code, keyPath: err.keyPath, source: err.source }, JSON.stringify(value)).toEqual({
        code,
        keyPath,
        source: '(settings object)',
      });
    }
  });

  it('refuses a command that needs a shell, at its command key, saying how to write it', () => {
    const e = thrown(() => loadSettings({ lander: { checks: ['npm ci', { command: 'npm test | tee log', name: 'unit' }] } }));
    expect(e).toMatchObject({ code: 'INVALID_VALUE', keyPath: 'lander.checks[1].command' });
    expect(e.message).toContain("the check 'unit' uses the shell operator '|'");
    expect(e.message).toContain("sh -c '…'");
    expect(thrown(() => loadSettings({ lander: { checks: ['make && make test'] } })).keyPath).toBe('lander.checks[0]');
  });

  it('refuses two checks with one name', () => {
    const e = thrown(() => loadSettings({ lander: { checks: ['npm test', { command: 'npm  test' }] } }));
    expect(e).toMatchObject({ code: 'DUPLICATE', keyPath: 'lander.checks[1]' });
    expect(e.message).toContain("'npm test' is already used by lander.checks[0]");
  });

  it('says when the file is missing, unreadable or not JSON', () => {
    expect(thrown(() => loadSettings(join(dir, 'nope.json')))).toMatchObject({ code: 'FILE_NOT_FOUND', source: join(dir, 'nope.json') });
    expect(thrown(() => loadSettings(dir))).toMatchObject({ code: 'FILE_UNREADABLE' });
    expect(thrown(() => loadSettings(file('{"lander": {checks: []}}')))).toMatchObject({ code: 'PARSE_ERROR' });
    if (process.getuid?.() !== 0) {
      const locked = file('{}');
      chmodSync(locked, 0o000);
      expect(thrown(() => loadSettings(locked))).toMatchObject({ code: 'FILE_UNREADABLE' });
    }
    expect(thrown(() => loadSettings(42 as unknown as object))).toMatchObject({ code: 'INVALID_VALUE', keyPath: '' });
  });
});

describe("the manifest's lander: key", () => {
  it('is read with the same rules, errors located at their YAML line', () => {
    const m = parseManifestText('roles:\n  - name: agent\n    tools: [read]\nlander:\n  checks:\n    - npm test\n  push: origin\n');
    expect(m.lander).toEqual({
      checks: [{ name: 'npm test', argv: ['npm', 'test'], timeoutMs: 600_000, command: 'npm test' }],
      push: 'origin',
      branch: null,
    });
    expect(loadManifest({ roles }).lander).toBeUndefined();
    const e = thrown(() =>
      parseManifestText(
        'roles:\n  - name: agent\n    tools: [read]\nlander:\n  checks:\n    - npm test\n    - command: x\n      timeout: -1\n',
      ),
    );
    expect(e).toMatchObject({ code: 'INVALID_VALUE', keyPath: 'lander.checks[1].timeout', line: 8 });
    expect(thrown(() => loadManifest({ roles, lander: { checks: ['ls *'] } }))).toMatchObject({
      keyPath: 'lander.checks[0]',
      source: '(manifest object)',
    });
  });

  it('explicit settings win over it, whole; without either, the defaults', () => {
    const manifest = loadManifest({ roles, lander: { checks: ['npm test'], push: 'origin', branch: 'main' } });
    expect(chooseLanderSettings(undefined, manifest)).toEqual(manifest.lander);
    expect(chooseLanderSettings({ lander: { checks: ['make'] } }, manifest)).toEqual({
      checks: [{ name: 'make', argv: ['make'], timeoutMs: 600_000, command: 'make' }],
      push: null,
      branch: null,
    });
    expect(chooseLanderSettings({}, manifest)).toEqual({ checks: [], push: null, branch: null });
    expect(chooseLanderSettings(undefined, loadManifest({ roles }))).toEqual({ checks: [], push: null, branch: null });
  });
});

describe('branchNameProblem', () => {
  it('refuses what git refuses, and the names git branch refuses beyond that', () => {
    for (const bad of [
      '',
      'a..b',
      '-x',
      'HEAD',
      '@',
      'a@{1}',
      'a b',
      'a~1',
      'a^',
      'a:b',
      'a?',
      'a*',
      'a[',
      'a\\b',
      'a\tb',
      'x.lock',
      'a/x.lock/b',
      'a/',
      '/a',
      'a//b',
      '.a',
      'a/.b',
      'a.',
    ]) {
      expect(branchNameProblem(bad), JSON.stringify(bad)).not.toBeNull();
    }
    for (const good of ['main', 'release/2.x', 'feat/a-b_c', 'a.b', 'a@b', 'é', 'x.locked'])
      expect(branchNameProblem(good), good).toBeNull();
  });

  it('whatever it accepts, git check-ref-format accepts too', () => {
    const piece = fc.constantFrom('a', 'b', '.', '/', '-', '@', '{', '~', ' ', ':', '.lock', 'é', '\\', '*', 'HEAD');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }), (pieces) => {
        const name = pieces.join('');
        if (branchNameProblem(name) !== null) return;
        expect(() => execFileSync('git', ['check-ref-format', `refs/heads/${name}`]), name).not.toThrow();
      }),
      { numRuns: 150 },
    );
  });
});
