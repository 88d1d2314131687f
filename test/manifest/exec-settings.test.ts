/**
 * The command keys of gatefs.yaml: a role's `exec:` limits and `share:` folders, and the
 * top-level `checks:` — defaults, sizes as people write them, and each mistake refused at its key.
 */
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../src/manifest/load.js';
import type { ManifestError } from '../../src/manifest/manifest-error.js';

const role = { name: 'a', tools: ['read', 'exec', 'check'] };
const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
};

describe('exec:', () => {
  it('takes sizes as bytes or with K, M, G, and seconds for the timeout', () => {
    const exec = loadManifest({
      roles: [{ ...role, exec: { network: true, timeout: 30, memory: '512M', processes: 64, output: '64K', env: ['PATH', 'CI'] } }],
    }).roles[0]!.exec;
    expect(exec).toEqual({
      network: true,
      timeoutMs: 30_000,
      memoryBytes: 512 * 1024 ** 2,
      processes: 64,
      outputBytes: 64 * 1024,
      env: ['PATH', 'CI'],
      checkpoint: false,
    });
    expect(loadManifest({ roles: [{ ...role, exec: { memory: '1GiB', output: 4096 } }] }).roles[0]!.exec).toMatchObject({
      memoryBytes: 1024 ** 3,
      outputBytes: 4096,
    });
  });

  it('takes checkpoint: true (a snapshot before each command); off unless asked', () => {
    expect(loadManifest({ roles: [{ ...role, exec: { checkpoint: true } }] }).roles[0]!.exec.checkpoint).toBe(true);
    expect(loadManifest({ roles: [role] }).roles[0]!.exec.checkpoint).toBe(false);
  });

  it.each([
    [{ timeout: 601 }, 'roles[0].exec.timeout'],
    [{ memory: 'lots' }, 'roles[0].exec.memory'],
    [{ output: '0M' }, 'roles[0].exec.output'],
    [{ env: ['HOME'] }, 'roles[0].exec.env[0]'],
    [{ env: ['A-B'] }, 'roles[0].exec.env[0]'],
    [{ processes: 0 }, 'roles[0].exec.processes'],
    [{ shell: 'bash' }, 'roles[0].exec.shell'],
    [{ checkpoint: 'yes' }, 'roles[0].exec.checkpoint'],
  ])('refuses %j at its key', (exec, keyPath) => {
    expect(thrown(() => loadManifest({ roles: [{ ...role, exec }] }))).toMatchObject({ keyPath });
  });
});

describe('share:', () => {
  it('takes folders of the checkout, normalized', () => {
    expect(loadManifest({ roles: [{ ...role, share: ['node_modules/', 'packages/a/.venv'] }] }).roles[0]!.share).toEqual([
      'node_modules',
      'packages/a/.venv',
    ]);
  });

  it.each([
    [['/usr/lib'], 'roles[0].share[0]', 'INVALID_VALUE'],
    [['../outside'], 'roles[0].share[0]', 'INVALID_VALUE'],
    [['.git'], 'roles[0].share[0]', 'INVALID_VALUE'],
    [['node_modules', 'node_modules/x'], 'roles[0].share[1]', 'DUPLICATE'],
  ])('refuses %j', (share, keyPath, code) => {
    expect(thrown(() => loadManifest({ roles: [{ ...role, share }] }))).toMatchObject({ keyPath, code });
  });
});

describe('checks:', () => {
  it('splits a command without a shell, takes an argv as written, and defaults paths to false', () => {
    const { checks } = loadManifest({
      roles: [role],
      checks: [
        { name: 'unit', command: 'npx vitest run', timeout: 300, paths: true },
        { name: 'types', argv: ['npx', 'tsc', '--noEmit'] },
      ],
    });
    expect(checks).toEqual([
      { name: 'unit', argv: ['npx', 'vitest', 'run'], timeoutMs: 300_000, paths: true, command: 'npx vitest run' },
      { name: 'types', argv: ['npx', 'tsc', '--noEmit'], timeoutMs: 120_000, paths: false, command: 'npx tsc --noEmit' },
    ]);
  });

  it.each([
    [[{ name: 'u', command: 'npm test | tee log' }], 'checks[0].command'],
    [[{ name: 'u' }], 'checks[0]'],
    [[{ name: 'u', command: 'a', argv: ['a'] }], 'checks[0]'],
    [
      [
        { name: 'u', command: 'a' },
        { name: 'u', command: 'b' },
      ],
      'checks[1].name',
    ],
    [[{ name: 'has space', command: 'a' }], 'checks[0].name'],
    [[{ name: 'u', command: 'a', timeout: 900 }], 'checks[0].timeout'],
  ])('refuses %j at its key', (checks, keyPath) => {
    expect((thrown(() => loadManifest({ roles: [role], checks })) as ManifestError).keyPath).toBe(keyPath);
  });
});
