/**
 * The fuzzer's operations as fast-check model-based commands: agent tool calls through the real
 * gate (read, write, edit, list, grep, concurrent edits of one shared file), what the agent's own
 * shell does behind gatefs's back (links planted, a folder swapped for a link, renames), and the
 * host's lifecycle (release with and without discard, prepare again, restart).
 *
 * Every command checks its own answer against the model, and `checkInvariants` runs after each:
 * the outside tree, the read-only mount and the integration checkout are byte-identical, and no
 * answer ever held outside bytes, a host path of the repository, or `INTERNAL`.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { ToolResult } from '../../tools/result.js';
import { DENIALS, initialModel, isDirty, isIgnored, pinnedFiles, throughLink, type Model, type PathClass } from './model.js';
import { CONVERSATION_IDS, CONVERSATIONS, type Conversation, type World } from './world.js';

/** What the commands act on: the world, and the hashes that must never change. */
export interface Real {
  world: World;
  hashes: { outside: string; ro: string; repo: string };
}

type Cmd = fc.AsyncCommand<Model, Real, boolean>;

/** A path an agent passes, named symbolically so the model and the world agree on it. */
export type Target =
  | { space: 'own'; rel: string }
  | { space: 'shared'; rel: string }
  | { space: 'ro'; rel: string }
  | { space: 'campaign'; rel: string }
  | { space: 'hostile'; kind: HostileKind };

export type HostileKind =
  | 'escape'
  | 'mid-escape'
  | 'dotdot'
  | 'other-root'
  | 'outside-abs'
  | 'etc'
  | 'git'
  | 'git-config'
  | 'git-upper'
  | 'git-dot'
  | 'git-ntfs'
  | 'git-zero-width'
  | 'manifest';

const OWN = [
  'README.md',
  'src/a.txt',
  'src/b.txt',
  'src/new.txt',
  'src/renamed.txt',
  'docs/d.md',
  'notes/n.md',
  'scratch/tmp.txt',
  'lnk/x.txt',
];
const SHARED = ['s.txt', 'sub/t.txt', 'new.txt'];
const HOSTILE: HostileKind[] = [
  'escape',
  'mid-escape',
  'dotdot',
  'other-root',
  'outside-abs',
  'etc',
  'git',
  'git-config',
  'git-upper',
  'git-dot',
  'git-ntfs',
  'git-zero-width',
  'manifest',
];
const WORDS = ['alpha', 'beta', 'gamma', 'one', 'two', 'start'];

const conversation = fc.constantFrom(...CONVERSATION_IDS);
const target: fc.Arbitrary<Target> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...OWN).map((rel) => ({ space: 'own' as const, rel })) },
  { weight: 2, arbitrary: fc.constantFrom(...SHARED).map((rel) => ({ space: 'shared' as const, rel })) },
  { weight: 1, arbitrary: fc.constantFrom('r.txt', 'new.txt').map((rel) => ({ space: 'ro' as const, rel })) },
  { weight: 1, arbitrary: fc.constantFrom('plan.md', 'new.md').map((rel) => ({ space: 'campaign' as const, rel })) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE).map((kind) => ({ space: 'hostile' as const, kind })) },
);

/** The path string an agent of `c` passes for `t`, and how the model classifies it now. */
function resolveTarget(model: Model, world: World, c: Conversation, t: Target): { path: string; cls: PathClass } {
  const m = model.conversations[c];
  switch (t.space) {
    case 'own':
      return { path: t.rel, cls: throughLink(m, t.rel) ? { kind: 'denied' } : { kind: 'own', rel: t.rel } };
    case 'shared':
      return { path: `${world.shared}/${t.rel}`, cls: { kind: 'shared', rel: t.rel } };
    case 'ro':
      return { path: `${world.ro}/${t.rel}`, cls: { kind: 'readonly', content: t.rel === 'r.txt' ? 'read only alpha\n' : undefined } };
    case 'campaign':
      return { path: `.campaign/${t.rel}`, cls: { kind: 'readonly', content: t.rel === 'plan.md' ? 'campaign plan alpha\n' : undefined } };
    case 'hostile': {
      const other = CONVERSATION_IDS.find((o) => o !== c)!;
      const paths: Record<HostileKind, [string, string | undefined]> = {
        escape: [`../${other}/src/a.txt`, 'PATH_ESCAPE'],
        'mid-escape': [`src/../../${other}/src/a.txt`, 'PATH_ESCAPE'],
        dotdot: ['..', 'PATH_ESCAPE'],
        'other-root': [`/worktrees/${other}/src/a.txt`, 'OUTSIDE_MOUNTS'],
        'outside-abs': [`${world.outside}/secret.txt`, 'OUTSIDE_MOUNTS'],
        etc: ['/etc/hostname', 'OUTSIDE_MOUNTS'],
        git: ['.git', undefined],
        'git-config': ['.git/config', undefined],
        'git-upper': ['.GIT/config', undefined],
        'git-dot': ['.git./config', undefined],
        'git-ntfs': ['git~1/config', undefined],
        'git-zero-width': ['.g\u200cit/config', undefined],
        manifest: ['gatefs.yaml', undefined],
      };
      const [p, code] = paths[t.kind];
      return { path: p, cls: { kind: 'denied', ...(code ? { code } : {}) } };
    }
  }
}

/** Reads are refused for a manifest that does not exist too: the one hostile path a read may find absent. */
function expectDenied(result: ToolResult, code: string | undefined, what: string): void {
  expect(result.ok, `${what} must be refused, got ${JSON.stringify(result).slice(0, 300)}`).toBe(false);
  if (result.ok) return;
  if (code) expect(result.error.code, what).toBe(code);
  else expect(DENIALS.has(result.error.code), `${what}: ${result.error.code} is not a refusal`).toBe(true);
}

/** One gated call, with the checks every answer must pass. */
async function call(real: Real, c: Conversation, tool: string, args: unknown): Promise<ToolResult> {
  const result = await real.world.host.gate.call(c, tool, args);
  const text = JSON.stringify(result);
  expect(text.includes(real.world.marker), `${tool} ${JSON.stringify(args)} returned outside bytes`).toBe(false);
  expect(text.includes(`${real.world.repo}/.git`), `${tool} ${JSON.stringify(args)} showed a host path: ${text.slice(0, 300)}`).toBe(false);
  expect(text.includes(real.world.stateDir), `${tool} ${JSON.stringify(args)} showed the state dir: ${text.slice(0, 300)}`).toBe(false);
  if (!result.ok) expect(result.error.code, `${tool} ${JSON.stringify(args)}: ${result.error.message}`).not.toBe('INTERNAL');
  return result;
}

function count(model: Model, kind: string): void {
  model.counts.set(kind, (model.counts.get(kind) ?? 0) + 1);
}

/** After every command: nothing outside the calls' authority changed. */
export function checkInvariants(real: Real): void {
  const { world, hashes } = real;
  expect(world.treeHash(world.outside), 'the outside tree changed').toBe(hashes.outside);
  expect(world.treeHash(world.ro), 'the read-only mount changed').toBe(hashes.ro);
  expect(world.treeHash(world.repo), 'the integration checkout changed').toBe(hashes.repo);
}

function released(result: ToolResult): void {
  expect(result.ok ? 'ok' : result.error.code).toBe('WORKSPACE_RELEASED');
}

class ReadCmd implements Cmd {
  constructor(
    readonly c: Conversation,
    readonly t: Target,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    count(model, 'read');
    const m = model.conversations[this.c];
    const { path: p, cls } = resolveTarget(model, real.world, this.c, this.t);
    const result = await call(real, this.c, 'read', { path: p });
    if (m.state === 'released') return released(result);
    const content =
      cls.kind === 'own'
        ? m.files.get(cls.rel)
        : cls.kind === 'shared'
          ? model.shared.get(cls.rel)
          : cls.kind === 'readonly'
            ? cls.content
            : undefined;
    if (cls.kind === 'denied') return expectDenied(result, cls.code, `read ${p}`);
    if (content === undefined) return expectDenied(result, 'NOT_FOUND', `read of missing ${p}`);
    expect(result, `read ${p}`).toMatchObject({ ok: true, value: { content } });
  }
  toString = () => `read(${this.c}, ${JSON.stringify(this.t)})`;
}

class WriteCmd implements Cmd {
  constructor(
    readonly c: Conversation,
    readonly t: Target,
    readonly word: string,
    readonly n: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    count(model, 'write');
    const m = model.conversations[this.c];
    const { path: p, cls } = resolveTarget(model, real.world, this.c, this.t);
    const content = `${this.word} by-${this.c} ${this.n}\n`;
    const result = await call(real, this.c, 'write', { path: p, content });
    if (m.state === 'released') return released(result);
    if (cls.kind === 'denied') return expectDenied(result, cls.code, `write ${p}`);
    if (cls.kind === 'readonly') return expectDenied(result, 'READ_ONLY', `write ${p}`);
    expect(result, `write ${p}`).toMatchObject({ ok: true });
    if (cls.kind === 'own') {
      m.files.set(cls.rel, content);
      m.touched = true;
    } else model.shared.set(cls.rel, content);
  }
  toString = () => `write(${this.c}, ${JSON.stringify(this.t)}, ${this.word} ${this.n})`;
}

class EditCmd implements Cmd {
  constructor(
    readonly c: Conversation,
    readonly t: Target,
    readonly old: string,
    readonly n: number,
    readonly all: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    count(model, 'edit');
    const m = model.conversations[this.c];
    const { path: p, cls } = resolveTarget(model, real.world, this.c, this.t);
    const replacement = `${this.old}-${this.c}${this.n}`;
    const result = await call(real, this.c, 'edit', {
      path: p,
      oldString: this.old,
      newString: replacement,
      ...(this.all ? { replaceAll: true } : {}),
    });
    if (m.state === 'released') return released(result);
    if (cls.kind === 'denied') return expectDenied(result, cls.code, `edit ${p}`);
    if (cls.kind === 'readonly') return expectDenied(result, 'READ_ONLY', `edit ${p}`);
    const current = cls.kind === 'own' ? m.files.get(cls.rel) : model.shared.get(cls.rel);
    if (current === undefined) return expectDenied(result, 'NOT_FOUND', `edit of missing ${p}`);
    const occurrences = current.split(this.old).length - 1;
    const expected = occurrences === 0 ? 'NO_MATCH' : occurrences > 1 && !this.all ? 'AMBIGUOUS_MATCH' : 'ok';
    expect(result.ok ? 'ok' : result.error.code, `edit ${p} (${this.old})`).toBe(expected);
    if (!result.ok) return;
    const next = current.split(this.old).join(replacement);
    if (cls.kind === 'own') {
      m.files.set(cls.rel, next);
      m.touched = true;
    } else model.shared.set(cls.rel, next);
  }
  toString = () => `edit(${this.c}, ${JSON.stringify(this.t)}, ${this.old}${this.all ? ', all' : ''})`;
}

/** Every file `list` and `grep` should see in a conversation's root (mounts under it included). */
function rootView(model: Model, c: Conversation): Map<string, string> {
  const view = new Map(model.conversations[c].files);
  view.set('.campaign/plan.md', 'campaign plan alpha\n');
  return view;
}

class ListCmd implements Cmd {
  constructor(
    readonly c: Conversation,
    readonly inShared: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    count(model, 'list');
    const m = model.conversations[this.c];
    const args = this.inShared ? { path: real.world.shared, pattern: '**' } : { pattern: '**' };
    const result = await call(real, this.c, 'list', args);
    if (m.state === 'released') return released(result);
    expect(result.ok, `list: ${JSON.stringify(result).slice(0, 300)}`).toBe(true);
    if (!result.ok) return;
    const entries = (result.value as { entries: { path: string; type: string }[] }).entries;
    const files = entries
      .filter((e) => e.type === 'file')
      .map((e) => e.path)
      .filter((p) => !isIgnored(p))
      .sort();
    const links = entries
      .filter((e) => e.type === 'symlink')
      .map((e) => e.path)
      .sort();
    if (this.inShared) {
      // A folder outside the workspace root is shown by its absolute namespace path.
      expect(files, 'list of the shared mount').toEqual([...model.shared.keys()].map((p) => `${real.world.shared}/${p}`).sort());
      return;
    }
    const expected = [...rootView(model, this.c).keys()].filter((p) => !isIgnored(p)).sort();
    expect(files, `list ** in ${this.c}`).toEqual(expected);
    expect(links, `links listed in ${this.c}`).toEqual([...m.links, ...(m.swapped ? ['src'] : [])].sort());
  }
  toString = () => `list(${this.c}${this.inShared ? ', shared' : ''})`;
}

class GrepCmd implements Cmd {
  constructor(
    readonly c: Conversation,
    readonly needle: string,
    readonly inShared: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    count(model, 'grep');
    const m = model.conversations[this.c];
    const args = { pattern: this.needle, literal: true, ...(this.inShared ? { path: real.world.shared } : {}) };
    const result = await call(real, this.c, 'grep', args);
    if (m.state === 'released') return released(result);
    expect(result.ok, `grep: ${JSON.stringify(result).slice(0, 300)}`).toBe(true);
    if (!result.ok) return;
    const files = [...(result.value as { files: string[] }).files].sort();
    const source = this.inShared ? model.shared : rootView(model, this.c);
    const prefix = this.inShared ? `${real.world.shared}/` : '';
    const expected = [...source]
      .filter(([p, text]) => !isIgnored(p) && text.includes(this.needle))
      .map(([p]) => prefix + p)
      .sort();
    expect(files, `grep ${this.needle} in ${this.c}${this.inShared ? ' (shared)' : ''}`).toEqual(expected);
  }
  toString = () => `grep(${this.c}, ${this.needle}${this.inShared ? ', shared' : ''})`;
}

/** Every ready conversation edits `k` of its own slots of one shared file, all at once. */
class ConcurrentEditsCmd implements Cmd {
  constructor(readonly k: number) {}
  check = (model: Readonly<Model>) => CONVERSATION_IDS.some((c) => model.conversations[c].state === 'ready');
  async run(model: Model, real: Real) {
    count(model, 'concurrent-edits');
    const edits: { c: Conversation; old: string; next: string }[] = [];
    for (const c of CONVERSATION_IDS) {
      if (model.conversations[c].state !== 'ready') continue;
      for (let i = 0; i < this.k; i++) {
        const slot = model.nextSlot[c]++;
        edits.push({ c, old: `slot-${c}-${slot}\n`, next: `done-${c}-${slot}\n` });
      }
    }
    const file = `${real.world.shared}/counter.txt`;
    const results = await Promise.all(edits.map((e) => call(real, e.c, 'edit', { path: file, oldString: e.old, newString: e.next })));
    let content = model.shared.get('counter.txt')!;
    results.forEach((r, i) => {
      expect(r.ok ? 'ok' : r.error.code, `concurrent edit ${edits[i].old.trim()}`).toMatch(/^(ok|BUSY)$/);
      if (r.ok) content = content.replace(edits[i].old, edits[i].next);
    });
    model.shared.set('counter.txt', content);
    const reader = CONVERSATION_IDS.find((c) => model.conversations[c].state === 'ready')!;
    const now = await call(real, reader, 'read', { path: file });
    const onDisk = now.ok ? (now.value as { content: string }).content : '';
    const lost = edits.filter((e, i) => results[i].ok && !onDisk.includes(e.next)).map((e) => e.next.trim());
    expect(lost, `edits reported ok but not in the file (${lost.length} of ${edits.length})`).toEqual([]);
    expect(onDisk, 'the shared file holds exactly the changes reported ok').toBe(content);
  }
  toString = () => `concurrentEdits(${this.k})`;
}

/** The agent's shell plants a link to the outside at the workspace root (`lnk`), or removes it. */
class LinkCmd implements Cmd {
  constructor(readonly c: Conversation) {}
  check = (model: Readonly<Model>) => {
    const m = model.conversations[this.c];
    return m.state === 'ready' && (m.links.has('lnk') || ![...m.files.keys()].some((p) => p.startsWith('lnk/')));
  };
  async run(model: Model, real: Real) {
    count(model, 'link');
    const m = model.conversations[this.c];
    const at = path.join(real.world.checkout(this.c), 'lnk');
    if (m.links.has('lnk')) {
      fs.unlinkSync(at);
      m.links.delete('lnk');
    } else {
      fs.symlinkSync(real.world.outside, at);
      m.links.add('lnk');
    }
  }
  toString = () => `toggleLink(${this.c})`;
}

/** The agent's shell swaps `src` for a link to the outside (keeping its files in `src-moved`), or back. */
class SwapCmd implements Cmd {
  constructor(readonly c: Conversation) {}
  check = (model: Readonly<Model>) => {
    const m = model.conversations[this.c];
    if (CONVERSATIONS[this.c] !== 'wt' || m.state !== 'ready') return false;
    const keys = [...m.files.keys()];
    return m.swapped || (keys.some((p) => p.startsWith('src/')) && !keys.some((p) => p.startsWith('src-moved/')));
  };
  async run(model: Model, real: Real) {
    count(model, 'swap');
    const m = model.conversations[this.c];
    const root = real.world.checkout(this.c);
    const move = (from: string, to: string) => {
      for (const [p, text] of [...m.files]) {
        if (!p.startsWith(`${from}/`)) continue;
        m.files.delete(p);
        m.files.set(`${to}/${p.slice(from.length + 1)}`, text);
      }
    };
    if (m.swapped) {
      fs.unlinkSync(path.join(root, 'src'));
      fs.renameSync(path.join(root, 'src-moved'), path.join(root, 'src'));
      move('src-moved', 'src');
      m.swapped = false;
    } else {
      fs.renameSync(path.join(root, 'src'), path.join(root, 'src-moved'));
      fs.symlinkSync(real.world.outside, path.join(root, 'src'));
      move('src', 'src-moved');
      m.swapped = true;
    }
  }
  toString = () => `toggleSwap(${this.c})`;
}

/** The agent's shell renames `src/a.txt` ↔ `src/renamed.txt` behind gatefs's back. */
class RenameCmd implements Cmd {
  constructor(readonly c: Conversation) {}
  check = (model: Readonly<Model>) => {
    const m = model.conversations[this.c];
    return (
      CONVERSATIONS[this.c] === 'wt' && m.state === 'ready' && !m.swapped && m.files.has('src/a.txt') !== m.files.has('src/renamed.txt')
    );
  };
  async run(model: Model, real: Real) {
    count(model, 'rename');
    const m = model.conversations[this.c];
    const [from, to] = m.files.has('src/a.txt') ? ['src/a.txt', 'src/renamed.txt'] : ['src/renamed.txt', 'src/a.txt'];
    const root = real.world.checkout(this.c);
    fs.renameSync(path.join(root, from), path.join(root, to));
    m.files.set(to, m.files.get(from)!);
    m.files.delete(from);
  }
  toString = () => `rename(${this.c})`;
}

class ReleaseCmd implements Cmd {
  constructor(
    readonly c: Conversation,
    readonly discard: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    count(model, 'release');
    const m = model.conversations[this.c];
    const dirty = isDirty(m) || (CONVERSATIONS[this.c] === 'cp' && m.touched);
    let outcome: string;
    try {
      await real.world.host.release(this.c, { discard: this.discard } as never);
      outcome = 'ok';
    } catch (e) {
      outcome = (e as { code?: string }).code ?? String(e);
    }
    if (m.state === 'released') {
      expect(outcome, `release of a released ${this.c}`).toBe('ok');
      return;
    }
    const expected = dirty && !this.discard ? 'DIRTY_WORKTREE' : 'ok';
    expect(outcome, `release(${this.c}, discard ${this.discard}) with ${dirty ? 'work' : 'no work'}`).toBe(expected);
    if (outcome === 'ok') {
      m.state = 'released';
      return;
    }
    // A refused release leaves the workspace serving.
    const still = await call(real, this.c, 'read', { path: 'README.md' });
    const readme = m.files.get('README.md');
    if (readme !== undefined)
      expect(still, 'a refused release leaves the workspace serving').toMatchObject({ ok: true, value: { content: readme } });
  }
  toString = () => `release(${this.c}${this.discard ? ', discard' : ''})`;
}

class PrepareCmd implements Cmd {
  constructor(readonly c: Conversation) {}
  check = () => true;
  async run(model: Model, real: Real) {
    count(model, 'prepare');
    const m = model.conversations[this.c];
    await real.world.host.prepare({ conversation: this.c, role: CONVERSATIONS[this.c] });
    if (m.state === 'released') {
      m.state = 'ready';
      m.files = pinnedFiles();
      m.links.clear();
      m.swapped = false;
      m.touched = false;
    }
  }
  toString = () => `prepare(${this.c})`;
}

class RestartCmd implements Cmd {
  check = () => true;
  async run(model: Model, real: Real) {
    count(model, 'restart');
    await real.world.restart();
  }
  toString = () => 'restart()';
}

/** Reads back every file the model holds for a conversation: the whole view agrees, byte for byte. */
class VerifyCmd implements Cmd {
  constructor(readonly c: Conversation) {}
  check = (model: Readonly<Model>) => model.conversations[this.c].state === 'ready';
  async run(model: Model, real: Real) {
    count(model, 'verify');
    const m = model.conversations[this.c];
    for (const [rel, content] of m.files) {
      const result = await call(real, this.c, 'read', { path: rel });
      if (throughLink(m, rel)) expectDenied(result, undefined, `read ${rel} through a link`);
      else expect(result, `verify ${this.c} ${rel}`).toMatchObject({ ok: true, value: { content } });
    }
  }
  toString = () => `verify(${this.c})`;
}

/** Wraps a command so the invariants are checked after it. */
class Checked implements Cmd {
  constructor(readonly inner: Cmd) {}
  check = (model: Readonly<Model>) => this.inner.check(model);
  async run(model: Model, real: Real) {
    await this.inner.run(model, real);
    checkInvariants(real);
  }
  toString = () => this.inner.toString();
}

const n = fc.integer({ min: 0, max: 999 });

/**
 * The command arbitraries, weighted towards agent calls. `skip` names kinds to leave out (their
 * class names without `Cmd`, e.g. `ConcurrentEdits`), to look past one known divergence.
 */
export function commandArbitraries(skip: readonly string[] = []): fc.Arbitrary<Cmd>[] {
  const arbs: fc.Arbitrary<Cmd>[] = [
    fc.tuple(conversation, target).map(([c, t]) => new ReadCmd(c, t)),
    fc.tuple(conversation, target).map(([c, t]) => new ReadCmd(c, t)),
    fc.tuple(conversation, target, fc.constantFrom(...WORDS), n).map(([c, t, w, i]) => new WriteCmd(c, t, w, i)),
    fc.tuple(conversation, target, fc.constantFrom(...WORDS), n).map(([c, t, w, i]) => new WriteCmd(c, t, w, i)),
    fc.tuple(conversation, target, fc.constantFrom(...WORDS), n, fc.boolean()).map(([c, t, w, i, all]) => new EditCmd(c, t, w, i, all)),
    fc.tuple(conversation, fc.boolean()).map(([c, s]) => new ListCmd(c, s)),
    fc.tuple(conversation, fc.constantFrom(...WORDS, 'by-c1', 'by-c2', 'by-c3'), fc.boolean()).map(([c, w, s]) => new GrepCmd(c, w, s)),
    fc.integer({ min: 1, max: 12 }).map((k) => new ConcurrentEditsCmd(k)),
    conversation.map((c) => new LinkCmd(c)),
    conversation.map((c) => new SwapCmd(c)),
    conversation.map((c) => new RenameCmd(c)),
    fc.tuple(conversation, fc.boolean()).map(([c, d]) => new ReleaseCmd(c, d)),
    conversation.map((c) => new PrepareCmd(c)),
    fc.constant(new RestartCmd()),
    conversation.map((c) => new VerifyCmd(c)),
  ];
  const kept = arbs.filter((a) => !skip.includes(kindOf(a)));
  return kept.map((a) => a.map((cmd) => new Checked(cmd) as Cmd));
}

function kindOf(arb: fc.Arbitrary<Cmd>): string {
  const sample = fc.sample(arb, { numRuns: 1, seed: 1 })[0];
  return sample.constructor.name.replace(/Cmd$/, '');
}

export { initialModel };
