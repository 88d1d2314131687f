/**
 * The differential fuzzer's world on the real disk: a git repository, a writable absolute mount
 * shared by every conversation, a read-only absolute mount, and a sentinel folder outside
 * everything. Three conversations: `c1` and `c2` (worktree backend) and `c3` (copy backend),
 * each with the same mounts plus the relative read-only mount `.campaign`.
 *
 * The world also plays "the agent's own shell" (another process on the machine): it plants and
 * removes links inside a workspace, swaps a folder for a link to the outside and back, and
 * renames files behind gatefs's back. Every such change goes into the model too.
 *
 * Nothing here is a fake: `createHost` over real git, real SQLite, real folders.
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';

/** Conversations and their roles. */
export const CONVERSATIONS = { c1: 'wt', c2: 'wt', c3: 'cp' } as const;
export type Conversation = keyof typeof CONVERSATIONS;
export const CONVERSATION_IDS = Object.keys(CONVERSATIONS) as Conversation[];

/** Slots in the shared counter file: each conversation replaces its own, concurrently. */
export const SLOTS_PER_CONVERSATION = 400;

/** The repository's files at the pinned commit (what every workspace starts from). */
export const REPO_FILES: Readonly<Record<string, string>> = {
  'README.md': '# fuzz\nshared words: alpha beta gamma\n',
  'src/a.txt': 'alpha one\nbeta two\n',
  'src/b.txt': 'gamma three\n',
  'docs/d.md': 'docs alpha\n',
  '.gitignore': 'scratch/\n',
  '.campaign/plan.md': 'campaign plan alpha\n',
};

export interface World {
  base: string;
  repo: string;
  stateDir: string;
  shared: string;
  ro: string;
  outside: string;
  /** Bytes present in every outside file: must never come back from a tool. */
  marker: string;
  manifest: object;
  host: Host;
  /** The host folder of a conversation's root layer (worktree, or the copy's upper). */
  checkout(conversation: Conversation): string;
  /** sha256 over a folder tree (names, types, link targets, bytes); '.git' and '.gatefs' skipped. */
  treeHash(dir: string): string;
  /** Closes the host and opens a new one over the same state (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  }).trim();
}

/** Builds the world and opens a host over it. */
export async function makeWorld(): Promise<World> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-fuzz-')));
  const marker = `SENTINEL-${randomBytes(8).toString('hex')}`;
  const repo = path.join(base, 'repo');
  const shared = path.join(base, 'shared');
  const ro = path.join(base, 'ro');
  const outside = path.join(base, 'outside');
  for (const dir of [repo, shared, ro, path.join(outside, 'sub')]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(outside, 'secret.txt'), `${marker} secret\n`);
  fs.writeFileSync(path.join(outside, 'a.txt'), `${marker} a\n`);
  fs.writeFileSync(path.join(outside, 'sub', 'deep.txt'), `${marker} deep\n`);
  fs.writeFileSync(path.join(ro, 'r.txt'), 'read only alpha\n');
  fs.writeFileSync(path.join(shared, 's.txt'), 'shared start\n');
  const slots = CONVERSATION_IDS.flatMap((c) => Array.from({ length: SLOTS_PER_CONVERSATION }, (_, i) => `slot-${c}-${i}`));
  fs.writeFileSync(path.join(shared, 'counter.txt'), `${slots.join('\n')}\n`);
  git(repo, 'init', '--quiet', '--initial-branch=main');
  fs.appendFileSync(
    path.join(repo, '.git/config'),
    '[user]\n\tname = fuzz\n\temail = fuzz@gatefs.invalid\n[commit]\n\tgpgsign = false\n[gc]\n\tauto = 0\n',
  );
  for (const [rel, content] of Object.entries(REPO_FILES)) {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    fs.writeFileSync(path.join(repo, rel), content);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  const stateDir = path.join(repo, '.gatefs');
  const mounts = [
    { path: shared, writable: true },
    { path: ro, writable: false },
    { path: '.campaign', writable: false },
  ];
  const tools = ['read', 'grep', 'list', 'edit', 'write'];
  const manifest = {
    roles: [
      { name: 'wt', tools, workspace: { backend: 'worktree', mounts } },
      { name: 'cp', tools, workspace: { backend: 'copy', mounts } },
    ],
  };
  const open = () => createHost({ repo, manifest });
  let host = await open();
  for (const c of CONVERSATION_IDS) await host.prepare({ conversation: c, role: CONVERSATIONS[c] });
  const world: World = {
    base,
    repo,
    stateDir,
    shared,
    ro,
    outside,
    marker,
    manifest,
    get host() {
      return host;
    },
    checkout: (c) => path.join(stateDir, CONVERSATIONS[c] === 'wt' ? 'worktrees' : 'copies', c),
    treeHash,
    async restart() {
      await host.close();
      host = await open();
    },
    async close() {
      await host.close();
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
  return world;
}

function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (d: string, rel: string) => {
    let names: string[];
    try {
      names = fs.readdirSync(d).sort();
    } catch {
      hash.update(`missing ${rel}\n`);
      return;
    }
    for (const name of names) {
      if (name === '.git' || name === '.gatefs') continue;
      const full = path.join(d, name);
      const st = fs.lstatSync(full);
      if (st.isSymbolicLink()) hash.update(`L ${rel}${name} ${fs.readlinkSync(full)}\n`);
      else if (st.isDirectory()) {
        hash.update(`D ${rel}${name}\n`);
        walk(full, `${rel}${name}/`);
      } else hash.update(`F ${rel}${name} `).update(fs.readFileSync(full)).update('\n');
    }
  };
  walk(dir, '');
  return hash.digest('hex');
}
