/**
 * A `copy` workspace over a pinned tree holding entries git treats as `.git` under its NTFS and
 * HFS rules (`.GIT`, `.Git`, `git~1`, `GIT~1`, `.git.`, `.git `, `.g\u200cit`), at the top and in
 * a sub-folder, made with real git plumbing (`mktree` accepts what a checkout refuses), on real
 * disk: such entries are hidden (absent from listings and grep, `NOT_FOUND` to read) and
 * protected (`PROTECTED_PATH` to write), as in the other backends, and every other file reads,
 * lists, greps and takes writes normally — before and after the lower folder build, which leaves
 * them out (git refuses to check them out), never writes one of them to disk, and ends ready.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { lowerOf, type LowerRecord } from '../../src/host/lower/lower-record.js';
import type { RunEvent } from '../../src/state/event-log.js';
import { StateStore } from '../../src/state/index.js';
import { systemClock } from '../../src/ports/clock.js';
import { isDotGitName } from '../../vfs/dot-git-name.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const manifest = {
  roles: [{ name: 'cp', tools: ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move'], workspace: { backend: 'copy' } }],
};

/** Names git treats as `.git`: folders holding a config and a HEAD, and plain files. */
const ODD_FOLDERS = ['.GIT', '.Git', '.g\u200cit'];
const ODD_FILES = ['git~1', 'GIT~1', '.git.', '.git '];

/**
 * A commit whose tree holds the normal files of `makeTempRepo`, plus every odd name at the top
 * and in `src/`, each holding the needle too. Built with `hash-object -w`, `mktree` and
 * `commit-tree` (git's protectNTFS/HFS switched off for mktree), then made `main`.
 */
function oddTreeRepo(): TempRepo {
  const repo = makeTempRepo({ 'README.md': '# odd\n', 'src/a.ts': 'export const a = 1; // needle\n' });
  cleanups.push(() => repo.cleanup());
  const hook = hashText(repo, '#!/bin/sh\necho needle > /tmp/gatefs-dot-git-ran\n');
  const config = hashText(repo, '[core]\n\thooksPath = hooks\n# needle\n');
  const head = hashText(repo, 'ref: refs/heads/main\n');
  const inner = mkTree(repo, [`100644 blob ${head}\tHEAD`, `100644 blob ${config}\tconfig`, `100755 blob ${hook}\tpost-checkout`]);
  const file = hashText(repo, 'needle in an odd file\n');
  const odd = [...ODD_FOLDERS.map((n) => `040000 tree ${inner}\t${n}`), ...ODD_FILES.map((n) => `100644 blob ${file}\t${n}`)];
  const src = mkTree(repo, [...lsTree(repo, 'HEAD:src'), ...odd]);
  const top = mkTree(repo, [...lsTree(repo, 'HEAD').filter((l) => !l.endsWith('\tsrc')), `040000 tree ${src}\tsrc`, ...odd]);
  const commit = repo.git('commit-tree', top, '-p', 'HEAD', '-m', 'odd names');
  repo.git('update-ref', 'refs/heads/main', commit);
  repo.git('reset', '--quiet', '--soft', commit);
  return repo;
}

function hashText(repo: TempRepo, text: string): string {
  return gitIn(repo, ['hash-object', '-w', '--stdin'], text);
}

function mkTree(repo: TempRepo, lines: string[]): string {
  return gitIn(repo, ['-c', 'core.protectNTFS=false', '-c', 'core.protectHFS=false', 'mktree', '-z'], lines.map((l) => `${l}\0`).join(''));
}

function lsTree(repo: TempRepo, treeish: string): string[] {
  return gitIn(repo, ['ls-tree', '-z', treeish], '')
    .split('\0')
    .filter((l) => l !== '');
}

/** git with `input` on stdin, trimmed stdout (the raw `execFileSync`: `TempRepo.git` has no stdin). */
function gitIn(repo: TempRepo, args: string[], input: string): string {
  return execFileSync('git', args, { cwd: repo.dir, input, encoding: 'utf8' }).replace(/\n$/, '');
}

async function copyHost(repo: TempRepo): Promise<Host> {
  const host = await createHost({ repo: repo.dir, manifest });
  cleanups.push(() => host.close());
  return host;
}

/** The first `lower.*` event that ends a build of `conversation`. */
async function lowerOutcome(host: Host, conversation: string): Promise<RunEvent> {
  for (let i = 0; i < 3000; i++) {
    const done = host
      .events({ conversation })
      .find((e) => ['lower.ready', 'lower.unavailable', 'lower.failed', 'lower.stopped'].includes(e.type));
    if (done) return done;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no lower folder outcome within 60 s');
}

/** The lower record of `conversation` (`data.lower`), read from the state database as another process would. */
function lowerRecord(repo: TempRepo, conversation: string): LowerRecord | null {
  const store = StateStore.open(join(repo.dir, '.gatefs/gatefs.db'), { clock: systemClock });
  try {
    return lowerOf(store.workspaces.get(conversation));
  } finally {
    store.close();
  }
}

/** Every `.git`-like name anywhere under `dir` on disk. */
function dotGitNamesOnDisk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const visit = (at: string, rel: string) => {
    for (const name of readdirSync(at)) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (isDotGitName(name)) found.push(path);
      if (statSync(join(at, name), { throwIfNoEntry: false })?.isDirectory()) visit(join(at, name), path);
    }
  };
  visit(dir, '');
  return found;
}

/** What the agent sees: a listing of everything, a grep for the needle, reads of the normal files. */
async function agentView(host: Host): Promise<unknown[]> {
  return [
    await host.gate.call('c', 'list', { pattern: '**', includeIgnored: true, maxResults: 1000 }),
    await host.gate.call('c', 'list', { path: 'src', includeIgnored: true }),
    await host.gate.call('c', 'grep', { pattern: 'needle', output: 'files' }),
    await host.gate.call('c', 'read', { path: 'README.md' }),
    await host.gate.call('c', 'read', { path: 'src/a.ts' }),
  ];
}

describe('a copy workspace over a tree holding .git-like names', () => {
  it('hides and protects them; every other file reads, lists, greps and takes writes normally', { timeout: 120_000 }, async () => {
    const repo = oddTreeRepo();
    const names = repo.git('ls-tree', '--name-only', '-z', 'main').split('\0');
    expect(names).toEqual(expect.arrayContaining([...ODD_FOLDERS, ...ODD_FILES]));
    const host = await copyHost(repo);
    await host.prepare({ conversation: 'c' });

    const view = await agentView(host);
    const [all, src, grep, readme, a] = view as { ok: boolean; value: Record<string, unknown> }[];
    expect(all).toMatchObject({ ok: true });
    expect((all.value.entries as { path: string }[]).map((e) => e.path).sort()).toEqual(['README.md', 'src', 'src/a.ts']);
    expect((src.value.entries as { path: string }[]).map((e) => e.path)).toEqual(['src/a.ts']);
    expect(grep, JSON.stringify(grep)).toMatchObject({ ok: true, value: { files: ['src/a.ts'] } });
    expect(readme).toMatchObject({ ok: true, value: { content: '# odd\n' } });
    expect(a).toMatchObject({ ok: true, value: { content: 'export const a = 1; // needle\n' } });

    for (const at of ['', 'src/']) {
      for (const name of ODD_FILES) {
        expect(await host.gate.call('c', 'read', { path: `${at}${name}` }), `${at}${name}`).toMatchObject({
          ok: false,
          error: { code: 'NOT_FOUND' },
        });
        expect(await host.gate.call('c', 'write', { path: `${at}${name}`, content: 'x\n' })).toMatchObject({
          ok: false,
          error: { code: 'PROTECTED_PATH' },
        });
      }
      for (const name of ODD_FOLDERS) {
        expect(await host.gate.call('c', 'read', { path: `${at}${name}/config` })).toMatchObject({
          ok: false,
          error: { code: 'NOT_FOUND' },
        });
        expect(await host.gate.call('c', 'list', { path: `${at}${name}` })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
        expect(await host.gate.call('c', 'write', { path: `${at}${name}/hooks/post-checkout`, content: 'x\n' })).toMatchObject({
          ok: false,
          error: { code: 'PROTECTED_PATH' },
        });
      }
    }
    expect(await host.gate.call('c', 'edit', { path: 'src/a.ts', oldString: 'a = 1', newString: 'a = 2' })).toMatchObject({ ok: true });
    expect(await host.gate.call('c', 'write', { path: 'src/new.ts', content: 'new\n' })).toMatchObject({
      ok: true,
      value: { created: true },
    });
    expect(readFileSync(join(repo.dir, '.gatefs/copies/c/src/a.ts'), 'utf8')).toBe('export const a = 2; // needle\n');
    expect(readFileSync(join(repo.dir, '.gatefs/copies/c/src/new.ts'), 'utf8')).toBe('new\n');
    expect(dotGitNamesOnDisk(join(repo.dir, '.gatefs/copies/c'))).toEqual([]);

    // The lower folder build leaves them out, finishes ready, and changes no answer.
    const outcome = await lowerOutcome(host, 'c');
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ type: 'lower.ready', data: { files: 2 } });
    expect(lowerRecord(repo, 'c')).toMatchObject({ state: 'ready', sha: repo.git('rev-parse', 'main') });
    expect(dotGitNamesOnDisk(join(repo.dir, '.gatefs/lowers'))).toEqual([]);
    expect(readFileSync(join(repo.dir, '.gatefs/lowers/c/tree/src/a.ts'), 'utf8')).toBe('export const a = 1; // needle\n');
    expect(existsSync('/tmp/gatefs-dot-git-ran')).toBe(false);
    const after = await agentView(host);
    expect((after[0] as { value: { entries: { path: string }[] } }).value.entries.map((e) => e.path).sort()).toEqual([
      'README.md',
      'src',
      'src/a.ts',
      'src/new.ts',
    ]);
    expect(after[2]).toMatchObject({ ok: true, value: { files: expect.arrayContaining(['src/a.ts']) } });
    expect(after[4]).toMatchObject({ ok: true, value: { content: 'export const a = 2; // needle\n' } });
  });
});
