/**
 * Symlinks as every tool meets them through the gate: a link whose target stays inside its
 * mount is followed by read, edit, write, list and grep (and on the way by delete and move); a
 * link leading out is `SYMLINK_ESCAPE` for every tool; walks list links and never descend them;
 * what a link leads to is checked as the target itself (`.git`, authority, another mount).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { hashLayer } from '../conformance/fixture.js';
import { addWorkspace, errorOf, setupGate, text, valueOf } from '../tools/workspace-fixture.js';

const TOOLS = ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move'];
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function setup() {
  const s = setupGate();
  const layer = new MemoryLayer({
    root: '/ws',
    files: { 'a.txt': 'alpha needle\n', 'src/b.ts': 'beta needle\n', 'src/deep/c.ts': 'gamma\n', '.git/config': '[core]\n' },
  });
  const v = layer.volume;
  v.mkdirSync('/outside');
  v.writeFileSync('/outside/secret.ts', 'SENTINEL needle\n');
  v.symlinkSync('a.txt', '/ws/to-a');
  v.symlinkSync('src', '/ws/lnk');
  v.symlinkSync('src/deep', '/ws/deep-link');
  v.symlinkSync('/outside', '/ws/out');
  v.symlinkSync('../outside/secret.ts', '/ws/climb');
  v.symlinkSync('.git/config', '/ws/to-git');
  v.symlinkSync('.campaign/plan.md', '/ws/to-campaign');
  const campaign = new MemoryLayer({ files: { 'plan.md': 'plan\n' } });
  addWorkspace(s, 'a', { layer, tools: TOOLS, mounts: [{ path: '/worktrees/a/.campaign', layer: readOnly(campaign), writable: false }] });
  const call = (tool: string, args: unknown) => s.gate.call('a', tool, args);
  return { layer, campaign, call };
}

describe('links through the gate', () => {
  it('read, edit and write follow an in-mount link to its target, which they name; the link stays', async () => {
    const { layer, call } = setup();
    expect(valueOf(await call('read', { path: 'to-a' }))).toMatchObject({ path: 'a.txt', content: 'alpha needle\n' });
    expect(valueOf(await call('read', { path: 'lnk/b.ts' }))).toMatchObject({ path: 'src/b.ts', content: 'beta needle\n' });
    expect(valueOf(await call('read', { path: 'deep-link/../b.ts' })).path).toBe('src/b.ts');
    expect(valueOf(await call('edit', { path: 'to-a', oldString: 'alpha', newString: 'ALPHA' })).path).toBe('a.txt');
    expect(valueOf(await call('write', { path: 'lnk/new.ts', content: 'new\n' }))).toMatchObject({ path: 'src/new.ts', created: true });
    expect(valueOf(await call('write', { path: 'to-a', content: 'replaced\n', expectedSha256: sha('ALPHA needle\n') })).path).toBe('a.txt');
    expect(text(await layer.readFile('a.txt'))).toBe('replaced\n');
    expect(text(await layer.readFile('src/new.ts'))).toBe('new\n');
    expect(layer.volume.lstatSync('/ws/to-a').isSymbolicLink()).toBe(true);
  });

  it('list and grep start at what a link leads to, list links as links, and never descend one', async () => {
    const { call } = setup();
    const listed = valueOf(await call('list', { path: 'lnk' }));
    expect(listed.entries.map((e: { path: string; type: string }) => `${e.path}:${e.type}`)).toEqual([
      'src/b.ts:file',
      'src/deep:directory',
    ]);
    const all = valueOf(await call('list', { pattern: '**' })).entries.map((e: { path: string; type: string }) => `${e.path}:${e.type}`);
    expect(all).toContain('lnk:symlink');
    expect(all).toContain('out:symlink');
    expect(all.filter((p: string) => p.startsWith('lnk/') || p.startsWith('out/'))).toEqual([]);
    expect(valueOf(await call('grep', { pattern: 'needle', path: 'lnk' })).files).toEqual(['src/b.ts']);
    const everywhere = valueOf(await call('grep', { pattern: 'needle' }));
    expect(everywhere.files).toEqual(['a.txt', 'src/b.ts']);
    expect(JSON.stringify(everywhere)).not.toContain('SENTINEL');
  });

  it('every tool refuses a link leading out with SYMLINK_ESCAPE, never showing its target', async () => {
    const { layer, call } = setup();
    const before = await hashLayer(layer);
    const calls: [string, object][] = [
      ['read', { path: 'out/secret.ts' }],
      ['read', { path: 'climb' }],
      ['edit', { path: 'climb', oldString: 'SENTINEL', newString: 'x' }],
      ['write', { path: 'out/planted.ts', content: 'x' }],
      ['write', { path: 'climb', content: 'x' }],
      ['list', { path: 'out' }],
      ['grep', { pattern: 'needle', path: 'out' }],
      ['grep', { pattern: 'needle', path: 'climb' }],
      ['delete', { path: 'out/secret.ts' }],
      ['move', { from: 'out/secret.ts', to: 'stolen.ts' }],
      ['move', { from: 'a.txt', to: 'out/a.txt' }],
      ['read', { path: 'to-campaign' }],
    ];
    for (const [tool, args] of calls) {
      const r = await call(tool, args);
      expect({ tool, args, code: errorOf(r).code }).toEqual({ tool, args, code: 'SYMLINK_ESCAPE' });
      expect(JSON.stringify(r)).not.toMatch(/outside|SENTINEL/);
    }
    expect(await hashLayer(layer)).toBe(before);
    expect(String(layer.volume.readFileSync('/outside/secret.ts'))).toBe('SENTINEL needle\n');
  });

  it('what a link leads to is checked as the target: .git stays invisible and protected', async () => {
    const { layer, call } = setup();
    const before = await hashLayer(layer);
    expect(errorOf(await call('read', { path: 'to-git' })).code).toBe('NOT_FOUND');
    expect(errorOf(await call('write', { path: 'to-git', content: '[evil]\n' })).code).toBe('PROTECTED_PATH');
    expect(errorOf(await call('edit', { path: 'to-git', oldString: 'core', newString: 'evil' })).code).toBe('PROTECTED_PATH');
    expect(await hashLayer(layer)).toBe(before);
    // The link itself is an ordinary name: it may be deleted or moved.
    expect(valueOf(await call('move', { from: 'to-git', to: 'src/to-git' })).to).toBe('src/to-git');
    expect(valueOf(await call('delete', { path: 'src/to-git' })).deleted).toBe(true);
    expect(text(await layer.readFile('.git/config'))).toBe('[core]\n');
  });
});
