/**
 * The landing port runs git on the user's repository without running anything the repository
 * (or the user's global and system config) names: hooks, clean/smudge/process filters, diff and
 * textconv drivers, merge drivers, fsmonitor, signing programs, editors and pagers. Every trap
 * below appends a line to a sentinel log when it runs; a control run with plain git proves the
 * traps are live, then every method of `CliLandingGit` runs and the log must stay absent, while
 * the results are still right (the raw bytes, not filtered ones).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliLandingGit } from '../../src/git/cli-landing-git.js';
import type { HostExec } from '../../src/ports/host-exec.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';

const ctx = { tag: 'land', chain: ['c1'] };
const who = { name: 'Agent', email: 'agent@gatefs.invalid' };
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
  'fsmonitor-watchman',
  'push-to-checkout',
];
const C_LINES = Array.from({ length: 12 }, (_, i) => `raw c ${i}`);

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

/** A repository with commits to merge, then armed with traps (see the file comment). */
function hostileRepo(hooksIn: 'git-dir' | 'core.hooksPath') {
  const root = mkdtempSync(join(tmpdir(), 'gatefs-neutral-'));
  roots.push(root);
  const log = join(root, 'sentinel.log');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const script = (role: string, body: string) => {
    const file = join(bin, role.replace(/[^a-z0-9-]/gi, '_'));
    writeFileSync(file, `#!/bin/sh\necho "${role} $* (in $PWD)" >> '${log}'\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };
  const repo = join(root, 'repo');
  const plain = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: 'C', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  mkdirSync(repo);
  plain(repo, 'init', '--quiet', '--initial-branch=main');
  plain(repo, 'config', 'user.name', 'setup');
  plain(repo, 'config', 'user.email', 'setup@gatefs.invalid');
  const write = (dir: string, files: Record<string, string>) => {
    for (const [p, c] of Object.entries(files)) writeFileSync(join(dir, p), c);
  };
  const commit = (files: Record<string, string>, from?: string) => {
    if (from) plain(repo, 'checkout', '--quiet', '--detach', from);
    write(repo, files);
    plain(repo, 'add', '-A');
    plain(repo, 'commit', '--quiet', '-m', Object.keys(files).join(' '));
    return plain(repo, 'rev-parse', 'HEAD');
  };
  const attributes = '* filter=evil diff=evil merge=evil\n*.p filter=evilp\n';
  const base = commit({
    'a.txt': 'raw a\n',
    'b.txt': 'raw b\n',
    'c.txt': `${C_LINES.join('\n')}\n`,
    'odd.txt': 'raw odd\n',
    '.gitattributes': attributes,
  });
  const first = commit({ 'c.txt': `${['raw c first', ...C_LINES.slice(1)].join('\n')}\n` });
  const disjoint = commit({ 'b.txt': 'raw b disjoint\n' }, base);
  // Changes lines far from `first`'s: a text merge would be clean; only a merge driver decides.
  const late = commit({ 'c.txt': `${[...C_LINES.slice(0, 11), 'raw c late'].join('\n')}\n` }, base);
  plain(repo, 'checkout', '--quiet', '-B', 'main', base);
  const agent = join(root, 'agent');
  plain(repo, 'worktree', 'add', '--quiet', '-b', 'gatefs/agent', agent, base);
  const bare = join(root, 'remote.git');
  plain(root, 'init', '--bare', '--quiet', bare);
  plain(repo, 'remote', 'add', 'origin', bare);

  // Arm the traps.
  const hookDir = hooksIn === 'git-dir' ? join(repo, '.git/hooks') : join(root, 'hooks');
  mkdirSync(hookDir, { recursive: true });
  for (const h of HOOKS) writeFileSync(join(hookDir, h), readFileSync(script(`hook:${h}`, 'exit 0')));
  for (const h of HOOKS) chmodSync(join(hookDir, h), 0o755);
  const filterLike = (name: string, mark: string) => script(name, `sed 's/raw/${mark}/'`);
  const config = [
    '[filter "evil"]',
    `\tclean = ${filterLike('clean', 'FILTERED')}`,
    `\tsmudge = ${filterLike('smudge', 'SMUDGED')}`,
    '\trequired = true',
    '[filter "evilp"]',
    `\tprocess = ${script('process', 'exit 1')}`,
    '[filter "a=b"]',
    `\tclean = ${filterLike('odd-clean', 'FILTERED')}`,
    `\tsmudge = ${filterLike('odd-smudge', 'SMUDGED')}`,
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
    `\tpager = ${script('pager', 'cat')}`,
    ...(hooksIn === 'core.hooksPath' ? [`\thooksPath = ${hookDir}`] : []),
    '[commit]',
    '\tgpgSign = true',
    '[gpg]',
    `\tprogram = ${script('gpg', 'exit 1')}`,
    '[remote "origin"]',
    `\tuploadpack = ${script('uploadpack', 'exec git-upload-pack "$@"')}`,
    `\treceivepack = ${script('receivepack', 'exec git-receive-pack "$@"')}`,
    '[alias]',
    `\tcommit = !${script('alias', 'exit 0')}`,
    `\tmerge = !${script('alias', 'exit 0')}`,
    '',
  ].join('\n');
  writeFileSync(join(repo, '.git/config'), `${readFileSync(join(repo, '.git/config'), 'utf8')}${config}`);
  writeFileSync(join(repo, '.git/info/attributes'), 'odd.txt filter=a=b\n');
  // The user's global and system config, as the host's environment names them.
  const ghooks = join(root, 'global-hooks');
  mkdirSync(ghooks);
  for (const h of HOOKS) writeFileSync(join(ghooks, h), readFileSync(script(`global-hook:${h}`, 'exit 0')));
  for (const h of HOOKS) chmodSync(join(ghooks, h), 0o755);
  const gattributes = join(root, 'global-attributes');
  writeFileSync(gattributes, '* filter=gevil\n');
  const globalConfig = [
    '[core]',
    `\thooksPath = ${ghooks}`,
    `\tattributesFile = ${gattributes}`,
    `\tfsmonitor = ${script('global-fsmonitor', 'exit 0')}`,
    '[filter "gevil"]',
    `\tclean = ${filterLike('global-clean', 'FILTERED')}`,
    `\tsmudge = ${filterLike('global-smudge', 'SMUDGED')}`,
    '[user]\n\tname = global\n\temail = global@gatefs.invalid',
    '',
  ].join('\n');
  const home = join(root, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.gitconfig'), globalConfig);
  writeFileSync(join(root, 'system-config'), globalConfig);
  const hostEnv = { HOME: home, GIT_CONFIG_GLOBAL: join(home, '.gitconfig'), GIT_CONFIG_SYSTEM: join(root, 'system-config') };
  const real = new NodeHostExec();
  const exec: HostExec = { run: (r) => real.run({ ...r, env: { ...hostEnv, ...r.env } }) };
  const hostile = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, ...hostEnv, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const sentinel = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
  return { root, repo, agent, bare, base, first, disjoint, late, exec, plain, hostile, sentinel };
}

describe.each(['git-dir', 'core.hooksPath'] as const)('with hooks in %s, nothing the repository names runs', (hooksIn) => {
  it('control: plain git does run the traps', () => {
    const h = hostileRepo(hooksIn);
    writeFileSync(join(h.agent, 'a.txt'), 'raw a changed\n');
    try {
      h.hostile(h.agent, 'commit', '-a', '-m', 'plain');
    } catch {
      // the gpg trap refuses to sign; what ran before it is what this control shows
    }
    h.hostile(h.repo, 'checkout', '--quiet', '--force', '--detach', h.first);
    // Filters off for the merge control (smudged files would block it), the merge driver left on.
    const noFilter = [
      '-c',
      'filter.evil.clean=',
      '-c',
      'filter.evil.smudge=',
      '-c',
      'filter.evil.required=false',
      '-c',
      'commit.gpgSign=false',
    ];
    h.hostile(h.repo, ...noFilter, 'reset', '--quiet', '--hard');
    try {
      h.hostile(h.repo, ...noFilter, 'merge', '--no-edit', h.late);
    } catch {
      // a hook or filter may fail the merge; what ran is what this control shows
    }
    const ran = h.sentinel();
    expect(ran).toMatch(/clean/);
    expect(ran).toMatch(/smudge/);
    expect(ran).toMatch(/hook:pre-commit/);
    expect(ran).toMatch(/hook:post-checkout/);
    expect(ran).toMatch(/fsmonitor/);
    expect(ran).toMatch(/merge-driver/);
  });

  it('diff, commit, commit with paths, detached checkout, merges, fastForward, push and fetch run none of them, and give the raw bytes', async () => {
    const h = hostileRepo(hooksIn);
    const git = new CliLandingGit({ repo: h.repo, exec: h.exec });
    // The agent's worktree: diff and commit.
    writeFileSync(join(h.agent, 'a.txt'), 'raw a changed\n');
    writeFileSync(join(h.agent, 'odd.txt'), 'raw odd changed\n');
    writeFileSync(join(h.agent, 'new.p'), 'raw new\n');
    const d = await git.diff(h.agent, { base: h.base, maxPatchBytes: 100_000 }, ctx);
    expect(d.files.map((f) => f.path)).toEqual(['a.txt', 'new.p', 'odd.txt']);
    expect(d.patch).toContain('+raw a changed\n');
    const some = await git.commit(h.agent, { message: 'odd only', paths: ['odd.txt'], author: who, committer: who, timeMs: 0 }, ctx);
    expect(some.files).toEqual([{ path: 'odd.txt', status: 'modified' }]);
    const all = await git.commit(h.agent, { message: 'the rest', author: who, committer: who, timeMs: 0 }, ctx);
    expect(all.files.map((f) => f.path)).toEqual(['a.txt', 'new.p']);
    expect(h.plain(h.agent, 'cat-file', 'blob', `${all.sha}:a.txt`)).toBe('raw a changed');
    expect(h.plain(h.agent, 'cat-file', 'blob', `${all.sha}:odd.txt`)).toBe('raw odd changed');
    expect(h.plain(h.agent, 'cat-file', 'blob', `${all.sha}:new.p`)).toBe('raw new');
    expect(h.plain(h.agent, 'log', '-1', '--format=%G?', all.sha ?? '')).toBe('N');

    // The lander's detached checkout: fast-forward, merge commit, conflict a merge driver would have hidden.
    const lander = join(h.root, 'state', 'lander');
    await git.checkoutDetached(lander, h.base, ctx);
    expect(readFileSync(join(lander, 'a.txt'), 'utf8')).toBe('raw a\n');
    await git.checkoutDetached(lander, h.base, ctx);
    const opts = { message: 'land', committer: who, timeMs: 0 };
    expect(await git.merge(lander, h.first, opts, ctx)).toEqual({ ok: true, sha: h.first, fastForward: true });
    const merged = await git.merge(lander, h.disjoint, opts, ctx);
    expect(merged).toMatchObject({ ok: true, fastForward: false });
    if (!merged.ok) throw new Error('unreachable');
    expect(readFileSync(join(lander, 'b.txt'), 'utf8')).toBe('raw b disjoint\n');
    expect(await git.merge(lander, h.late, opts, ctx)).toEqual({ ok: false, conflicts: ['c.txt'] });
    expect(h.plain(lander, 'rev-parse', 'HEAD')).toBe(merged.sha);

    // The source branch, checked out in the main worktree, moved by compare-and-swap; then pushed.
    expect(await git.fastForward('refs/heads/main', h.base, merged.sha, ctx)).toEqual({ outcome: 'moved' });
    expect(readFileSync(join(h.repo, 'c.txt'), 'utf8')).toMatch(/^raw c first\n/);
    expect(readFileSync(join(h.repo, 'b.txt'), 'utf8')).toBe('raw b disjoint\n');
    expect(await git.push('origin', merged.sha, 'main', ctx)).toEqual({ ok: true });
    expect(await git.fetch('origin', 'main', ctx)).toBe(merged.sha);

    // The remote's own receive-pack (another repository, here on disk) runs under the user's
    // global config like any push would: the remote's business. Nothing else may have run.
    const ran = h.sentinel().split('\n').filter(Boolean);
    expect(ran.filter((line) => !line.endsWith(`(in ${h.bare})`))).toEqual([]);
  });
});
