/**
 * Handoffs and routed artifacts tried as agents smuggling files would (SECURITY.md classes A–F, M,
 * O, S, T around the artifact store), beyond the cases of test/host/artifacts-collect.test.ts and
 * artifact-routing*.test.ts:
 *
 * - collection: another conversation's absolute path, `.git` and paths through it (a worktree's
 *   and a nested one), the authority file, duplicates that normalise to one path, names with
 *   control characters and bidi overrides, a FIFO made by a command; and a declared file swapped
 *   for a link, a FIFO or a bigger file between the look and the read (the host layer's seams);
 * - the emitter: its later writes never change the stored copy, its commands never see the store;
 * - the receiver: tools and commands cannot change, remove, move, chmod or hard-link a routed
 *   file; a routed file is never collected again; its auto-patch never holds routed files; a
 *   routed folder below a read-only folder of its own (a `share:` or a relative mount named
 *   `artifacts`) does not break its commands;
 * - races: two handoffs and an end of one visit at once (one wins), `max_visits` with preparers
 *   in two hosts over one state directory;
 * - the auto-patch of names git quotes (newline, tab, quote, leading space, leading '-'), a mode
 *   change and a symlink: `git apply` at the pinned base reproduces them.
 *
 * Where an agent's own command would swap things in during a collection, the host layer's seams
 * (test/security/sandbox.ts) do it at the exact moment: after the look, before the read.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import type { HandoffValue } from '../../tools/handoff-requests.js';
import { collectArtifacts } from '../../src/host/artifacts/collect-artifacts.js';
import { ArtifactStoreDir } from '../../src/ports/artifact-store.js';
import type { HostSeams } from '../../vfs/host-layer.js';
import { makeTempRepo } from '../host/temp-repo.js';
import { type Sandbox, sandboxed, swapForLink } from './sandbox.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping the command cases: ${support.cause}`);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const T = 60_000;
const tools = ['read', 'write', 'edit', 'delete', 'move', 'list', 'grep', 'exec', 'handoff', 'end'];
const exec = { timeout: 20, processes: 64, memory: '256M', output: '256K' };

interface World {
  host: Host;
  repo: ReturnType<typeof makeTempRepo>;
  stateDir: string;
  ws(conversation: string): string;
}

async function world(files: Record<string, string> = {}, roles: object[] = []): Promise<World> {
  const repo = makeTempRepo({ 'README.md': '# demo\n', 'gatefs.yaml': 'roles: []\n', 'src/a.ts': 'a\n', ...files });
  cleanups.push(() => repo.cleanup());
  const host = await createHost({
    repo: repo.dir,
    manifest: {
      roles: [
        { name: 'maker', tools, exec, artifacts: { auto_patch: true } },
        { name: 'taker', tools, exec, artifacts: { auto_patch: true } },
        ...roles,
      ],
    },
  });
  cleanups.push(() => host.close());
  const stateDir = join(repo.dir, '.gatefs');
  return { host, repo, stateDir, ws: (c) => join(stateDir, 'worktrees', c) };
}

async function ok(host: Host, conversation: string, tool: string, args: object): Promise<Record<string, unknown>> {
  const r = await host.gate.call(conversation, tool, args);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
  return r.value as Record<string, unknown>;
}

async function codeOf(host: Host, conversation: string, tool: string, args: object): Promise<string> {
  const r = await host.gate.call(conversation, tool, args);
  return r.ok ? 'ok' : r.error.code;
}

async function run(host: Host, conversation: string, command: string) {
  return (await ok(host, conversation, 'exec', { command })) as { exitCode: number; stdout: string; stderr: string };
}

describe.skipIf(!support.available)('routed artifacts in commands', () => {
  it("a routed folder below the receiver's own read-only artifacts/ (a share, a relative mount) leaves its commands working", {
    timeout: T,
  }, async () => {
    const w = await world({ 'artifacts/keep.md': 'kept in the repository\n' }, [
      { name: 'sharer', tools, exec, share: ['artifacts'] },
      { name: 'mounter', tools, exec, workspace: { mounts: [{ path: 'artifacts', writable: false }] } },
    ]);
    const { host } = w;
    await host.prepare({ conversation: 'm1', role: 'maker', run: 'r1' });
    await host.prepare({ conversation: 'm2', role: 'maker', run: 'r1' });
    await host.prepare({ conversation: 's1', role: 'sharer', run: 'r1' });
    await host.prepare({ conversation: 'u1', role: 'mounter', run: 'r1' });
    await ok(host, 'm1', 'write', { path: 'x.txt', content: 'handed over\n' });
    await ok(host, 'm2', 'write', { path: 'x.txt', content: 'handed over\n' });
    expect((await ok(host, 'm1', 'handoff', { to: 'sharer', files: ['x.txt'] })).collected).toHaveLength(1);
    expect((await ok(host, 'm2', 'handoff', { to: 'mounter', files: ['x.txt'] })).collected).toHaveLength(1);
    // The tools show the routed file inside the read-only folder.
    expect((await ok(host, 's1', 'read', { path: 'artifacts/maker-v1/x.txt' })).content).toBe('handed over\n');
    expect((await ok(host, 'u1', 'read', { path: 'artifacts/maker-v2/x.txt' })).content).toBe('handed over\n');
    // A command still runs: bwrap cannot make a mount point inside a read-only folder.
    for (const c of ['s1', 'u1']) {
      const r = await run(host, c, 'cat artifacts/keep.md');
      expect({ c, r }).toMatchObject({ c, r: { exitCode: 0, stderr: '' } });
      expect(r.stdout).toBe('kept in the repository\n');
    }
  });
});

describe('collection, tried by a smuggling agent', () => {
  it("refuses another conversation's files, .git anywhere and odd spellings of one path; collects odd names as they are", {
    timeout: T,
  }, async () => {
    const w = await world();
    const { host } = w;
    await host.prepare({ conversation: 'm1', role: 'maker', run: 'r1' });
    await host.prepare({ conversation: 'other', role: 'maker', run: 'r2' });
    await ok(host, 'other', 'write', { path: 'secret.txt', content: 'not yours\n' });
    await ok(host, 'm1', 'write', { path: 'a', content: 'A' });
    await ok(host, 'm1', 'write', { path: 'sub/.git/config', content: '[core]\n' }).catch(() => undefined);
    const odd = ['esc\u001b[2Jname.txt', 'rtl\u202etxt.exe', 'new\nline.txt', '-dash.txt'];
    for (const name of odd) await ok(host, 'm1', 'write', { path: name, content: name });
    const value = (await ok(host, 'm1', 'handoff', {
      to: 'taker',
      files: [
        '/worktrees/other/secret.txt',
        '/worktrees/m1/../other/secret.txt',
        '/worktrees/m1x/a',
        '.git',
        '.git/config',
        '.git/HEAD',
        'sub/.git/config',
        'a',
        './a',
        'a/../a',
        '/worktrees/m1/./a',
        'a//a',
        ...odd,
      ],
    })) as unknown as HandoffValue;
    expect(value.collected.map((c) => c.path)).toEqual(['a', ...odd]);
    expect(value.rejected.map((r) => [r.path, r.code])).toEqual([
      ['/worktrees/other/secret.txt', 'OUTSIDE_WORKSPACE'],
      ['/worktrees/m1/../other/secret.txt', 'PATH_ESCAPE'],
      ['/worktrees/m1x/a', 'OUTSIDE_WORKSPACE'],
      ['.git', 'NOT_FOUND'],
      ['.git/config', 'NOT_FOUND'],
      ['.git/HEAD', 'NOT_FOUND'],
      ['sub/.git/config', 'NOT_FOUND'],
      ['a', 'DUPLICATE'],
      ['a', 'DUPLICATE'],
      ['a', 'DUPLICATE'],
      ['a/a', 'NOT_FOUND'],
    ]);
    // Nothing of the other conversation and nothing of .git is in the store.
    const folder = join(w.stateDir, 'artifacts/r1/maker-v1');
    expect(fs.readdirSync(folder).sort()).toEqual(['a', ...odd].sort());
    // What the operator reads: no control character or bidi override reaches the terminal.
    const { formatRunStatus, formatArtifacts } = await import('../../src/cli/run-text.js');
    const status = host.runs.status('r1');
    const text = formatRunStatus(status, host.runs.artifacts('r1')) + formatArtifacts('r1', host.runs.artifacts('r1'), status.patches);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('esc\\x1b[2Jname.txt');
  });

  it('rejects a FIFO a command made without hanging, and the emitter never reaches the store', { timeout: T }, async () => {
    if (!support.available) return;
    const w = await world();
    const { host } = w;
    await host.prepare({ conversation: 'm1', role: 'maker', run: 'r1' });
    await ok(host, 'm1', 'write', { path: 'out.txt', content: 'first\n' });
    const made = await run(host, 'm1', `mkfifo pipe; ln /etc/hostname hard 2>&1; ls ${w.stateDir} 2>&1; echo done`);
    expect(made.stdout).toContain('done');
    expect(made.stdout).toContain('cross-device');
    expect(made.stdout).not.toContain('artifacts');
    const value = (await ok(host, 'm1', 'handoff', { to: 'taker', files: ['out.txt', 'pipe', 'hard'] })) as unknown as HandoffValue;
    expect(value.rejected.map((r) => [r.path, r.code])).toEqual([
      ['pipe', 'NOT_REGULAR_FILE'],
      ['hard', 'NOT_FOUND'],
    ]);
    const stored = join(w.stateDir, 'artifacts/r1/maker-v1/out.txt');
    // The emitter keeps working on its file: the stored copy is another inode and never changes.
    await ok(host, 'm1', 'write', { path: 'out.txt', content: 'changed after the handoff\n' });
    const changed = await run(host, 'm1', 'echo appended >> out.txt; chmod 777 out.txt; echo ok');
    expect(changed.stdout).toBe('ok\n');
    expect(fs.readFileSync(stored, 'utf8')).toBe('first\n');
    expect(fs.statSync(stored).mode & 0o777).toBe(0o444);
    expect(fs.statSync(stored).ino).not.toBe(fs.statSync(join(w.ws('m1'), 'out.txt')).ino);
  });
});

describe('the receiver of a routed folder', () => {
  it('cannot change, remove, move, chmod or hard-link a routed file, nor hand it on; its auto-patch holds none of it', {
    timeout: T,
  }, async () => {
    const w = await world();
    const { host } = w;
    await host.prepare({ conversation: 'm1', role: 'maker', run: 'r1' });
    await host.prepare({ conversation: 't1', role: 'taker', run: 'r1' });
    await ok(host, 'm1', 'write', { path: 'out/a.txt', content: 'handed\n' });
    const value = (await ok(host, 'm1', 'handoff', { to: 'taker', files: ['out/a.txt'] })) as unknown as HandoffValue;
    const object = join(w.stateDir, 'artifacts/objects', value.collected[0]!.sha256);
    const R = 'artifacts/maker-v1/out/a.txt';
    expect((await ok(host, 't1', 'read', { path: R })).content).toBe('handed\n');
    const refused = [
      await codeOf(host, 't1', 'write', { path: R, content: 'x' }),
      await codeOf(host, 't1', 'delete', { path: R }),
      await codeOf(host, 't1', 'delete', { path: 'artifacts/maker-v1' }),
      await codeOf(host, 't1', 'move', { from: R, to: 'stolen.txt' }),
      await codeOf(host, 't1', 'move', { from: 'artifacts/maker-v1', to: 'x' }),
      await codeOf(host, 't1', 'move', { from: 'README.md', to: `${R}.new` }),
      await codeOf(host, 't1', 'write', { path: 'artifacts/maker-v1/new.txt', content: 'x' }),
    ];
    expect(
      refused.every((c) => c === 'READ_ONLY' || c === 'CROSS_MOUNT'),
      refused.join(','),
    ).toBe(true);
    if (support.available) {
      const r = await run(
        host,
        't1',
        `echo x > ${R}; echo w=$?; chmod +x ${R}; echo c=$?; ln ${R} hl; echo l=$?; rm -f ${R}; echo r=$?; touch artifacts/maker-v1/t; echo t=$?`,
      );
      expect(r.stdout).toBe('w=2\nc=1\nl=1\nr=1\nt=1\n');
      expect(r.stderr).toContain('Read-only file system');
      expect(r.stderr).toContain('cross-device');
    }
    expect(fs.readFileSync(object, 'utf8')).toBe('handed\n');
    expect(fs.statSync(object).mode & 0o777).toBe(0o444);
    // Handing a routed file on: it is in a read-only mount, not the receiver's work.
    const again = (await ok(host, 't1', 'handoff', {
      to: 'maker',
      files: [R, '/worktrees/t1/artifacts/maker-v1/out/a.txt'],
    })) as unknown as HandoffValue;
    expect(again.collected).toEqual([]);
    expect(again.rejected.map((r) => r.code)).toEqual(['OUTSIDE_WORKSPACE', 'DUPLICATE']);
    // The receiver changed nothing of its own: its auto-patch is empty, the routed files are not its changes.
    expect(again.patch).toMatchObject({ files: 0, bytes: 0 });
    expect(fs.existsSync(join(w.ws('t1'), 'artifacts'))).toBe(false);
  });
});

describe('races', () => {
  it('two handoffs and an end of one visit at once: one wins, the others are VISIT_ENDED, one record', { timeout: T }, async () => {
    const w = await world();
    const { host } = w;
    await host.prepare({ conversation: 'm1', role: 'maker', run: 'r1' });
    await ok(host, 'm1', 'write', { path: 'a.txt', content: 'a' });
    await ok(host, 'm1', 'write', { path: 'b.txt', content: 'b' });
    const answers = await Promise.all([
      host.gate.call('m1', 'handoff', { to: 'taker', files: ['a.txt'] }),
      host.gate.call('m1', 'handoff', { to: 'taker', files: ['b.txt'] }),
      host.gate.call('m1', 'end', {}),
    ]);
    const codes = answers.map((r) => (r.ok ? 'ok' : r.error.code));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(1);
    expect(codes.filter((c) => c === 'VISIT_ENDED')).toHaveLength(2);
    const status = host.runs.status('r1');
    expect(status.handoffs).toHaveLength(1);
    expect(status.patches).toHaveLength(1);
    expect(fs.readdirSync(join(w.stateDir, 'artifacts/r1'))).toEqual(status.handoffs[0]!.folder ? ['maker-v1'] : []);
  });

  it('max_visits holds for preparers in two hosts over one state directory', { timeout: T }, async () => {
    const repo = makeTempRepo({ 'README.md': '# demo\n' });
    cleanups.push(() => repo.cleanup());
    const manifest = { roles: [{ name: 'worker', tools: ['read'], max_visits: 2, workspace: { backend: 'empty' } }] };
    const a = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => a.close());
    const b = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => b.close());
    const ids = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
    const outcomes = await Promise.allSettled(
      ids.map((id, i) => (i % 2 === 0 ? a : b).prepare({ conversation: id, role: 'worker', run: 'r1' })),
    );
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { code?: string }).code] : []));
    expect(refused).toEqual(['VISITS_EXHAUSTED', 'VISITS_EXHAUSTED', 'VISITS_EXHAUSTED', 'VISITS_EXHAUSTED']);
    const visits = a.runs.status('r1').visits;
    expect(visits.map((v) => v.visit).sort()).toEqual([1, 2]);
    // The refused ones left nothing: no workspace record that is not a visit.
    const ready = a
      .status()
      .filter((s) => s.state === 'ready')
      .map((s) => s.conversation);
    expect(ready.sort()).toEqual(visits.map((v) => v.conversation).sort());
  });
});

describe('the auto-patch', () => {
  it('holds names git quotes, a mode change and a symlink, and git apply at the pinned base reproduces them', { timeout: T }, async () => {
    if (!support.available) return;
    const w = await world();
    const { host } = w;
    await host.prepare({ conversation: 'm1', role: 'maker', run: 'r1' });
    await ok(host, 'm1', 'write', { path: '-dash.txt', content: 'dash\n' });
    const made = await run(
      host,
      'm1',
      'chmod +x README.md; ln -s README.md link; printf n > "new\nline"; printf t > "tab\tname"; printf q > \'quo"te\'; printf s > " lead"; echo ok',
    );
    expect(made.stdout).toBe('ok\n');
    const value = (await ok(host, 'm1', 'end', {})) as { patch: { sha256: string; files: number } };
    expect(value.patch.files).toBe(7);
    const patchFile = join(w.stateDir, 'artifacts/objects', value.patch.sha256);
    const base = host.runs.status('r1').patches[0]!.baseSha;
    const fresh = join(w.repo.dir, '..', 'fresh');
    w.repo.git('worktree', 'add', '--quiet', '--detach', fresh, base);
    execFileSync('git', ['apply', patchFile], { cwd: fresh, stdio: 'pipe' });
    expect(fs.readFileSync(join(fresh, '-dash.txt'), 'utf8')).toBe('dash\n');
    expect(fs.readFileSync(join(fresh, 'new\nline'), 'utf8')).toBe('n');
    expect(fs.readFileSync(join(fresh, 'tab\tname'), 'utf8')).toBe('t');
    expect(fs.readFileSync(join(fresh, 'quo"te'), 'utf8')).toBe('q');
    expect(fs.readFileSync(join(fresh, ' lead'), 'utf8')).toBe('s');
    expect(fs.readlinkSync(join(fresh, 'link'))).toBe('README.md');
    expect(fs.statSync(join(fresh, 'README.md')).mode & 0o111).not.toBe(0);
  });
});

/** Seams that run `action` once, at the first event of `op` of `step` (any path). */
function firstOf(step: keyof HostSeams, op: string, action: () => void): HostSeams & { fired(): boolean } {
  let fired = false;
  const fn = (e: { op: string }) => {
    if (!fired && e.op === op) {
      fired = true;
      action();
    }
  };
  return { [step]: fn, fired: () => fired } as HostSeams & { fired(): boolean };
}

/** Collects `declared` from the sandbox's workspace through a root layer with `seams`, into a store beside it. */
async function collectWith(sb: Sandbox, seams: HostSeams, declared: string[], maxFileBytes = 1000) {
  const ns = sb.namespaceOver(sb.openRoot({ seams }));
  const stateDir = fs.mkdtempSync(join(sb.base, '..', 'gatefs-store-'));
  cleanups.push(() => fs.rmSync(stateDir, { recursive: true, force: true }));
  const store = new ArtifactStoreDir(stateDir, fs, String(process.pid));
  const collection = await collectArtifacts(ns, store, declared, { maxFileBytes, maxFiles: 32 }, true);
  const objects = collection.files.map((f) => fs.readFileSync(store.objectPath(f.sha256), 'utf8'));
  sb.transcript.push(JSON.stringify(collection.records), ...objects);
  return { records: collection.records.map((r) => (r.record === 'artifact_collected' ? ['ok', r.bytes] : [r.code])), objects };
}

describe('a declared file swapped between the look and the read (host layer seams)', () => {
  it(
    'for a link to the sentinel: never followed, nothing outside stored',
    sandboxed(async (sb) => {
      const seams = firstOf('beforeStep', 'read', () => swapForLink(join(sb.work, 'd/f.txt'), join(sb.sentinel, 'f.txt')));
      const got = await collectWith(sb, seams, ['d/f.txt']);
      expect(seams.fired()).toBe(true);
      expect(got.records[0]![0]).toMatch(/^(SYMLINK|SYMLINK_ESCAPE|NOT_FOUND)$/);
      expect(got.objects).toEqual([]);
    }),
  );

  it(
    'for a folder link on the way: never followed',
    sandboxed(async (sb) => {
      const seams = firstOf('beforeStep', 'read', () => swapForLink(join(sb.work, 'd'), sb.sentinel));
      const got = await collectWith(sb, seams, ['d/f.txt']);
      expect(seams.fired()).toBe(true);
      // With procfs the read goes on in the folder handle it holds (the original, now d.real); never the sentinel.
      expect(got.objects.join('')).not.toContain(sb.marker);
      expect(got.objects.every((o) => o === 'inside f\n')).toBe(true);
    }),
  );

  it(
    'for a FIFO: NOT_REGULAR_FILE without hanging',
    sandboxed(async (sb) => {
      const seams = firstOf('beforeStep', 'read', () => {
        fs.rmSync(join(sb.work, 'd/f.txt'));
        execFileSync('mkfifo', [join(sb.work, 'd/f.txt')]);
      });
      const got = await collectWith(sb, seams, ['d/f.txt']);
      expect(seams.fired()).toBe(true);
      expect(got.records).toEqual([['NOT_REGULAR_FILE']]);
    }),
  );

  it(
    'for a file that grows past max_file_bytes after its size was checked: TOO_LARGE, never cut',
    sandboxed(async (sb) => {
      const seams = firstOf('afterCheck', 'read', () => fs.appendFileSync(join(sb.work, 'd/f.txt'), 'x'.repeat(2000)));
      const got = await collectWith(sb, seams, ['d/f.txt', 'README.md']);
      expect(seams.fired()).toBe(true);
      expect(got.records).toEqual([['TOO_LARGE'], ['ok', 7]]);
    }),
  );
});
