/**
 * Two hosts, one remote, proven on one machine: two clones of one bare repository, each with its
 * own state directory and its own lander pushing to `origin`, real git and real checks.
 * - A lander whose landing the remote refuses because the other host pushed first re-merges its
 *   local head onto the remote's head, runs the checks again on that new candidate (the check
 *   records the commit it saw), moves its branch and pushes it; `landedSha` stays the local
 *   landing, `pushedSha` is the re-merge.
 * - Submissions racing on both hosts, both landers running at once, again and again until the
 *   queues are empty: every submission lands exactly once, the remote holds every one, nothing
 *   is lost or merged twice, and every commit a lander pushed was checked by that lander.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
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
  roles: [{ name: 'agent', tools: ['read', 'write', 'commit', 'submit'], workspace: { backend: 'worktree' } }],
};
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** One machine's side: a clone with its own identity, its state directory, its lander's check log. */
interface Side {
  name: string;
  dir: string;
  seen: string;
  host: Host;
}

/** A bare remote holding one commit on main, and two clones of it, each with a host whose check records the commit it checks. */
async function twoHosts(): Promise<{ remote: string; sides: [Side, Side] }> {
  const root = mkdtempSync(join(tmpdir(), 'gatefs-two-hosts-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const remote = join(root, 'remote.git');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', remote]);
  const seed = join(root, 'seed');
  execFileSync('git', ['clone', '--quiet', remote, seed], { stdio: 'ignore' });
  identity(seed);
  appendFileSync(join(seed, 'README.md'), '# shared\n');
  git(seed, 'add', '.');
  git(seed, 'commit', '--quiet', '-m', 'initial');
  git(seed, 'push', '--quiet', 'origin', 'HEAD:main');
  const sides: Side[] = [];
  for (const name of ['east', 'west']) {
    const dir = join(root, name);
    execFileSync('git', ['clone', '--quiet', '--branch', 'main', remote, dir], { stdio: 'ignore' });
    identity(dir);
    const seen = join(root, `${name}-checked.log`);
    const settings = { lander: { checks: [`sh -c 'git rev-parse HEAD >> ${seen}'`], push: 'origin' } };
    const host = await createHost({ repo: dir, manifest, settings, checks: unconfinedChecks });
    cleanups.push(() => host.close());
    sides.push({ name, dir, seen, host });
  }
  return { remote, sides: sides as [Side, Side] };
}

function identity(dir: string): void {
  appendFileSync(join(dir, '.git/config'), '[user]\n\tname = gatefs test\n\temail = test@gatefs.invalid\n[commit]\n\tgpgsign = false\n');
}

/** Writes, commits and submits one file as `conversation`; result: the submission id. */
async function submitFile(host: Host, conversation: string, path: string): Promise<string> {
  await host.prepare({ conversation });
  expect((await host.gate.call(conversation, 'write', { path, content: `${path} by ${conversation}\n` })).ok).toBe(true);
  expect((await host.gate.call(conversation, 'commit', { message: `add ${path}` })).ok).toBe(true);
  const submitted = await host.gate.call(conversation, 'submit', { divergence: 'None', summary: `adds ${path}` });
  expect(submitted).toMatchObject({ ok: true });
  return (submitted as { value: { submissionId: string } }).value.submissionId;
}

const remoteMain = (remote: string) => execFileSync('git', ['--git-dir', remote, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();
const checked = (side: Side) => (existsSync(side.seen) ? readFileSync(side.seen, 'utf8').split('\n').filter(Boolean) : []);
const isAncestor = (remote: string, a: string, b: string) => {
  try {
    execFileSync('git', ['--git-dir', remote, 'merge-base', '--is-ancestor', a, b]);
    return true;
  } catch {
    return false;
  }
};

describe('two hosts, one remote', () => {
  it('a landing refused because the other host pushed first is re-merged onto the remote, checked again and pushed', async () => {
    const { remote, sides } = await twoHosts();
    const [east, west] = sides;
    // West lands while its remote cannot be reached: its landing stays local, its push pending.
    git(west.dir, 'remote', 'set-url', 'origin', join(remote, '..', 'not-there.git'));
    const westId = await submitFile(west.host, 'w', 'west.txt');
    const offline = await west.host.lander.run();
    expect(offline).toMatchObject({ landed: [], failed: [], pushPending: [westId] });
    const [pending] = west.host.lander.status();
    expect(pending).toMatchObject({ state: 'landed', pushedSha: null });
    expect(pending!.pushError).toMatch(/^remote 'origin' unreachable: /);
    const westLanding = pending!.landedSha!;
    expect(git(west.dir, 'rev-parse', 'main')).toBe(westLanding);
    // Meanwhile east lands and pushes.
    const eastId = await submitFile(east.host, 'e', 'east.txt');
    expect((await east.host.lander.run()).landed).toEqual([eastId]);
    const eastHead = remoteMain(remote);
    expect(eastHead).toBe(east.host.lander.status()[0]!.pushedSha);
    // West is back online: its push is refused (the remote moved), so it re-merges, re-checks, pushes.
    git(west.dir, 'remote', 'set-url', 'origin', remote);
    const checksBefore = checked(west).length;
    expect((await west.host.lander.run()).landed).toEqual([westId]);
    const [done] = west.host.lander.status();
    expect(done).toMatchObject({ state: 'done', landedSha: westLanding, pushError: null });
    const pushed = done!.pushedSha!;
    expect(pushed).not.toBe(westLanding);
    expect(remoteMain(remote)).toBe(pushed);
    expect(git(west.dir, 'rev-parse', 'main')).toBe(pushed);
    expect(git(west.dir, 'rev-list', '--parents', '-n', '1', pushed).split(' ').slice(1)).toEqual([eastHead, westLanding]);
    // The check ran again, on exactly the commit that was pushed.
    expect(checked(west).slice(checksBefore)).toEqual([pushed]);
    for (const file of ['east.txt', 'west.txt']) expect(git(west.dir, 'show', `main:${file}`)).toMatch(/by [ew]$/);
    // The person's checkout followed; the report names both the landing and the remote commit.
    expect(git(west.dir, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(west.dir, 'east.txt'), 'utf8')).toBe('east.txt by e\n');
    const report = west.host.messages('w').find((m) => m.kind === 'report');
    expect(report?.body).toMatchObject({ landedSha: westLanding, pushedSha: pushed, pushed: true });
    const types = west.host.events().map((e) => e.type);
    expect(types).toContain('lander.remote_unreachable');
    expect(types).toContain('lander.remerging');
    expect(types).toContain('lander.rechecked');
  }, 120_000);

  it('submissions racing on both hosts, landers running at once: each lands exactly once and the remote holds them all', async () => {
    const { remote, sides } = await twoHosts();
    const files = new Map<string, { side: Side; path: string }>();
    const submit = async (side: Side, n: number) => {
      const path = `${side.name}-${n}.txt`;
      files.set(await submitFile(side.host, `${side.name}${n}`, path), { side, path });
    };
    await Promise.all(sides.map(async (side) => Promise.all([submit(side, 1), submit(side, 2)])));
    // Both landers at once, while each host takes one more submission.
    await Promise.all([...sides.map((s) => s.host.lander.run()), ...sides.map((s) => submit(s, 3))]);
    for (let round = 0; round < 8; round++) {
      if (sides.every((s) => s.host.lander.status().every((q) => q.state === 'done'))) break;
      await Promise.all(sides.map((s) => s.host.lander.run()));
    }
    const head = remoteMain(remote);
    const log = execFileSync('git', ['--git-dir', remote, 'log', '--format=%H %s', head], { encoding: 'utf8' }).trim().split('\n');
    for (const side of sides) {
      const queue = side.host.lander.status();
      expect(queue.map((q) => q.state)).toEqual(['done', 'done', 'done']);
      for (const q of queue) {
        const { path } = files.get(q.id)!;
        // The remote holds the submitted commit, its landing and the remote commit recorded as holding it.
        for (const sha of [q.commit, q.landedSha!, q.pushedSha!]) expect(isAncestor(remote, sha, head), `${q.id} ${sha}`).toBe(true);
        expect(execFileSync('git', ['--git-dir', remote, 'show', `${head}:${path}`], { encoding: 'utf8' })).toBe(
          `${path} by ${q.conversation}\n`,
        );
        // One agent commit and at most one landing merge per submission: nothing duplicated.
        expect(log.filter((l) => l.endsWith(` add ${path}`))).toHaveLength(1);
        expect(log.filter((l) => l.includes(` Land ${q.id} from `)).length).toBeLessThanOrEqual(1);
        expect(side.host.messages(q.conversation).filter((m) => m.kind === 'report')).toHaveLength(1);
      }
      // Nothing landed on a host is left off the remote.
      expect(isAncestor(remote, git(side.dir, 'rev-parse', 'main'), head)).toBe(true);
      // Every commit this lander pushed (accepted by the remote) was checked by this lander.
      const pushedByMe = side.host
        .events()
        .filter((e) => e.type === 'lander.pushed' && e.data.accepted === true)
        .map((e) => String(e.data.pushedSha));
      expect(pushedByMe.length).toBeGreaterThan(0);
      for (const sha of pushedByMe) expect(checked(side)).toContain(sha);
    }
    expect(new Set(files.keys()).size).toBe(6);
  }, 300_000);
});
