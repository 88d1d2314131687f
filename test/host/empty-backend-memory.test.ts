/**
 * `backend: empty` on the memory host, deterministically: the scratch folder `/state/scratch/<id>`
 * in the memfs volume, over a plain folder or a git repository; every file tool, `exec` through
 * the scripted sandbox (its plan binds the scratch folder writable at `/worktrees/<id>`), the
 * repository tools answering `BACKEND_UNAVAILABLE`, release rules, status, isolation and links.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost, type MemoryHost } from '../../src/host/memory/create-memory-host.js';
import { ScriptedSandbox } from '../../src/ports/scripted-sandbox.js';

const TOOLS = ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move', 'diff', 'commit', 'submit', 'messages', 'exec'];
const manifest = { roles: [{ name: 'scratch', tools: TOOLS, workspace: { backend: 'empty' } }] };
const text = (v: unknown) => String(v);

async function value<V = Record<string, unknown>>(host: MemoryHost, conversation: string, tool: string, args: unknown): Promise<V> {
  const r = await host.gate.call(conversation, tool, args);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
  return r.value as V;
}

async function code(host: MemoryHost, conversation: string, tool: string, args: unknown): Promise<string> {
  const r = await host.gate.call(conversation, tool, args);
  return r.ok ? 'OK' : r.error.code;
}

function listed(v: { entries: { path: string }[] }): string[] {
  return v.entries.map((e) => e.path).sort();
}

describe('memory host: backend empty', () => {
  it('prepares an empty confined folder over a plain folder, serves every file tool there, and never shows the source', async () => {
    const host = await createMemoryHost({ files: { 'source.txt': 'src\n' }, git: false, manifest });
    expect(await host.prepare({ conversation: 'e1' })).toMatchObject({
      backend: 'empty',
      guarantee: 'confined',
      branch: null,
      pinnedSha: null,
    });
    expect(host.volume.readdirSync('/state/scratch/e1')).toEqual([]);
    expect(listed(await value(host, 'e1', 'list', { pattern: '**' }))).toEqual([]);
    expect(await code(host, 'e1', 'read', { path: 'source.txt' })).toBe('NOT_FOUND');
    await value(host, 'e1', 'write', { path: 'a/one.md', content: 'one needle\n' });
    await value(host, 'e1', 'edit', { path: 'a/one.md', oldString: 'one', newString: 'two' });
    expect(text(host.volume.readFileSync('/state/scratch/e1/a/one.md', 'utf8'))).toBe('two needle\n');
    expect(JSON.stringify(await value(host, 'e1', 'grep', { pattern: 'needle' }))).toContain('a/one.md');
    await value(host, 'e1', 'move', { from: 'a/one.md', to: 'b/two.md' });
    expect(listed(await value(host, 'e1', 'list', { pattern: '**' }))).toEqual(['a', 'b', 'b/two.md']);
    await value(host, 'e1', 'delete', { path: 'b/two.md' });
    expect(host.volume.existsSync('/state/scratch/e1/b/two.md')).toBe(false);
    expect(text(host.volume.readFileSync('/repo/source.txt', 'utf8'))).toBe('src\n');
    expect(host.status()).toEqual([
      expect.objectContaining({ conversation: 'e1', backend: 'empty', state: 'ready', confinement: 'memory' }),
    ]);
    await host.close();
  });

  it('answers diff, commit, submit and messages with BACKEND_UNAVAILABLE', async () => {
    const host = await createMemoryHost({ files: { 'README.md': '# r\n' }, manifest });
    await host.prepare({ conversation: 'e1' });
    for (const [tool, args] of [
      ['diff', {}],
      ['commit', { message: 'm' }],
      ['submit', { divergence: 'none' }],
      ['messages', {}],
    ] as const) {
      expect(await code(host, 'e1', tool, args), tool).toBe('BACKEND_UNAVAILABLE');
    }
    await host.close();
  });

  it('runs exec with the scratch folder bound writable at /worktrees/<id>, .git left to the workspace', async () => {
    const sandbox = new ScriptedSandbox().script('make', { stdout: 'made\n', changed: ['/worktrees/e1/out.bin'] });
    const host = await createMemoryHost({ files: { 'README.md': '# r\n' }, manifest, sandbox });
    await host.prepare({ conversation: 'e1' });
    // A `.git` made there (by a command: the file tools refuse the name) is the workspace's own folder.
    expect(await code(host, 'e1', 'write', { path: '.git/HEAD', content: 'x' })).toBe('PROTECTED_PATH');
    host.volume.mkdirSync('/state/scratch/e1/.git');
    const v = await value<{ exitCode: number; stdout: string }>(host, 'e1', 'exec', { command: 'make' });
    expect(v).toMatchObject({ exitCode: 0, stdout: 'made\n' });
    const plan = sandbox.started[0]!.plan;
    expect(plan.binds).toContainEqual({ host: '/state/scratch/e1', at: '/worktrees/e1', writable: true });
    expect(plan.overlay).toBeUndefined();
    expect(plan.binds.filter((b) => b.at.startsWith('/worktrees/e1/.git'))).toEqual([]);
    expect(plan.hidden.filter((h) => h.startsWith('/worktrees/e1/.git'))).toEqual([]);
    expect(plan.binds.some((b) => b.host === '/repo' || b.host.startsWith('/repo/'))).toBe(false);
    await host.close();
  });

  it('refuses a release while files are there, releases folders only, and discards on request', async () => {
    const host = await createMemoryHost({ files: { 'README.md': '# r\n' }, manifest });
    await host.prepare({ conversation: 'e1' });
    host.volume.mkdirSync('/state/scratch/e1/empty/deeper', { recursive: true });
    expect(await host.release('e1')).toMatchObject({ removed: true });
    expect(host.volume.existsSync('/state/scratch/e1')).toBe(false);
    await host.prepare({ conversation: 'e1' });
    await value(host, 'e1', 'write', { path: 'work.txt', content: 'w' });
    await expect(host.release('e1')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['work.txt'] } });
    expect(await value(host, 'e1', 'read', { path: 'work.txt' })).toMatchObject({ content: 'w' });
    expect(await host.release('e1', { discard: true })).toMatchObject({ removed: true, discarded: true });
    expect(host.volume.existsSync('/state/scratch/e1')).toBe(false);
    expect(await code(host, 'e1', 'read', { path: 'work.txt' })).toBe('WORKSPACE_RELEASED');
    await host.close();
  });

  it('keeps two conversations apart, refuses an id with .., and a link out of the folder is SYMLINK_ESCAPE', async () => {
    const host = await createMemoryHost({ files: { 'README.md': '# r\n' }, manifest, folders: { '/outside': { 'secret.txt': 's' } } });
    await host.prepare({ conversation: 'a1' });
    await host.prepare({ conversation: 'b1' });
    await value(host, 'a1', 'write', { path: 'mine.txt', content: 'a' });
    expect(await code(host, 'b1', 'read', { path: 'mine.txt' })).toBe('NOT_FOUND');
    expect(await code(host, 'b1', 'read', { path: '/worktrees/a1/mine.txt' })).toBe('OUTSIDE_MOUNTS');
    await expect(host.prepare({ conversation: '../a1' })).rejects.toMatchObject({ data: { reason: 'BAD_CONVERSATION_ID' } });
    host.volume.symlinkSync('/outside', '/state/scratch/a1/out');
    expect(await code(host, 'a1', 'read', { path: 'out/secret.txt' })).toBe('SYMLINK_ESCAPE');
    expect(await code(host, 'a1', 'write', { path: 'out/planted.txt', content: 'x' })).toBe('SYMLINK_ESCAPE');
    expect(host.volume.existsSync('/outside/planted.txt')).toBe(false);
    await host.close();
  });
});
