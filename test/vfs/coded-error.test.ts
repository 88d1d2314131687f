/**
 * The coded-error base: every error gatefs raises on purpose is a `CodedError` whose `code` a
 * caller can branch on, whose `data` holds the facts, and whose `cause` keeps the foreign error
 * without copying its text (which may hold a host path) into the message. Foreign codes (Node's
 * `ENOENT`) and gatefs codes (`NOT_FOUND`) never pass for each other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodedError, codeOf, foreignCodeOf, isCodedError } from '../../vfs/coded-error.js';
import { VfsError, fromErrno, isDescriptorShortage } from '../../vfs/errors.js';
import { WorkspaceError } from '../../src/workspace-error.js';
import { StateError } from '../../src/state/state-error.js';
import { ManifestError } from '../../src/manifest/manifest-error.js';
import { GitError } from '../../src/git/git-port.js';
import { HostExecError } from '../../src/ports/host-exec.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { ListenAddressError } from '../../src/mcp/http/listen-address.js';
import { TokenError } from '../../src/mcp/http/serve-token.js';
import { UnboundedSchemaError } from '../../src/mcp/message-limits/message-limit.js';
import { InsecureBindError } from '../../src/mcp/http/http-server.js';
import { CreationRefusal } from '../../src/mcp/http/creation-budget.js';
import { ToolFailure } from '../../tools/result.js';
import { BatchTimeout, RegexEngineFailure } from '../../tools/grep/regex-worker-pool.js';
import { TaskFailure } from '../../vfs/worker-pool.js';
import { toToolError } from '../../src/gate/tool-error.js';

const root = join(import.meta.dirname, '../..');

/** A Node system error as node:fs throws it: its message names the host path. */
function enoent(hostPath: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file or directory, open '${hostPath}'`), { code: 'ENOENT', errno: -2, syscall: 'open' });
}

describe('CodedError', () => {
  const samples: [string, CodedError, string][] = [
    ['VfsError', new VfsError('NOT_FOUND', 'read', 'a.txt'), 'NOT_FOUND'],
    ['WorkspaceError', new WorkspaceError('OCCUPIED', 'in use', { holder: 'h1' }), 'OCCUPIED'],
    ['StateError', new StateError('SCHEMA_TOO_NEW', 'newer', { file: 'db' }), 'SCHEMA_TOO_NEW'],
    ['ManifestError', new ManifestError('UNKNOWN_KEY', 'roles[0].x', 'unknown key'), 'UNKNOWN_KEY'],
    ['GitError', new GitError('BAD_REF', 'rev-parse', "'nope' names no commit"), 'BAD_REF'],
    ['HostExecError', new HostExecError('SPAWN_FAILED', ['git', 'status'], 'ENOENT'), 'SPAWN_FAILED'],
    ['UsageError', new UsageError('unknown flag', 'serve'), 'USAGE'],
    ['ListenAddressError', new ListenAddressError('bad address'), 'BAD_LISTEN_ADDRESS'],
    ['TokenError', new TokenError('BAD_TOKEN', 'too short'), 'BAD_TOKEN'],
    ['UnboundedSchemaError', new UnboundedSchemaError('read', 'unbounded'), 'UNBOUNDED_SCHEMA'],
    ['InsecureBindError', new InsecureBindError('no token'), 'INSECURE_BIND'],
    ['CreationRefusal', new CreationRefusal('TOTAL_LIMIT', 'used up'), 'TOTAL_LIMIT'],
    ['ToolFailure', new ToolFailure('NO_MATCH', 'not found', 'a.txt'), 'NO_MATCH'],
    ['BatchTimeout', new BatchTimeout(250), 'BATCH_TIMEOUT'],
    ['RegexEngineFailure', new RegexEngineFailure('stack overflow'), 'REGEX_ENGINE_FAILURE'],
    ['TaskFailure', new TaskFailure('a program threw'), 'TASK_FAILED'],
  ];

  it.each(samples)('%s is a CodedError with its own name and a stable code', (name, e, code) => {
    expect(e).toBeInstanceOf(CodedError);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe(name);
    expect(e.code).toBe(code);
    expect(codeOf(e)).toBe(code);
    expect(isCodedError(e, code)).toBe(true);
    expect(isCodedError(e, 'SOMETHING_ELSE')).toBe(false);
    expect(foreignCodeOf(e)).toBeUndefined();
  });

  it('keeps the facts in data, readable without the message', () => {
    expect(new VfsError('READ_ONLY', 'write', '/docs/a.md').data).toEqual({
      op: 'write',
      path: '/docs/a.md',
      detail: 'the path is in a read-only mount',
    });
    expect(
      new ManifestError('DUPLICATE', 'roles[1].name', 'a role named a already exists', { source: 'gatefs.yaml', line: 7 }).data,
    ).toEqual({
      keyPath: 'roles[1].name',
      detail: 'a role named a already exists',
      source: 'gatefs.yaml',
      line: 7,
    });
    expect(new WorkspaceError('OCCUPIED', 'in use', { holder: 'h1', mode: 'exclusive-write' }).data).toEqual({
      holder: 'h1',
      mode: 'exclusive-write',
    });
    expect(new UsageError('unknown flag', 'serve').command).toBe('serve');
    expect(new BatchTimeout(250).budgetMs).toBe(250);
  });

  it('messages read as before: the public wording of VfsError, ManifestError, GitError and HostExecError', () => {
    expect(new VfsError('NOT_FOUND', 'read', 'a.txt').message).toBe("NOT_FOUND: read 'a.txt': no such file or folder");
    expect(
      new ManifestError('INVALID_VALUE', 'roles[0].workspace.backend', 'expected worktree', { source: 'g.yaml', line: 3 }).message,
    ).toBe('g.yaml:3: roles[0].workspace.backend: expected worktree');
    expect(new GitError('BAD_REF', 'rev-parse', 'no commit').message).toBe('BAD_REF: git rev-parse: no commit');
    expect(new HostExecError('SPAWN_FAILED', ['git', 'status'], 'ENOENT').message).toBe('SPAWN_FAILED: git status: ENOENT');
  });

  it('keeps the cause, never its text: a host path in a node:fs error does not reach the message', () => {
    const cause = enoent('/home/someone/secret/a.txt');
    const e = fromErrno(cause, 'read', 'a.txt');
    expect(e.code).toBe('NOT_FOUND');
    expect(e.cause).toBe(cause);
    expect(e.message).not.toContain('/home/someone');
    expect(toToolError(e).message).not.toContain('/home/someone');
    const moved = e.withPath('/worktrees/c1/a.txt');
    expect(moved.cause).toBe(cause);
    expect(moved.path).toBe('/worktrees/c1/a.txt');
  });

  it('a gatefs code and a foreign code never pass for each other', () => {
    const node = enoent('/tmp/x');
    expect(foreignCodeOf(node)).toBe('ENOENT');
    expect(codeOf(node)).toBe('ENOENT');
    expect(isCodedError(node)).toBe(false);
    const ours = fromErrno(node, 'stat', 'x');
    expect(codeOf(ours)).toBe('NOT_FOUND');
    expect(foreignCodeOf(ours)).toBeUndefined();
    expect(codeOf(new Error('plain'))).toBeUndefined();
    expect(codeOf({ code: 42 })).toBeUndefined();
    expect(codeOf(null)).toBeUndefined();
    expect(codeOf('ENOENT')).toBeUndefined();
  });

  it('finds a descriptor shortage down the cause chain, and only a real one', () => {
    const emfile = Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
    expect(isDescriptorShortage(new Error('git failed', { cause: new Error('read', { cause: emfile }) }))).toBe(true);
    expect(isDescriptorShortage(new VfsError('BUSY', 'read', 'a'))).toBe(true);
    expect(isDescriptorShortage(new WorkspaceError('BUSY', 'another process prepares it'))).toBe(false);
    expect(isDescriptorShortage(new Error('no', { cause: enoent('/x') }))).toBe(false);
  });
});

describe('the sources', () => {
  const files = ['vfs', 'tools', 'src'].flatMap((dir) => sourcesUnder(join(root, dir)));

  it('declare every error class on the CodedError base (no class extends Error directly but the base)', () => {
    const direct = files.filter((f) => /\bextends Error\b/.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f));
    expect(direct).toEqual(['vfs/coded-error.ts']);
  });

  it('never read `code` off an unknown value by a cast: codeOf/foreignCodeOf or instanceof instead', () => {
    const casts = files
      .filter(
        (f) => /as \{[^}]*\bcode\?/.test(readFileSync(f, 'utf8')) || /as NodeJS\.ErrnoException\)\.code/.test(readFileSync(f, 'utf8')),
      )
      .map((f) => relative(root, f));
    expect(casts).toEqual([]);
  });
});

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => join(d.parentPath, d.name));
}
