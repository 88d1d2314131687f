/**
 * `--conversation auto`'s choice, on an in-memory store with a manual liveness port: a window
 * keeps its id across reconnects, two live windows never share one, a closed window's id goes
 * to the next window (no pile-up) unless a live session still holds it; folder keys are valid,
 * readable ids; and the launcher rule that finds the window behind `npx` or `sh -c`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { claimAutoConversation, folderKeyOf } from '../../src/host/occupancy/auto-conversation.js';
import { isLauncherCommand } from '../../src/ports/client-window.js';
import { ManualClock } from '../../src/ports/clock.js';
import { ManualLiveness } from '../../src/ports/process-liveness.js';
import { StateStore } from '../../src/state/index.js';
import { isConversationId } from '../../vfs/workspace-root.js';

const stores: StateStore[] = [];
afterEach(() => {
  while (stores.length) stores.pop()!.close();
});

function world() {
  const liveness = new ManualLiveness(1);
  const store = StateStore.open(':memory:', { clock: new ManualClock(1000, 1), liveness });
  stores.push(store);
  const claim = (pid: number, folder = '/home/me/app') =>
    claimAutoConversation(store, liveness, { folder, window: { pid, start: `s${pid}` } });
  return { store, liveness, claim };
}

describe('folderKeyOf', () => {
  it('is the folder name, cleaned, plus 6 hex digits of the full path', () => {
    expect(folderKeyOf('/home/me/My App!')).toMatch(/^my-app-[0-9a-f]{6}$/);
    expect(folderKeyOf('/a/app')).not.toBe(folderKeyOf('/b/app'));
    expect(folderKeyOf('/a/app')).toBe(folderKeyOf('/a/app'));
    expect(folderKeyOf('/')).toMatch(/^folder-[0-9a-f]{6}$/);
    expect(folderKeyOf('/x/___')).toMatch(/^folder-[0-9a-f]{6}$/);
  });

  it('always leaves room for a slot in a valid conversation id', () => {
    for (const name of ['a'.repeat(200), 'Ünïcödé', '-lead', 'x_y-z', '....', '日本語']) {
      expect(isConversationId(`${folderKeyOf(`/w/${name}`)}-999`), name).toBe(true);
    }
  });
});

describe('claimAutoConversation', () => {
  it('a window that reconnects gets its own id again', () => {
    const { claim } = world();
    const first = claim(100);
    expect(first.how).toBe('new');
    expect(first.conversation).toBe(`${folderKeyOf('/home/me/app')}-1`);
    expect(claim(100)).toEqual({ conversation: first.conversation, how: 'reconnected' });
  });

  it('two live windows get two ids; another folder starts its own numbers', () => {
    const { claim } = world();
    const a = claim(100).conversation;
    const b = claim(200).conversation;
    expect(b).not.toBe(a);
    expect(b.endsWith('-2')).toBe(true);
    expect(claim(300, '/home/me/other').conversation).toBe(`${folderKeyOf('/home/me/other')}-1`);
  });

  it('a closed window leaves its id to the next window: five windows in turn make one workspace id', () => {
    const { claim, liveness } = world();
    const ids = new Set<string>();
    for (let pid = 100; pid < 105; pid++) {
      const chosen = claim(pid);
      ids.add(chosen.conversation);
      expect(chosen.how).toBe(pid === 100 ? 'new' : 'reused');
      liveness.kill(pid);
    }
    expect(ids.size).toBe(1);
  });

  it('a closed window whose workspace a live session still occupies is not reused', () => {
    const { claim, liveness, store } = world();
    const a = claim(100).conversation;
    store.workspaces.put({ conversation: a, role: 'agent', backend: 'worktree', guarantee: 'confined', state: 'ready' });
    store.occupancy.acquire({ conversation: a, holder: 'mcp-1-ab', mode: 'exclusive-write', process: { pid: 7, start: 's7' } }).record;
    liveness.kill(100);
    expect(claim(200).conversation).not.toBe(a);
    liveness.kill(7);
    liveness.kill(200);
    expect(claim(300)).toEqual({ conversation: a, how: 'reused' });
  });

  it('skips a slot whose id was prepared by hand', () => {
    const { claim, store } = world();
    store.workspaces.put({
      conversation: `${folderKeyOf('/home/me/app')}-1`,
      role: 'agent',
      backend: 'worktree',
      guarantee: 'confined',
      state: 'ready',
    });
    expect(claim(100).conversation).toBe(`${folderKeyOf('/home/me/app')}-2`);
  });
});

describe('isLauncherCommand', () => {
  it.each([
    [['npx', 'gatefs', 'serve'], true],
    [['/usr/bin/node', '/usr/lib/node_modules/npm/bin/npx-cli.js', 'gatefs'], true],
    [['node', '/usr/local/bin/npm', 'exec', 'gatefs'], true],
    [['/bin/sh', '-c', 'gatefs serve'], true],
    [['env', 'FOO=1', 'gatefs'], true],
    [['-bash'], false],
    [['bash'], false],
    [['/usr/bin/node', '/opt/claude/cli.js'], false],
    [['cursor', '--type=extensionHost'], false],
    [['codex'], false],
  ])('%j → %s', (argv, launcher) => {
    expect(isLauncherCommand(argv)).toBe(launcher);
  });
});
