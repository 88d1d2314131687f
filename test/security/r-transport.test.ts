/**
 * Class R, the remote's door: the lander's fetch and push run no transport program that the
 * repository's own config names (`core.sshCommand`, `core.gitProxy`, `core.askPass`, credential
 * helpers, `remote.<name>.vcs`, also through `include.path` of a tracked file), nor an `ext::`
 * URL that `url.<base>.insteadOf` rewrites the remote to. Each trap appends a line to a mark
 * file when it runs; a control proves plain git runs it. The operator's own settings (their
 * global config) are still used: their `core.sshCommand` runs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliLandingGit } from '../../src/git/cli-landing-git.js';
import type { HostExec } from '../../src/ports/host-exec.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';

const ctx = { tag: 'land', chain: [] };
const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

/** A repository whose remote `origin` is someone else's machine, with `config` appended to its `.git/config`. */
function world(config: (script: (role: string) => string, root: string) => string, globalConfig = '') {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'gatefs-rt-')));
  roots.push(root);
  const log = join(root, 'marks.log');
  const script = (role: string) => {
    const file = join(root, `bin-${role}`);
    writeFileSync(file, `#!/bin/sh\necho "${role} $*" >> '${log}'\nexit 1\n`, { mode: 0o755 });
    return file;
  };
  const repo = join(root, 'repo');
  mkdirSync(repo);
  const env = { ...process.env, LC_ALL: 'C', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
  const plain = (...args: string[]) =>
    execFileSync('git', args, { cwd: repo, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  plain('init', '--quiet', '--initial-branch=main');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  plain('add', '-A');
  plain('-c', 'user.name=t', '-c', 'user.email=t@gatefs.invalid', 'commit', '--quiet', '-m', 'initial');
  const head = plain('rev-parse', 'HEAD');
  plain('remote', 'add', 'origin', 'ssh://example.invalid/x.git');
  writeFileSync(join(repo, '.git/config'), `${readFileSync(join(repo, '.git/config'), 'utf8')}${config(script, root)}`);
  const home = join(root, 'home');
  mkdirSync(home);
  writeFileSync(
    join(home, '.gitconfig'),
    globalConfig.replace(/SCRIPT\(([a-z-]+)\)/g, (_, role: string) => script(role)),
  );
  const path = join(root, 'path');
  mkdirSync(path);
  writeFileSync(join(path, 'git-remote-trap'), readFileSync(script('remote-helper')), { mode: 0o755 });
  const hostEnv = { HOME: home, GIT_CONFIG_GLOBAL: join(home, '.gitconfig'), PATH: `${path}:${process.env.PATH ?? ''}` };
  const real = new NodeHostExec();
  const exec: HostExec = { run: (r) => real.run({ ...r, env: { ...hostEnv, ...r.env } }) };
  /** Plain git with the operator's environment: the control. */
  const control = (...args: string[]) => {
    try {
      execFileSync('git', args, { cwd: repo, env: { ...env, ...hostEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch {
      // the remote is unreachable: what ran on the way is what the control shows
    }
  };
  const marks = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
  return { repo, head, exec, control, marks, git: new CliLandingGit({ repo, exec }) };
}

describe("fetch and push run no transport program the repository's config names", () => {
  // The last field says whether plain git runs the trap here: a credential helper only runs
  // when a server asks for a password, and no server answers for example.invalid.
  const cases: [string, (script: (role: string) => string, root: string) => string, RegExp, boolean][] = [
    ['core.sshCommand', (s) => `[core]\n\tsshCommand = ${s('repo-ssh')}\n`, /core\.sshcommand/, true],
    ['core.sshCommand through include.path of a tracked file', () => '[include]\n\tpath = ../transport.cfg\n', /core\.sshcommand/, true],
    [
      'core.gitProxy',
      (s) => `[core]\n\tgitProxy = ${s('repo-proxy')}\n[url "git://example.invalid/"]\n\tinsteadOf = ssh://example.invalid/\n`,
      /core\.gitproxy/,
      true,
    ],
    ['core.askPass', (s) => `[core]\n\taskPass = ${s('repo-askpass')}\n`, /core\.askpass/, false],
    [
      'credential.<url>.helper',
      (s) => `[credential "https://example.invalid"]\n\thelper = !${s('repo-credential')}\n`,
      /credential\.https:\/\/example\.invalid\.helper/,
      false,
    ],
    // git-remote-trap is on the host's PATH (see world): plain git runs it for this remote.
    ['remote.<name>.vcs', () => '[remote "origin"]\n\tvcs = trap\n', /remote\.origin\.vcs/, true],
  ];

  it.each(cases)('%s: fetch is refused naming it, push fails, nothing runs (plain git runs it)', async (_name, config, named, live) => {
    const w = world((script, root) => {
      writeFileSync(join(root, 'repo', 'transport.cfg'), `[core]\n\tsshCommand = ${script('repo-ssh')}\n`);
      return config(script, root);
    });
    if (live) {
      w.control('fetch', 'origin');
      w.control('push', 'origin', 'main');
      expect(w.marks()).not.toBe('');
      rmSync(join(w.repo, '..', 'marks.log'));
    }

    const fetched = w.git.fetch('origin', 'main', ctx);
    await expect(fetched).rejects.toMatchObject({ code: 'COMMAND_FAILED', operation: 'fetch' });
    await expect(fetched).rejects.toMatchObject({ detail: expect.stringMatching(named) });
    const pushed = await w.git.push('origin', w.head, 'main', ctx);
    expect(pushed).toMatchObject({ ok: false, detail: expect.stringMatching(named) });
    expect(w.marks()).toBe('');
  });

  it('a remote that url.<base>.insteadOf rewrites to an ext:: command never runs it', async () => {
    const w = world(
      (s) => `[url "ext::${s('ext-command')} %S "]\n\tinsteadOf = ssh://example.invalid/\n[protocol "ext"]\n\tallow = always\n`,
    );
    w.control('fetch', 'origin');
    expect(w.marks()).toMatch(/ext-command/);
    rmSync(join(w.repo, '..', 'marks.log'));
    await expect(w.git.fetch('origin', 'main', ctx)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
    expect(await w.git.push('origin', w.head, 'main', ctx)).toMatchObject({ ok: false });
    expect(w.marks()).toBe('');
  });

  it("the operator's own core.sshCommand (their global config) is the one used", async () => {
    const w = world(() => '', '[core]\n\tsshCommand = SCRIPT(operator-ssh)\n');
    await expect(w.git.fetch('origin', 'main', ctx)).rejects.toMatchObject({ code: 'COMMAND_FAILED', operation: 'fetch' });
    expect(await w.git.push('origin', w.head, 'main', ctx)).toMatchObject({ ok: false });
    const ran = w.marks();
    expect(ran).toMatch(/^operator-ssh example\.invalid git-upload-pack/m);
    expect(ran).toMatch(/^operator-ssh example\.invalid git-receive-pack/m);
  });
});
