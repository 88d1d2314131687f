/**
 * What the built package entries load (issue 20): a program that opens a disk host through
 * `gatefs` — open, status, a worktree workspace prepared and read through the gate — loads
 * neither memfs nor isomorphic-git (the memory host lives in `gatefs/testing`; the object
 * reader loads isomorphic-git on its first read of a pinned snapshot). `gatefs/testing` loads
 * both, and the root's `createMemoryHost` reaches it when called. Runs the built dist/ in a
 * child process (test/cli/loaded-packages.ts).
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { runLoggingPackages } from './loaded-packages.js';
import { ROOT } from './run-gatefs.js';

const ROOT_ENTRY = pathToFileURL(join(ROOT, 'dist/src/index.js')).href;
const TESTING_ENTRY = pathToFileURL(join(ROOT, 'dist/src/testing.js')).href;
const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.cleanup()));

const DISK_HOST = `const { createHost } = await import(${JSON.stringify(ROOT_ENTRY)});
const host = await createHost({ repo: process.argv[2] });
await host.prepare({ conversation: 'c1' });
const read = await host.gate.call('c1', 'read', { path: 'a.txt' });
console.log(JSON.stringify({ rows: host.status().length, content: read.ok ? read.value.content : read.error.code }));
await host.close();
`;

const MEMORY_HOST = (entry: string) => `const { createMemoryHost } = await import(${JSON.stringify(entry)});
const host = await createMemoryHost({ files: { 'a.txt': 'A\\n' } });
await host.prepare({ conversation: 'c1' });
const read = await host.gate.call('c1', 'read', { path: 'a.txt' });
console.log(JSON.stringify({ content: read.ok ? read.value.content : read.error.code, events: host.events().length > 0 }));
await host.close();
`;

describe('the package entries', () => {
  it('a disk host opened, prepared and read through gatefs loads neither memfs nor isomorphic-git', () => {
    const repo = makeTempRepo({ 'a.txt': 'A\n' });
    repos.push(repo);
    const { stdout, packages } = runLoggingPackages(DISK_HOST, [repo.dir]);
    expect(JSON.parse(stdout)).toEqual({ rows: 1, content: 'A\n' });
    expect(packages).toContain('better-sqlite3');
    expect(packages).not.toContain('memfs');
    expect(packages).not.toContain('isomorphic-git');
  }, 120_000);

  it('gatefs/testing builds a memory host, loading memfs and isomorphic-git', () => {
    const { stdout, packages } = runLoggingPackages(MEMORY_HOST(TESTING_ENTRY));
    expect(JSON.parse(stdout)).toEqual({ content: 'A\n', events: true });
    expect(packages).toEqual(expect.arrayContaining(['memfs', 'isomorphic-git']));
  }, 120_000);

  it("the root's createMemoryHost loads gatefs/testing when called and builds the same host", () => {
    const { stdout, packages } = runLoggingPackages(MEMORY_HOST(ROOT_ENTRY));
    expect(JSON.parse(stdout)).toEqual({ content: 'A\n', events: true });
    expect(packages).toEqual(expect.arrayContaining(['memfs', 'isomorphic-git']));
  }, 120_000);
});
