/**
 * The lander on a real repository with real checks (processes through the host-exec port) and
 * a bare remote on disk: a failing check and a timed-out one answer the submitter with the
 * output tail and leave main alone; a remote that rejects and then accepts gets exactly the
 * local landing; two conversations submitting at once both land, first come first landed; a
 * person's commit on main during the check is kept and the candidate is checked again; an
 * unreachable remote (a missing folder, a failing fetch) leaves the landings local with their
 * pushes pending (as the CLI says) and the next run pushes them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { ExecCheckRunner } from '../../src/ports/check-runner.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';

/**
 * A check runner that runs checks unconfined, as the lander did before its checks moved into the
 * kernel sandbox: these tests' checks are their seam to act outside the candidate (a person
 * committing, a pid file, what the check saw), which a sandboxed check cannot reach, by design.
 * test/sandbox/lander-checks.test.ts covers the sandboxed checks production runs.
 */
const unconfinedChecks = new ExecCheckRunner(new NodeHostExec());

const manifest = {
  roles: [{ name: 'agent', tools: ['read', 'write', 'edit', 'diff', 'commit', 'submit'], workspace: { backend: 'worktree' } }],
};
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(settings: object, files: Record<string, string> = { 'README.md': '# r\n' }) {
  const repo = makeTempRepo(files);
  cleanups.push(() => repo.cleanup());
  const host = await createHost({ repo: repo.dir, manifest, settings });
  cleanups.push(() => host.close());
  return { repo, host };
}

/** Writes, commits and submits one file as `conversation`; result: the submission id. */
async function submitFile(host: Host, conversation: string, path: string, content: string): Promise<string> {
  await host.prepare({ conversation });
  expect((await host.gate.call(conversation, 'write', { path, content })).ok).toBe(true);
  expect((await host.gate.call(conversation, 'commit', { message: `add ${path}` })).ok).toBe(true);
  const submitted = await host.gate.call(conversation, 'submit', { divergence: 'None', summary: `adds ${path}` });
  expect(submitted).toMatchObject({ ok: true });
  return (submitted as { value: { submissionId: string } }).value.submissionId;
}

function bareRemote(repo: TempRepo): string {
  const remote = join(repo.dir, '..', 'remote.git');
  execFileSync('git', ['init', '--quiet', '--bare', remote]);
  repo.git('remote', 'add', 'origin', remote);
  repo.git('push', '--quiet', 'origin', 'main');
  return remote;
}

/** True while `pid` runs (a zombie waiting to be reaped has ended: its state is Z). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const remoteHead = (remote: string) => execFileSync('git', ['--git-dir', remote, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();

describe('checks', () => {
  it('a failing check answers the submitter with its name, exit code and output tail; main does not move', async () => {
    const check = `sh -c 'echo compiling; echo "error: a.txt is wrong" >&2; exit 3'`;
    const { repo, host } = await world({ lander: { checks: ['true', { command: check, name: 'build' }] } });
    const before = repo.git('rev-parse', 'main');
    const id = await submitFile(host, 'a', 'a.txt', 'A\n');
    const report = await host.lander.run();
    expect(report).toMatchObject({ landed: [], failed: [id] });
    expect(repo.git('rev-parse', 'main')).toBe(before);
    expect(host.lander.status()).toMatchObject([{ id, state: 'failed', reason: 'CHECK_FAILED', landedSha: null }]);
    const [input] = host.messages('a');
    expect(input).toMatchObject({ kind: 'input', requestId: `req-${id}`, body: { check: 'build', exitCode: 3, timedOut: false } });
    expect(input!.body.output).toContain('compiling');
    expect(input!.body.output).toContain('error: a.txt is wrong');
    expect(host.messages().filter((m) => m.kind !== 'input')).toEqual([]);
  });

  it('a check that outlives its timeout is killed with what it started and reported as timed out', async () => {
    const { repo, host } = await world({});
    const pidFile = join(repo.dir, '..', 'sleeper.pid');
    const check = { command: `sh -c 'sleep 30 & echo $! > ${pidFile}; echo started; wait'`, timeout: 1, name: 'slow' };
    await host.close();
    const again = await createHost({ repo: repo.dir, manifest, settings: { lander: { checks: [check] } }, checks: unconfinedChecks });
    cleanups.push(() => again.close());
    const id = await submitFile(again, 'a', 'a.txt', 'A\n');
    const report = await again.lander.run();
    expect(report.failed).toEqual([id]);
    const [input] = again.messages('a');
    expect(input!.body).toMatchObject({ reason: 'CHECK_TIMED_OUT', check: 'slow', exitCode: null, timedOut: true });
    expect(input!.body.output).toContain('started');
    expect(String(input!.body.message)).toBe("check 'slow' timed out after 1 s");
    const sleeper = Number(readFileSync(pidFile, 'utf8').trim());
    // SIGKILL is delivered when the process next runs: on a loaded machine it can still be on
    // its way when the report returns, so the check is that it dies, not that it died already.
    await vi.waitFor(() => expect(isRunning(sleeper)).toBe(false), { timeout: 10_000, interval: 50 });
  });

  it("a person's commit on main during the check is kept: the candidate is merged again and checked again", async () => {
    const { repo } = await world({});
    const flag = join(repo.dir, '..', 'committed-once');
    const person = [
      `if test -e ${flag}; then exit 0; fi`,
      `touch ${flag}`,
      `echo by hand > ${repo.dir}/PERSON.md`,
      `git -C ${repo.dir} add PERSON.md`,
      `git -C ${repo.dir} -c user.name=person -c user.email=p@example.invalid commit -q -m "by hand"`,
    ].join('; ');
    const host = await createHost({
      repo: repo.dir,
      manifest,
      settings: { lander: { checks: [`sh -c '${person}'`, 'true'] } },
      checks: unconfinedChecks,
    });
    cleanups.push(() => host.close());
    const id = await submitFile(host, 'a', 'a.txt', 'A\n');
    const report = await host.lander.run();
    expect(report.landed).toEqual([id]);
    expect(repo.git('show', 'main:PERSON.md')).toBe('by hand');
    expect(repo.git('show', 'main:a.txt')).toBe('A');
    expect(repo.git('log', '--format=%s', 'main')).toContain('by hand');
    const types = host.events().map((e) => e.type);
    expect(types.filter((t) => t === 'lander.checking')).toHaveLength(2);
    expect(types).toContain('lander.target_moved');
    // The checkout the person works in follows the branch: their file and the agent's are there.
    expect(existsSync(join(repo.dir, 'a.txt'))).toBe(true);
    expect(repo.git('status', '--porcelain')).toBe('');
  });
});

describe('the remote', () => {
  it('a rejected push keeps the local landing; the next run pushes exactly that commit and reports once', async () => {
    const { repo, host } = await world({ lander: { checks: ['true'], push: 'origin' } });
    const remote = bareRemote(repo);
    const id = await submitFile(host, 'a', 'a.txt', 'A\n');
    // A lock file on the remote's branch makes every push fail (receive-pack cannot lock the ref).
    const lock = join(remote, 'refs/heads/main.lock');
    writeFileSync(lock, '');
    const first = await host.lander.run();
    expect(first).toMatchObject({ landed: [], pushPending: [id] });
    const [landed] = host.lander.status();
    expect(landed).toMatchObject({ state: 'landed', pushAttempts: 3 });
    expect(landed!.pushError).toBeTruthy();
    expect(repo.git('rev-parse', 'main')).toBe(landed!.landedSha);
    expect(remoteHead(remote)).not.toBe(landed!.landedSha);
    expect(host.messages('a')).toEqual([]);
    rmSync(lock);
    const second = await host.lander.run();
    expect(second.landed).toEqual([id]);
    expect(remoteHead(remote)).toBe(landed!.landedSha);
    expect(host.lander.status()).toMatchObject([{ id, state: 'done', landedSha: landed!.landedSha, pushError: null }]);
    expect(host.messages('a').map((m) => m.kind)).toEqual(['report', 'note']);
    expect((await host.lander.run()).landed).toEqual([]);
    expect(host.messages('a')).toHaveLength(2);
  });

  it('an unreachable remote does not fail the run: both landings stay local, the CLI says so, the next run pushes them', async () => {
    const { repo, host } = await world({ lander: { checks: ['true'], push: 'origin' } });
    const later = join(repo.dir, '..', 'later.git');
    repo.git('remote', 'add', 'origin', later);
    const ids = [await submitFile(host, 'a', 'a.txt', 'A\n'), await submitFile(host, 'b', 'b.txt', 'B\n')];
    const first = await host.lander.run();
    expect(first).toMatchObject({ landed: [], failed: [], pushPending: ids, blocked: [] });
    const queue = host.lander.status();
    expect(queue.map((s) => s.state)).toEqual(['landed', 'landed']);
    for (const s of queue) expect(s.pushError).toMatch(/^remote 'origin' unreachable: .*does not appear to be a git repository/);
    expect(repo.git('rev-parse', 'main')).toBe(queue[1]!.landedSha);
    expect(repo.git('show', 'main:a.txt')).toBe('A');
    expect(host.messages('a')).toEqual([]);
    // Each landing went on without the remote (recorded); the second did not wait on it again.
    const unreachable = host.events().filter((e) => e.type === 'lander.remote_unreachable');
    expect(unreachable.map((e) => e.data.submission)).toEqual(ids);
    // What the operator reads: landed locally, the push pending, the remote unreachable.
    const lines: string[] = [];
    const out = {
      print: (t: string) => void lines.push(t),
      json: () => undefined,
      jsonLine: () => undefined,
      progress: () => undefined,
      problem: () => undefined,
    };
    const settingsFile = join(repo.dir, '..', 'settings.json');
    writeFileSync(settingsFile, JSON.stringify({ lander: { checks: ['true'], push: 'origin' } }));
    const manifestFile = join(repo.dir, '..', 'gatefs.yaml');
    writeFileSync(manifestFile, JSON.stringify(manifest));
    const flags = ['--repo', repo.dir, '--settings', settingsFile, '--manifest', manifestFile];
    expect(await runCli(['lander', 'run', ...flags], COMMANDS, out)).toBe(0);
    expect(lines.join('\n')).toMatch(/^landed sub-[0-9a-f]+ locally; the push is pending \(remote 'origin' unreachable: /);
    execFileSync('git', ['init', '--quiet', '--bare', later]);
    const second = await host.lander.run();
    expect(second).toMatchObject({ landed: ids, pushPending: [] });
    expect(remoteHead(later)).toBe(queue[1]!.landedSha);
    expect(host.lander.status().map((s) => [s.state, s.landedSha, s.pushError])).toEqual(queue.map((s) => ['done', s.landedSha, null]));
    expect(host.messages('a').map((m) => m.kind)).toEqual(['report', 'note']);
  });

  it('a remote whose fetch fails (a broken transport) lands locally the same way', async () => {
    const { repo, host } = await world({ lander: { checks: [], push: 'origin' } });
    const remote = bareRemote(repo);
    // The remote's repository is there, but its objects cannot be read: every fetch fails.
    rmSync(join(remote, 'objects'), { recursive: true });
    const id = await submitFile(host, 'a', 'a.txt', 'A\n');
    const report = await host.lander.run();
    expect(report).toMatchObject({ landed: [], failed: [], pushPending: [id] });
    const [s] = host.lander.status();
    expect(s).toMatchObject({ state: 'landed', landedSha: repo.git('rev-parse', 'main') });
    expect(s!.pushError).toMatch(/^remote 'origin' unreachable: /);
    expect(repo.git('show', 'main:a.txt')).toBe('A');
  });

  it('lands on top of commits the remote has and the local branch lacks', async () => {
    const { repo, host } = await world({ lander: { checks: [], push: 'origin' } });
    const remote = bareRemote(repo);
    const other = makeTempRepo();
    cleanups.push(() => other.cleanup());
    execFileSync('git', ['clone', '--quiet', '--branch', 'main', remote, join(other.dir, 'clone')]);
    const clone = (...args: string[]) => execFileSync('git', ['-C', join(other.dir, 'clone'), ...args], { encoding: 'utf8' }).trim();
    writeFileSync(join(other.dir, 'clone', 'THEIRS.md'), 'theirs\n');
    clone('add', '.');
    clone('-c', 'user.name=o', '-c', 'user.email=o@example.invalid', 'commit', '-q', '-m', 'theirs');
    clone('push', '-q', 'origin', 'main');
    const id = await submitFile(host, 'a', 'a.txt', 'A\n');
    expect((await host.lander.run()).landed).toEqual([id]);
    expect(repo.git('show', 'main:THEIRS.md')).toBe('theirs');
    expect(repo.git('show', 'main:a.txt')).toBe('A');
    expect(remoteHead(remote)).toBe(repo.git('rev-parse', 'main'));
  });
});

describe('the queue', () => {
  it('two conversations submitting at once both land, in the order their submissions were recorded', async () => {
    const { repo, host } = await world({ lander: { checks: ['true'] } }, { 'README.md': '# r\n', 'shared.txt': 'one\ntwo\nthree\n' });
    for (const c of ['a', 'b']) await host.prepare({ conversation: c });
    expect((await host.gate.call('a', 'edit', { path: 'shared.txt', oldString: 'one', newString: 'ONE' })).ok).toBe(true);
    expect((await host.gate.call('b', 'edit', { path: 'shared.txt', oldString: 'three', newString: 'THREE' })).ok).toBe(true);
    for (const c of ['a', 'b']) expect((await host.gate.call(c, 'commit', { message: `edit by ${c}` })).ok).toBe(true);
    const both = await Promise.all(['a', 'b'].map((c) => host.gate.call(c, 'submit', { divergence: 'None' })));
    const ids = both.map((r) => (r as { value: { submissionId: string; queuePosition: number } }).value);
    expect(ids.map((v) => v.queuePosition).sort()).toEqual([1, 2]);
    const order = host.lander.status().map((s) => s.id);
    const report = await host.lander.run();
    expect(report.landed).toEqual(order);
    expect(repo.git('show', 'main:shared.txt')).toBe('ONE\ntwo\nTHREE');
    const landed = host.lander.status().map((s) => s.landedSha);
    expect(repo.git('rev-parse', 'main')).toBe(landed[1]);
    expect(repo.git('merge-base', '--is-ancestor', landed[0]!, landed[1]!)).toBe('');
  });

  it('a submission that conflicts with an earlier landing fails with the conflicting file, the rest still land', async () => {
    const { repo, host } = await world({ lander: { checks: [] } }, { 'README.md': '# r\n', 'shared.txt': 'one\n' });
    for (const c of ['a', 'b', 'c']) await host.prepare({ conversation: c });
    for (const c of ['a', 'b']) {
      expect((await host.gate.call(c, 'write', { path: 'shared.txt', content: `by ${c}\n` })).ok).toBe(true);
      expect((await host.gate.call(c, 'commit', { message: `by ${c}` })).ok).toBe(true);
      expect((await host.gate.call(c, 'submit', { divergence: 'None' })).ok).toBe(true);
    }
    const idC = await submitFile(host, 'c', 'c.txt', 'C\n');
    const [idA, idB] = host.lander.status().map((s) => s.id);
    const report = await host.lander.run();
    expect(report).toMatchObject({ landed: [idA, idC], failed: [idB] });
    expect(repo.git('show', 'main:shared.txt')).toBe('by a');
    expect(host.messages('b')).toMatchObject([{ kind: 'input', body: { reason: 'MERGE_CONFLICT', conflicts: ['shared.txt'] } }]);
  });

  it('two landers started at once (two hosts) land each submission once: the second finds the queue taken or empty', async () => {
    const { repo, host } = await world({ lander: { checks: ['true'] } });
    const ids = [await submitFile(host, 'a', 'a.txt', 'A\n'), await submitFile(host, 'b', 'b.txt', 'B\n')];
    const other = await createHost({ repo: repo.dir, manifest, settings: { lander: { checks: ['true'] } } });
    cleanups.push(() => other.close());
    const [one, two] = await Promise.all([host.lander.run(), other.lander.run()]);
    expect([...one.landed, ...two.landed].sort()).toEqual([...ids].sort());
    expect(one.busy.length + two.busy.length).toBeLessThanOrEqual(1);
    const log = repo.git('log', '--format=%s', 'main').split('\n');
    expect(log.filter((l) => l === 'add a.txt')).toHaveLength(1);
    expect(log.filter((l) => l === 'add b.txt')).toHaveLength(1);
    expect(host.messages().filter((m) => m.kind === 'report')).toHaveLength(2);
  });

  it('submitting with uncommitted work is DIRTY_WORKTREE naming the files; nothing is queued', async () => {
    const { host } = await world({});
    await host.prepare({ conversation: 'a' });
    await host.gate.call('a', 'write', { path: 'draft.txt', content: 'draft\n' });
    const r = await host.gate.call('a', 'submit', { divergence: 'None' });
    expect(r).toMatchObject({ ok: false, error: { code: 'DIRTY_WORKTREE' } });
    expect((r as { error: { message: string } }).error.message).toContain('draft.txt');
    expect(host.lander.status()).toEqual([]);
  });
});
