/**
 * Attack class K: untrusted state. A state directory or database that came with the repository
 * (a clone of a repository that commits `.gatefs/gatefs.db`, a copied or extracted folder, a
 * symlinked state dir, a database without a proof of origin) is refused with STATE_UNTRUSTED
 * before anything is opened, rolled back or removed because a record named it. And even in a
 * trusted database, no record supplies a host path: records naming `/`, the repository, a path
 * with `..`, another folder, or a link planted in the worktrees folder make gatefs neither
 * serve nor remove anything outside `<stateDir>/worktrees/` (trees hashed before and after).
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { systemClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';
import { MIGRATIONS, migrate } from '../../src/state/migrations.js';
import type { WorkspaceDraft } from '../../src/state/workspace-table.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { hashTree } from './sandbox.js';

const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n' };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function repo(): TempRepo {
  const r = makeTempRepo(files);
  cleanups.push(() => r.cleanup());
  return r;
}

/** A folder outside every repository, holding bytes that must survive. */
function outsideFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatefs-sentinel-'));
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'secret.txt'), 'SENTINEL secret\n');
  writeFileSync(join(dir, 'sub/deep.txt'), 'SENTINEL deep\n');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function open(dir: string, manifest?: object): Promise<Host> {
  const host = await createHost({ repo: dir, ...(manifest ? { manifest } : {}) });
  cleanups.push(() => host.close());
  return host;
}

/** Writes records straight into a state database, as a forger (or a bug) would. */
function plantRecords(stateDir: string, records: WorkspaceDraft[]): void {
  const store = StateStore.open(join(stateDir, 'gatefs.db'), { clock: systemClock });
  try {
    for (const r of records) store.workspaces.put(r);
  } finally {
    store.close();
  }
}

const base = { role: 'agent', guarantee: 'confined' as const, data: { tools: ['read', 'list', 'write', 'edit', 'grep'], mounts: [] } };

/** A repository whose committed `.gatefs/gatefs.db` holds records aimed at `outside`. */
async function craftedRepository(outside: string): Promise<TempRepo> {
  const r = repo();
  const host = await createHost({ repo: r.dir });
  await host.close();
  plantRecords(join(r.dir, '.gatefs'), [
    {
      ...base,
      conversation: 'evil-prep',
      backend: 'copy',
      state: 'preparing',
      checkoutPath: outside,
      data: { ...base.data, created: { folder: true, worktree: true } },
    },
    {
      ...base,
      conversation: 'evil-ready',
      backend: 'worktree',
      state: 'ready',
      checkoutPath: outside,
      branch: 'gatefs/evil-ready',
      data: { ...base.data, mounts: [{ path: outside, writable: true }] },
    },
  ]);
  r.git('add', '-f', '.gatefs/gatefs.db');
  r.git('commit', '-qm', 'ship a state database');
  return r;
}

function clone(from: TempRepo): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'gatefs-clone-')), 'clone');
  cleanups.push(() => rmSync(join(dir, '..'), { recursive: true, force: true }));
  execFileSync('git', ['clone', '--quiet', from.dir, dir]);
  return dir;
}

async function refusal(dir: string): Promise<{ code: string; data: Record<string, unknown>; message: string }> {
  const e = await createHost({ repo: dir }).then(
    async (h) => {
      await h.close();
      throw new Error('expected STATE_UNTRUSTED');
    },
    (err: unknown) => err,
  );
  return e as { code: string; data: Record<string, unknown>; message: string };
}

describe('K: state that came with the repository is refused before it is used', () => {
  it('a clone of a repository that commits .gatefs/gatefs.db: STATE_UNTRUSTED (tracked), nothing rolled back, removed or served', async () => {
    const outside = outsideFolder();
    const crafted = await craftedRepository(outside);
    const dir = clone(crafted);
    const before = { outside: hashTree(outside), state: hashTree(join(dir, '.gatefs')), src: hashTree(join(dir, 'src')) };
    const e = await refusal(dir);
    expect(e).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'TRACKED', tracked: ['.gatefs/gatefs.db'] } });
    expect(e.message).toContain('git rm -r --cached');
    expect(hashTree(outside)).toBe(before.outside);
    expect(hashTree(join(dir, '.gatefs'))).toBe(before.state);
    expect(hashTree(join(dir, 'src'))).toBe(before.src);
    expect(existsSync(join(dir, '.gatefs/worktrees'))).toBe(false);
    expect(readFileSync(join(dir, '.git/info/exclude'), 'utf8')).not.toContain('.gatefs');
  });

  it('the same state untracked in a copied or extracted folder: STATE_UNTRUSTED (copied), nothing changed', async () => {
    const outside = outsideFolder();
    const r = repo();
    const host = await createHost({ repo: r.dir });
    await host.prepare({ conversation: 'mine' });
    await host.close();
    plantRecords(join(r.dir, '.gatefs'), [
      {
        ...base,
        conversation: 'evil-prep',
        backend: 'copy',
        state: 'preparing',
        checkoutPath: outside,
        data: { ...base.data, created: { folder: true } },
      },
    ]);
    const copy = join(mkdtempSync(join(tmpdir(), 'gatefs-copy-')), 'repo');
    cleanups.push(() => rmSync(join(copy, '..'), { recursive: true, force: true }));
    cpSync(r.dir, copy, { recursive: true, verbatimSymlinks: true });
    const before = { outside: hashTree(outside), state: hashTree(join(copy, '.gatefs')) };
    const e = await refusal(copy);
    expect(e).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'COPIED' } });
    expect(e.message).toMatch(/copied, cloned or extracted/);
    expect(e.message).toContain('mv ');
    expect(hashTree(outside)).toBe(before.outside);
    expect(hashTree(join(copy, '.gatefs'))).toBe(before.state);
    // the original, untouched, is still trusted
    const again = await open(r.dir);
    expect(again.status().map((s) => s.conversation)).toContain('mine');
  });

  it('an extracted state whose forged origin names the inodes the extraction got (predicted) is still refused: birth times cannot be forged', async () => {
    const born = (p: string) => lstatSync(p, { bigint: true }).birthtimeNs;
    const outside = outsideFolder();
    const r = repo();
    if (born(r.dir) === 0n) return; // a file system without birth times: the inode check is all there is (documented)
    const host = await createHost({ repo: r.dir });
    await host.prepare({ conversation: 'mine' });
    await host.close();
    plantRecords(join(r.dir, '.gatefs'), [
      {
        ...base,
        conversation: 'evil-prep',
        backend: 'copy',
        state: 'preparing',
        checkoutPath: outside,
        data: { ...base.data, created: { folder: true } },
      },
    ]);
    const copy = join(mkdtempSync(join(tmpdir(), 'gatefs-extract-')), 'repo');
    cleanups.push(() => rmSync(join(copy, '..'), { recursive: true, force: true }));
    cpSync(r.dir, copy, { recursive: true, verbatimSymlinks: true });
    const state = join(copy, '.gatefs');
    const shipped = JSON.parse(readFileSync(join(state, 'gatefs.origin'), 'utf8')) as {
      stateDir: { dev: number; ino: number; born?: string };
      database: { dev: number; ino: number; born?: string };
      uid: number;
    };
    const forge = (keepBorn: boolean) => {
      // The forger predicted the inodes right; the birth times are the ones it shipped (or none).
      const id = (path: string, was: { born?: string }) => {
        const st = lstatSync(path);
        return { dev: st.dev, ino: st.ino, ...(keepBorn && was.born ? { born: was.born } : {}) };
      };
      const forged = {
        version: 1,
        stateDir: id(state, shipped.stateDir),
        database: id(join(state, 'gatefs.db'), shipped.database),
        uid: shipped.uid,
      };
      writeFileSync(join(state, 'gatefs.origin'), `${JSON.stringify(forged)}\n`, { mode: 0o600 });
      const db = new Database(join(state, 'gatefs.db'));
      const value = (x: { dev: number; ino: number; born?: string }) => `${x.dev}:${x.ino}${x.born ? `:${x.born}` : ''}`;
      db.prepare("UPDATE meta SET value = ? WHERE key = 'origin.state_dir'").run(value(forged.stateDir));
      db.prepare("UPDATE meta SET value = ? WHERE key = 'origin.database'").run(value(forged.database));
      db.close();
      for (const j of ['-wal', '-shm']) rmSync(join(state, `gatefs.db${j}`), { force: true });
    };
    for (const keepBorn of [true, false]) {
      forge(keepBorn);
      const before = { outside: hashTree(outside), state: hashTree(state) };
      const e = await refusal(copy);
      expect({ keepBorn, code: e.code, reason: e.data.reason }).toEqual({ keepBorn, code: 'STATE_UNTRUSTED', reason: 'COPIED' });
      expect(hashTree(outside)).toBe(before.outside);
      expect(hashTree(state)).toBe(before.state);
    }
    // the original still opens
    expect((await open(r.dir)).status().map((s) => s.conversation)).toContain('mine');
  });

  it('mv keeps the proof (same inodes): a moved repository still opens and serves', async () => {
    const r = repo();
    const host = await createHost({ repo: r.dir });
    await host.prepare({ conversation: 'a', baseRef: 'HEAD' });
    await host.gate.call('a', 'write', { path: 'n.txt', content: 'kept' });
    await host.close();
    const moved = join(r.dir, '..', 'moved');
    renameSync(r.dir, moved);
    const h = await open(moved);
    expect(h.status()).toMatchObject([{ conversation: 'a', state: 'ready' }]);
    expect(await h.gate.call('a', 'read', { path: 'n.txt' })).toMatchObject({ ok: true, value: { content: 'kept' } });
  });

  it('a state dir that is a symlink, group-writable, holds a linked worktrees folder, or a state folder others may write to is refused', async () => {
    const outside = outsideFolder();
    const before = hashTree(outside);
    const r = repo();
    symlinkSync(outside, join(r.dir, '.gatefs'));
    expect(await refusal(r.dir)).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'LINK' } });
    rmSync(join(r.dir, '.gatefs'));
    (await open(r.dir)).close();
    // the database itself replaced by a link (to another state database, say)
    renameSync(join(r.dir, '.gatefs/gatefs.db'), join(r.dir, '.gatefs/real.db'));
    symlinkSync(join(r.dir, '.gatefs/real.db'), join(r.dir, '.gatefs/gatefs.db'));
    expect(await refusal(r.dir)).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'LINK' } });
    rmSync(join(r.dir, '.gatefs/gatefs.db'));
    renameSync(join(r.dir, '.gatefs/real.db'), join(r.dir, '.gatefs/gatefs.db'));
    chmodSync(join(r.dir, '.gatefs'), 0o775);
    const loose = await refusal(r.dir);
    expect(loose).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'PERMISSIONS' } });
    expect(loose.message).toContain('chmod go-w');
    chmodSync(join(r.dir, '.gatefs'), 0o700);
    // a state folder others may write to (they could swap a workspace folder or a lock file), or someone else's
    for (const sub of ['worktrees', 'copies', 'locks']) {
      mkdirSync(join(r.dir, '.gatefs', sub), { recursive: true, mode: 0o700 });
      chmodSync(join(r.dir, '.gatefs', sub), 0o757);
      expect({ sub, ...(await refusal(r.dir)).data }).toMatchObject({ sub, reason: 'PERMISSIONS' });
      chmodSync(join(r.dir, '.gatefs', sub), 0o700);
      if (process.getuid!() === 0) {
        chownSync(join(r.dir, '.gatefs', sub), 4321, 4321);
        expect({ sub, ...(await refusal(r.dir)).data }).toMatchObject({ sub, reason: 'OWNER' });
        chownSync(join(r.dir, '.gatefs', sub), 0, 0);
      }
    }
    rmSync(join(r.dir, '.gatefs/worktrees'), { recursive: true });
    symlinkSync(outside, join(r.dir, '.gatefs/worktrees'));
    expect(await refusal(r.dir)).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'LINK' } });
    expect(hashTree(outside)).toBe(before);
  });

  it('a database without a proof of origin (an earlier gatefs, or forged) is refused with a hint to move it aside', async () => {
    const r = repo();
    mkdirSync(join(r.dir, '.gatefs'), { mode: 0o700 });
    const db = new Database(join(r.dir, '.gatefs/gatefs.db'));
    migrate(db, MIGRATIONS.slice(0, 1));
    db.prepare(
      "INSERT INTO workspaces (conversation, role, backend, guarantee, state, checkout_path, data, created_at, updated_at) VALUES ('old', 'agent', 'copy', 'confined', 'preparing', '/', '{\"created\":{\"folder\":true}}', 0, 0)",
    ).run();
    db.close();
    const before = hashTree(join(r.dir, '.gatefs'));
    const e = await refusal(r.dir);
    expect(e).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'NO_ORIGIN' } });
    expect(readdirSync(join(r.dir, '.gatefs'))).toEqual(['gatefs.db']);
    expect(e.message).toMatch(/mv '.*\.gatefs' '.*\.gatefs\.old'/);
    expect(hashTree(join(r.dir, '.gatefs'))).toBe(before);
    // an origin file written by hand does not help: the inodes it names are not these
    writeFileSync(
      join(r.dir, '.gatefs/gatefs.origin'),
      JSON.stringify({ version: 1, stateDir: { dev: 1, ino: 2 }, database: { dev: 1, ino: 3 }, uid: process.getuid!() }),
      { mode: 0o600 },
    );
    expect(await refusal(r.dir)).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'COPIED' } });
    // the hint works: moved aside, gatefs starts fresh
    renameSync(join(r.dir, '.gatefs'), join(r.dir, '.gatefs.old'));
    expect((await open(r.dir)).status()).toEqual([]);
  });

  it('a state folder without a database from an archive (a locks link, a planted copy or worktree) is refused; an empty one is adopted', async () => {
    const outside = outsideFolder();
    const before = hashTree(outside);
    const r = repo();
    const state = join(r.dir, '.gatefs');
    const plant = (make: () => void) => {
      rmSync(state, { recursive: true, force: true });
      mkdirSync(join(state, 'worktrees'), { recursive: true, mode: 0o700 });
      mkdirSync(join(state, 'copies'), { mode: 0o700 });
      make();
    };
    const attempts: [string, () => void, string][] = [
      ['locks link', () => symlinkSync(outside, join(state, 'locks')), 'LINK'],
      [
        'a copy that would be a workspace upper',
        () => (mkdirSync(join(state, 'copies/c1')), writeFileSync(join(state, 'copies/c1/planted.ts'), 'planted')),
        'FOREIGN_CONTENT',
      ],
      ['a worktree link', () => symlinkSync(outside, join(state, 'worktrees/w1')), 'FOREIGN_CONTENT'],
      ['a serve-token link', () => symlinkSync(join(outside, 'secret.txt'), join(state, 'serve-token')), 'FOREIGN_CONTENT'],
      ['an origin file alone', () => writeFileSync(join(state, 'gatefs.origin'), '{}', { mode: 0o600 }), 'FOREIGN_CONTENT'],
    ];
    for (const [what, make, reason] of attempts) {
      plant(make);
      const shipped = hashTree(state);
      const e = await refusal(r.dir);
      expect({ what, code: e.code, reason: e.data.reason }).toEqual({ what, code: 'STATE_UNTRUSTED', reason });
      expect(e.message).toMatch(/move .* aside/);
      expect(hashTree(state)).toBe(shipped);
      expect(existsSync(join(state, 'gatefs.db'))).toBe(false);
    }
    // a trusted state dir whose locks folder was replaced by a link is refused too
    rmSync(state, { recursive: true, force: true });
    (await open(r.dir)).close();
    symlinkSync(outside, join(state, 'locks'));
    expect(await refusal(r.dir)).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'LINK' } });
    expect(hashTree(outside)).toBe(before);
    // the empty folders a crashed or concurrent start leaves are adopted
    plant(() => mkdirSync(join(state, 'locks'), { mode: 0o700 }));
    const host = await open(r.dir);
    await host.prepare({ conversation: 'w1' });
    expect(await host.gate.call('w1', 'edit', { path: 'README.md', oldString: 'demo', newString: 'demo!' })).toMatchObject({ ok: true });
    expect(hashTree(outside)).toBe(before);
  });

  it('a repository whose .git/info/exclude (or .git/info) is a planted link: nothing is written through it', async () => {
    const outside = outsideFolder();
    const before = hashTree(outside);
    const r = repo();
    rmSync(join(r.dir, '.git/info'), { recursive: true, force: true });
    mkdirSync(join(r.dir, '.git/info'));
    symlinkSync(join(outside, 'secret.txt'), join(r.dir, '.git/info/exclude'));
    expect(await refusal(r.dir)).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'GIT_EXCLUDE_LINK' } });
    expect(hashTree(outside)).toBe(before);
    rmSync(join(r.dir, '.git/info'), { recursive: true });
    symlinkSync(join(outside, 'sub'), join(r.dir, '.git/info'));
    expect(await refusal(r.dir)).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'GIT_EXCLUDE_LINK' } });
    expect(hashTree(outside)).toBe(before);
    // a regular exclude file gets the line once
    rmSync(join(r.dir, '.git/info'));
    (await open(r.dir)).close();
    (await open(r.dir)).close();
    expect(readFileSync(join(r.dir, '.git/info/exclude'), 'utf8')).toBe('/.gatefs/\n');
  });

  it('a file that is not a database (never opened), and a journal without its database, are refused untouched', async () => {
    const r = repo();
    mkdirSync(join(r.dir, '.gatefs'), { mode: 0o700 });
    writeFileSync(join(r.dir, '.gatefs/gatefs.db'), 'not sqlite at all, never opened');
    expect(await refusal(r.dir)).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'NO_ORIGIN' } });
    expect(readFileSync(join(r.dir, '.gatefs/gatefs.db'), 'utf8')).toBe('not sqlite at all, never opened');
    expect(readdirSync(join(r.dir, '.gatefs')).sort()).toEqual(['gatefs.db']);
    rmSync(join(r.dir, '.gatefs/gatefs.db'));
    writeFileSync(join(r.dir, '.gatefs/gatefs.db-wal'), 'a write-ahead log from elsewhere');
    expect(await refusal(r.dir)).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'STRAY_JOURNAL' } });
    expect(existsSync(join(r.dir, '.gatefs/gatefs.db'))).toBe(false);
  });
});

describe('K: no record supplies a host path', () => {
  it('interrupted preparations naming /, the repository, a path with .., another folder, or a planted link remove nothing outside', async () => {
    const outside = outsideFolder();
    const r = repo();
    (await open(r.dir)).close();
    const stateDir = join(r.dir, '.gatefs');
    symlinkSync(outside, join(stateDir, 'worktrees/p5'));
    symlinkSync(outside, join(stateDir, 'copies/p6'));
    const created = { ...base.data, created: { worktree: true, folder: true, branch: true } };
    plantRecords(stateDir, [
      { ...base, conversation: 'p1', backend: 'copy', state: 'preparing', checkoutPath: '/', data: created },
      {
        ...base,
        conversation: 'p2',
        backend: 'worktree',
        state: 'preparing',
        checkoutPath: r.dir,
        branch: 'main',
        pinnedSha: r.git('rev-parse', 'HEAD'),
        data: created,
      },
      { ...base, conversation: 'p3', backend: 'copy', state: 'preparing', checkoutPath: join(stateDir, 'copies/../../src'), data: created },
      { ...base, conversation: 'p4', backend: 'worktree', state: 'preparing', checkoutPath: outside, data: created },
      { ...base, conversation: 'p5', backend: 'worktree', state: 'preparing', checkoutPath: join(stateDir, 'worktrees/p5'), data: created },
      { ...base, conversation: 'p6', backend: 'copy', state: 'preparing', checkoutPath: join(stateDir, 'copies/p6'), data: created },
      { ...base, conversation: '../../up', backend: 'copy', state: 'preparing', checkoutPath: outside, data: created },
    ]);
    const before = {
      outside: hashTree(outside),
      src: hashTree(join(r.dir, 'src')),
      readme: readFileSync(join(r.dir, 'README.md'), 'utf8'),
      head: r.git('rev-parse', 'main'),
    };
    const host = await open(r.dir);
    expect(hashTree(outside)).toBe(before.outside);
    expect(hashTree(join(r.dir, 'src'))).toBe(before.src);
    expect(readFileSync(join(r.dir, 'README.md'), 'utf8')).toBe(before.readme);
    expect(r.git('rev-parse', 'main')).toBe(before.head);
    // the planted links were not followed, and are reported, not removed through
    const rolled = host.events().filter((e) => e.type === 'prepare.rolled_back');
    const problems = (id: string) => (rolled.find((e) => e.conversation === id)?.data.problems ?? []) as string[];
    expect(problems('p5').join(' ')).toMatch(/symbolic link/);
    expect(problems('p6').join(' ')).toMatch(/symbolic link/);
    expect(existsSync(join(outside, 'secret.txt'))).toBe(true);
  });

  it('ready records naming another folder, a linked worktree folder, or host mounts serve nothing of them', async () => {
    const outside = outsideFolder();
    const r = repo();
    const first = await createHost({ repo: r.dir });
    await first.prepare({ conversation: 'real' });
    await first.close();
    const stateDir = join(r.dir, '.gatefs');
    symlinkSync(outside, join(stateDir, 'worktrees/linked'));
    mkdirSync(join(stateDir, 'worktrees/plain'));
    writeFileSync(join(stateDir, 'worktrees/plain/inside.txt'), 'inside the state dir\n');
    const hostile = { ...base.data, mounts: [{ path: outside, writable: true }] };
    plantRecords(stateDir, [
      { ...base, conversation: 'aimed', backend: 'worktree', state: 'ready', checkoutPath: outside, data: hostile },
      { ...base, conversation: 'linked', backend: 'worktree', state: 'ready', checkoutPath: outside, data: hostile },
      { ...base, conversation: 'plain', backend: 'worktree', state: 'ready', checkoutPath: outside, data: hostile },
      { ...base, conversation: 'shared', backend: 'shared', guarantee: 'none', state: 'ready', checkoutPath: outside, data: hostile },
    ]);
    const before = hashTree(outside);
    const host = await open(r.dir);
    const leaks: string[] = [];
    for (const id of ['aimed', 'linked', 'plain', 'shared']) {
      for (const path of ['secret.txt', `${outside}/secret.txt`, 'sub/deep.txt']) {
        const res = await host.gate.call(id, 'read', { path });
        leaks.push(JSON.stringify(res));
        expect(res.ok && (res.value as { content: string }).content.includes('SENTINEL')).toBe(false);
      }
      const w = await host.gate.call(id, 'write', { path: `${outside}/planted.txt`, content: 'x' });
      expect(w.ok).toBe(false);
    }
    expect(leaks.join('\n')).not.toContain('SENTINEL');
    // the plain folder serves what is in it (derived path), and mounts come from the manifest only
    expect(await host.gate.call('plain', 'read', { path: 'inside.txt' })).toMatchObject({
      ok: true,
      value: { content: 'inside the state dir\n' },
    });
    expect(await host.gate.call('plain', 'list', { path: outside })).toMatchObject({ ok: false, error: { code: 'OUTSIDE_MOUNTS' } });
    // release of the linked one refuses to act through the link, with or without discard
    await expect(host.release('linked')).rejects.toMatchObject({ code: 'STATE_UNTRUSTED' });
    await expect(host.release('linked', { discard: true })).rejects.toMatchObject({ code: 'STATE_UNTRUSTED' });
    expect(hashTree(outside)).toBe(before);
    expect(await host.gate.call('real', 'read', { path: 'README.md' })).toMatchObject({ ok: true });
  });
});
