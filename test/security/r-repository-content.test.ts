/**
 * Class R, repository content that runs, for every gatefs command that runs git: a trap
 * repository whose hooks (in `.git/hooks`, and through a `core.hooksPath` only the linked
 * worktrees get), clean/smudge/process filters, diff commands and textconv, `diff.external`,
 * merge drivers, `core.fsmonitor` and the user's global config each append a line to a mark
 * file outside the repository when they run; some of them are defined only through
 * `include.path` (a tracked file), `includeIf "gitdir:**\/worktrees/**"` (only inside a linked
 * worktree) and `includeIf "onbranch:gatefs/**"` (only on a conversation's branch). A control
 * proves plain git fires them all; then a real host (createHost, real git and disk) prepares
 * worktree and copy workspaces, serves reads, lists, greps, writes and edits, diffs, commits,
 * submits, lands with a check and a push, starts, lands and discards subagents, and releases:
 * the mark file holds nothing, and every file on disk holds the bytes as stored.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import type { HostExec } from '../../src/ports/host-exec.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';
import type { RunEvent } from '../../src/state/index.js';

const HOOKS = [
  'pre-commit',
  'commit-msg',
  'post-commit',
  'prepare-commit-msg',
  'post-checkout',
  'post-merge',
  'pre-merge-commit',
  'pre-push',
  'reference-transaction',
  'post-index-change',
  'pre-auto-gc',
  'post-rewrite',
  'push-to-checkout',
];
const TOOLS = ['read', 'grep', 'list', 'edit', 'write', 'diff', 'commit', 'submit'];
const manifest = {
  roles: [
    { name: 'agent', tools: TOOLS, workspace: { backend: 'worktree' } },
    { name: 'cp', tools: ['read', 'grep', 'list', 'edit', 'write'], workspace: { backend: 'copy' } },
  ],
};
const A_LINES = Array.from({ length: 12 }, (_, i) => `raw a ${i}`);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The trap repository (see the file comment), its remote, and the host environment naming the user's (trapped) global config. */
function trapWorld() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'gatefs-r-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const log = join(root, 'marks.log');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const script = (role: string, body: string) => {
    const file = join(bin, role.replace(/[^a-z0-9-]/gi, '_'));
    writeFileSync(file, `#!/bin/sh\necho "${role} $* (in $PWD)" >> '${log}'\n${body}\n`, { mode: 0o755 });
    return file;
  };
  const filterLike = (name: string, mark: string) => script(name, `sed 's/raw/${mark}/'`);
  const hookDir = (dir: string, prefix: string) => {
    mkdirSync(dir, { recursive: true });
    for (const h of HOOKS) {
      writeFileSync(join(dir, h), readFileSync(script(`${prefix}${h}`, 'exit 0')));
      chmodSync(join(dir, h), 0o755);
    }
  };
  const repo = join(root, 'repo');
  mkdirSync(repo);
  const cleanEnv = { ...process.env, LC_ALL: 'C', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  const plain = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: cleanEnv, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  plain(repo, 'init', '--quiet', '--initial-branch=main');
  writeFileSync(
    join(repo, '.git/config'),
    `${readFileSync(join(repo, '.git/config'), 'utf8')}[user]\n\tname = setup\n\temail = setup@gatefs.invalid\n[gc]\n\tauto = 0\n`,
  );
  const files: Record<string, string> = {
    '.gitattributes': [
      '*.txt filter=evil diff=evil merge=evil',
      '*.w filter=wtevil diff=wtevil merge=evil',
      '*.b filter=brevil',
      '*.t filter=tracked',
      '*.p filter=evilp',
      '*.l filter=landed',
      '',
    ].join('\n'),
    'a.txt': `${A_LINES.join('\n')}\n`,
    'x.w': 'raw x\n',
    'y.b': 'raw y\n',
    'z.t': 'raw z\n',
    'q.p': 'raw q\n',
    'README.md': '# raw readme\n',
    // Included by the repository's config: whoever lands a change to it defines drivers.
    'tracked.cfg': `[filter "tracked"]\n\tclean = ${filterLike('tracked-clean', 'FILTERED')}\n\tsmudge = ${filterLike('tracked-smudge', 'SMUDGED')}\n`,
  };
  for (const [p, c] of Object.entries(files)) writeFileSync(join(repo, p), c);
  plain(repo, 'add', '-A');
  plain(repo, 'commit', '--quiet', '-m', 'initial');
  const remote = join(root, 'remote.git');
  plain(root, 'init', '--bare', '--quiet', remote);
  plain(repo, 'remote', 'add', 'origin', remote);
  plain(repo, 'push', '--quiet', 'origin', 'main');

  // Arm the traps.
  hookDir(join(repo, '.git/hooks'), 'hook:');
  const wtHooks = join(root, 'wt-hooks');
  hookDir(wtHooks, 'wt-hook:');
  writeFileSync(
    join(root, 'wt-trap.cfg'),
    [
      '[core]',
      `\thooksPath = ${wtHooks}`,
      `\tfsmonitor = ${script('wt-fsmonitor', 'exit 0')}`,
      '[filter "wtevil"]',
      `\tclean = ${filterLike('wt-clean', 'FILTERED')}`,
      `\tsmudge = ${filterLike('wt-smudge', 'SMUDGED')}`,
      '\trequired = true',
      '[diff "wtevil"]',
      `\ttextconv = ${script('wt-textconv', 'cat')}`,
      `\tcommand = ${script('wt-diff-command', 'exit 0')}`,
      '[merge "evil"]',
      `\tdriver = ${script('wt-merge-driver', 'exit 0')}`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(root, 'branch-trap.cfg'),
    `[filter "brevil"]\n\tclean = ${filterLike('br-clean', 'FILTERED')}\n\tsmudge = ${filterLike('br-smudge', 'SMUDGED')}\n`,
  );
  const config = [
    '[filter "evil"]',
    `\tclean = ${filterLike('clean', 'FILTERED')}`,
    `\tsmudge = ${filterLike('smudge', 'SMUDGED')}`,
    '\trequired = true',
    '[filter "evilp"]',
    `\tprocess = ${script('process', 'exit 1')}`,
    '[diff "evil"]',
    `\tcommand = ${script('diff-command', 'exit 0')}`,
    `\ttextconv = ${script('textconv', 'cat')}`,
    '[diff]',
    `\texternal = ${script('diff-external', 'exit 0')}`,
    '[merge "evil"]',
    `\tdriver = ${script('merge-driver', 'exit 0')}`,
    '[core]',
    `\tfsmonitor = ${script('fsmonitor', 'exit 0')}`,
    `\teditor = ${script('editor', 'exit 0')}`,
    '[include]',
    '\tpath = ../tracked.cfg',
    '[includeIf "gitdir:**/worktrees/**"]',
    `\tpath = ${join(root, 'wt-trap.cfg')}`,
    '[includeIf "onbranch:gatefs/**"]',
    `\tpath = ${join(root, 'branch-trap.cfg')}`,
    '',
  ].join('\n');
  writeFileSync(join(repo, '.git/config'), `${readFileSync(join(repo, '.git/config'), 'utf8')}${config}`);

  // The user's global config, as the host's environment names it (fetch and push keep it).
  const globalHooks = join(root, 'global-hooks');
  hookDir(globalHooks, 'global-hook:');
  const globalAttributes = join(root, 'global-attributes');
  writeFileSync(globalAttributes, '*.md filter=gevil\n');
  const home = join(root, 'home');
  mkdirSync(home);
  writeFileSync(
    join(home, '.gitconfig'),
    [
      '[core]',
      `\thooksPath = ${globalHooks}`,
      `\tattributesFile = ${globalAttributes}`,
      `\tfsmonitor = ${script('global-fsmonitor', 'exit 0')}`,
      '[filter "gevil"]',
      `\tclean = ${filterLike('global-clean', 'FILTERED')}`,
      `\tsmudge = ${filterLike('global-smudge', 'SMUDGED')}`,
      '',
    ].join('\n'),
  );
  const hostEnv = { HOME: home, GIT_CONFIG_GLOBAL: join(home, '.gitconfig') };
  const real = new NodeHostExec();
  const exec: HostExec = { run: (r) => real.run({ ...r, env: { ...hostEnv, ...r.env } }) };
  const hostile = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, ...hostEnv, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const marks = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  return { root, repo, remote, bin, exec, plain, hostile, marks, script };
}

/** Waits for the lower folder build of `conversation` to end (ready, unavailable, failed or stopped), and returns its event. */
async function lowerOutcome(host: Host, conversation: string): Promise<RunEvent> {
  const ends = ['lower.ready', 'lower.unavailable', 'lower.failed', 'lower.stopped'];
  for (let i = 0; i < 3000; i++) {
    const done = host.events({ conversation }).find((e) => ends.includes(e.type));
    if (done) return done;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no lower folder outcome within 60 s');
}

/** Calls a tool and returns its value, failing the test on an error answer. */
async function ok(host: Host, conversation: string, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await host.gate.call(conversation, tool, args);
  if (!r.ok) throw new Error(`${tool} in ${conversation}: ${JSON.stringify(r.error)}`);
  return r.value as Record<string, unknown>;
}

describe('class R: repository content never runs', () => {
  it('control: plain git runs every trap, in the main checkout, in a linked worktree and on a gatefs branch', () => {
    const w = trapWorld();
    const wt = join(w.root, 'plain-wt');
    // The process filter's trap speaks no protocol and exits: whether git then fails the command
    // or goes on without the filter depends on when it sees the pipe close, so only its mark is
    // asserted (below). It is shown on its own, and emptied for the rest.
    writeFileSync(join(w.repo, 'new.p'), 'raw new\n');
    try {
      w.hostile(w.repo, 'add', 'new.p');
    } catch {
      // git refused the file: the trap ran all the same
    }
    const git = (cwd: string, ...args: string[]) => w.hostile(cwd, '-c', 'filter.evilp.process=', ...args);
    git(w.repo, 'worktree', 'add', '--quiet', '-b', 'gatefs/plain', wt);
    writeFileSync(join(wt, 'a.txt'), 'raw a changed\n');
    // Changed files are cleaned on every status and commit (unchanged ones only when racy).
    for (const file of ['x.w', 'y.b', 'z.t', 'README.md']) writeFileSync(join(wt, file), 'raw changed\n');
    git(wt, 'status', '--porcelain');
    git(wt, 'diff');
    git(wt, 'diff', '--no-ext-diff');
    git(wt, 'commit', '-q', '-a', '-m', 'plain');
    writeFileSync(join(w.repo, 'a.txt'), 'raw a on main\n');
    // The user's global core.hooksPath shadows .git/hooks: without it, they run.
    w.plain(w.repo, '-c', 'filter.evilp.process=', 'commit', '-q', '-m', 'main', '--', 'a.txt');
    // Both sides changed a.txt: the merge driver the worktree's config defines decides.
    git(wt, 'merge', '-q', '--no-edit', 'main');
    const ran = w.marks().join('\n');
    for (const mark of [
      'hook:pre-commit',
      'global-hook:post-checkout',
      'wt-hook:pre-commit',
      'wt-hook:post-commit',
      'wt-smudge',
      'wt-clean',
      'wt-textconv',
      'wt-diff-command',
      'wt-merge-driver',
      'wt-fsmonitor',
      'br-smudge',
      'br-clean',
      'tracked-smudge',
      'tracked-clean',
      'smudge',
      'clean',
      'process',
      'diff-external',
      'fsmonitor',
      'global-smudge',
      'global-clean',
    ]) {
      expect(ran).toMatch(new RegExp(`(^|\\n)${mark} `));
    }
  });

  it('prepare (worktree, copy), the gate, diff, commit, submit, subagents, the lander with a check and a push, status and release run none of them', async () => {
    const w = trapWorld();
    const host = await createHost({ repo: w.repo, manifest, exec: w.exec, settings: { lander: { checks: ['true'], push: 'origin' } } });
    cleanups.push(() => host.close());
    const worktree = (id: string) => join(w.repo, '.gatefs/worktrees', id);

    // Prepare: the files are the stored bytes (no smudge), in worktrees and in a copy.
    await host.prepare({ conversation: 'w' });
    await host.prepare({ conversation: 'v' });
    await host.prepare({ conversation: 'c', role: 'cp' });
    for (const [file, bytes] of [
      ['a.txt', `${A_LINES.join('\n')}\n`],
      ['x.w', 'raw x\n'],
      ['y.b', 'raw y\n'],
      ['z.t', 'raw z\n'],
      ['q.p', 'raw q\n'],
    ])
      expect(readFileSync(join(worktree('w'), file), 'utf8')).toBe(bytes);

    // The copy workspace: its lower folder is checked out in the background, byte for byte.
    expect((await ok(host, 'c', 'read', { path: 'x.w' })).content).toContain('raw x');
    expect(await lowerOutcome(host, 'c')).toMatchObject({ type: 'lower.ready' });
    expect((await ok(host, 'c', 'grep', { pattern: 'raw', output: 'files' })).files).toContain('a.txt');
    await ok(host, 'c', 'list', { pattern: '**' });
    await ok(host, 'c', 'write', { path: 'c.txt', content: 'raw c\n' });
    await ok(host, 'c', 'edit', { path: 'x.w', oldString: 'raw x', newString: 'raw x copy' });

    // The agent's worktree: the gate, then diff and commit, including a change to the tracked
    // config file that defines a new filter for files it also adds.
    expect((await ok(host, 'w', 'grep', { pattern: 'raw', output: 'files' })).files).toContain('y.b');
    await ok(host, 'w', 'list', { pattern: '**' });
    await ok(host, 'w', 'read', { path: 'z.t' });
    await ok(host, 'w', 'write', { path: 'a.txt', content: `${['raw a top', ...A_LINES.slice(1)].join('\n')}\n` });
    await ok(host, 'w', 'edit', { path: 'x.w', oldString: 'raw x', newString: 'raw x edited' });
    await ok(host, 'w', 'write', { path: 'y.b', content: 'raw y changed\n' });
    await ok(host, 'w', 'write', { path: 'new.p', content: 'raw new\n' });
    const landedFilter = `[filter "landed"]\n\tsmudge = ${w.script('landed-smudge', 'cat')}\n\tclean = ${w.script('landed-clean', 'cat')}\n`;
    await ok(host, 'w', 'write', { path: 'tracked.cfg', content: `${readFileSync(join(w.repo, 'tracked.cfg'), 'utf8')}${landedFilter}` });
    await ok(host, 'w', 'write', { path: 'n.l', content: 'raw n\n' });
    const diff = await ok(host, 'w', 'diff', {});
    expect(diff.patch).toContain('+raw x edited');
    expect(diff.patch).not.toMatch(/FILTERED|SMUDGED/);
    const commit = await ok(host, 'w', 'commit', { message: 'agent work' });
    expect(commit.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(w.plain(w.repo, 'cat-file', 'blob', `${commit.sha}:x.w`)).toBe('raw x edited');

    // Subagents: one lands onto the parent's worktree, one is discarded.
    await host.subagents.start({ parent: 'w', child: 'k' });
    expect(readFileSync(join(worktree('k'), 'n.l'), 'utf8')).toBe('raw n\n');
    await ok(host, 'k', 'write', { path: 'k.txt', content: 'raw k\n' });
    await ok(host, 'k', 'commit', { message: 'child work' });
    await host.subagents.land('k');
    expect(readFileSync(join(worktree('w'), 'k.txt'), 'utf8')).toBe('raw k\n');
    await host.subagents.start({ parent: 'w', child: 'k2' });
    await host.subagents.discard('k2');

    // Two submissions: w lands (fast-forward, push); v changed a.txt too, so only a merge
    // driver could merge it, and the driver is `false`: a conflict.
    await ok(host, 'w', 'submit', { divergence: 'None', summary: 'agent work' });
    await ok(host, 'v', 'write', { path: 'a.txt', content: `${[...A_LINES.slice(0, 11), 'raw a bottom'].join('\n')}\n` });
    await ok(host, 'v', 'commit', { message: 'other work' });
    await ok(host, 'v', 'submit', { divergence: 'None', summary: 'other work' });
    const report = await host.lander.run();
    expect(report.landed).toHaveLength(1);
    expect(report.failed).toHaveLength(1);
    const landed = w.plain(w.repo, 'rev-parse', 'main');
    expect(w.plain(w.root, '--git-dir', w.remote, 'rev-parse', 'main')).toBe(landed);
    // The person's checkout followed, with the stored bytes (its filters were emptied too).
    expect(readFileSync(join(w.repo, 'x.w'), 'utf8')).toBe('raw x edited\n');
    expect(readFileSync(join(w.repo, 'n.l'), 'utf8')).toBe('raw n\n');

    // The landed filter is in the repository's config now: the next preparation empties it.
    await host.prepare({ conversation: 'w2' });
    expect(readFileSync(join(worktree('w2'), 'n.l'), 'utf8')).toBe('raw n\n');
    expect((await ok(host, 'w2', 'read', { path: 'n.l' })).content).toContain('raw n');

    expect(host.status().map((s) => s.conversation)).toEqual(expect.arrayContaining(['w', 'v', 'c', 'w2']));
    await host.release('w2');
    await host.release('w');
    await host.release('v');
    await host.release('c', { discard: true });
    expect(existsSync(worktree('w'))).toBe(false);

    // The remote's own receive-pack runs under the user's global config like any push would
    // (another repository: the remote's business). Nothing else may have run.
    expect(w.marks().filter((line) => !line.endsWith(`(in ${w.remote})`))).toEqual([]);
  }, 240_000);
});
