/**
 * The lower folder of a `copy` workspace (src/host/lower/lower-folders.ts), on real git and disk: a
 * copy is served at once from git objects, its first read checks the commit out into
 * `<stateDir>/lowers/<id>/tree` in the background, and the tools then read it from there with
 * exactly the answers they gave before — the commit's bytes whatever `.gitattributes` says, its
 * links as links, its submodules as `other` — while every write still lands in the copy's own
 * folder and the lower folder never changes. A commit git refuses to check out stays on git
 * objects.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliTreeCheckout } from '../../src/git/cli-tree-checkout.js';
import { IsoObjectReader } from '../../src/git/iso-object-reader.js';
import { checkOutLower } from '../../src/host/lower/check-out-lower.js';
import { createHost } from '../../src/host/composition/create-host.js';
import { lowerPathsOf } from '../../src/host/lower/lower-record.js';
import type { Host } from '../../src/host/composition/host.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';
import type { RunEvent } from '../../src/state/event-log.js';
import { gitTreeLayer } from '../../vfs/git-tree-layer.js';
import { openHostLayer } from '../../vfs/host-layer.js';
import { isLinkReadingLayer, walkLayer, type Layer } from '../../vfs/layer.js';
import { snapshotFolder } from '../../vfs/snapshot-folder-layer.js';
import * as fs from 'node:fs';
import type { FsClient } from 'isomorphic-git';
import { runChild } from './child-process.js';
import { SwitchableExec } from './switchable-exec.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const manifest = {
  roles: [{ name: 'cp', tools: ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move'], workspace: { backend: 'copy' } }],
};
const SUBMODULE = '1111111111111111111111111111111111111111';

/**
 * A commit with what a checkout changes or cannot hold: attributes that rewrite bytes on
 * checkout (`eol=crlf`, `ident`), an executable, binary bytes, a composed name, links staying
 * inside, climbing out and absolute, and a submodule.
 */
function trickyRepo(): TempRepo {
  const repo = makeTempRepo();
  cleanups.push(() => repo.cleanup());
  repo.write({
    'README.md': '# tricky\n',
    '.gitattributes': '*.txt eol=crlf\nid.c ident\n',
    'notes.txt': 'line one\nline two\n',
    'id.c': '/* $Id$ */\nint x;\n',
    'run.sh': '#!/bin/sh\necho run\n',
    'caf\u00e9.md': 'composed\n',
    'src/x.ts': 'export const x = 1; // needle-in-x\n',
    'src/deep/y.ts': 'export const y = 2;\n',
    'odd\nname.md': 'a name with a newline\n',
  });
  writeFileSync(
    join(repo.dir, 'bin.dat'),
    Uint8Array.from({ length: 3000 }, (_, i) => (i * 31) % 256),
  );
  chmodSync(join(repo.dir, 'run.sh'), 0o755);
  symlinkSync('x.ts', join(repo.dir, 'src/to-x'));
  symlinkSync('../README.md', join(repo.dir, 'src/to-readme'));
  symlinkSync('../../outside', join(repo.dir, 'src/out'));
  symlinkSync('/etc/hostname', join(repo.dir, 'abs'));
  repo.git('add', '-A');
  repo.git('update-index', '--add', '--cacheinfo', `160000,${SUBMODULE},vendor/sub`);
  repo.git('commit', '--quiet', '-m', 'tricky');
  return repo;
}

async function copyHost(repo: TempRepo, exec?: SwitchableExec): Promise<Host> {
  const host = await createHost({ repo: repo.dir, manifest, ...(exec ? { exec } : {}) });
  cleanups.push(() => host.close());
  return host;
}

/** Waits for the first `lower.*` event of `conversation` that ends a build, and returns it. */
async function lowerOutcome(host: Host, conversation: string, after = 0): Promise<RunEvent> {
  for (let i = 0; i < 1500; i++) {
    const done = host
      .events({ conversation })
      .slice(after)
      .find((e) => ['lower.ready', 'lower.unavailable', 'lower.failed', 'lower.stopped'].includes(e.type));
    if (done) return done;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no lower folder outcome within 30 s');
}

/** What an agent sees of the workspace: listings with sizes, every file's text and sha256, links followed or refused, a grep. */
async function agentView(host: Host, id: string): Promise<unknown[]> {
  const calls: [string, Record<string, unknown>][] = [
    ['list', { pattern: '**', includeIgnored: true, maxResults: 1000 }],
    ['read', { path: 'README.md' }],
    ['read', { path: 'notes.txt' }],
    ['read', { path: 'id.c' }],
    ['read', { path: 'caf\u00e9.md' }],
    ['read', { path: 'src/to-x' }],
    ['read', { path: 'src/to-readme' }],
    ['read', { path: 'src/out/x' }],
    ['read', { path: 'abs' }],
    ['read', { path: 'vendor/sub' }],
    ['read', { path: 'bin.dat' }],
    ['grep', { pattern: 'needle-in-x', output: 'content' }],
    ['grep', { pattern: 'Id', literal: true }],
  ];
  const out: unknown[] = [];
  for (const [tool, args] of calls) out.push(await host.gate.call(id, tool, args));
  return out;
}

const sha1Blob = (bytes: Uint8Array) => createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');

describe('a copy workspace and its lower folder', () => {
  it('is served at once from git objects; after its first read the lower folder serves the very same answers', async () => {
    const repo = trickyRepo();
    const exec = new SwitchableExec();
    const host = await copyHost(repo, exec);
    const held = exec.holdNext((argv) => argv.includes('ls-tree'));
    await host.prepare({ conversation: 'c' });
    const onObjects = await agentView(host, 'c');
    await held.reached;
    // The build waits on its first command: everything above came from git objects.
    expect(host.events({ conversation: 'c' }).map((e) => e.type)).toContain('lower.building');
    expect(existsSync(join(repo.dir, '.gatefs/lowers/c/tree'))).toBe(false);
    held.release();
    expect(await lowerOutcome(host, 'c')).toMatchObject({
      type: 'lower.ready',
      data: { files: 10, links: 4, submodules: 1, rewritten: 2 },
    });
    const fromFolder = await agentView(host, 'c');
    expect(fromFolder).toEqual(onObjects);
    expect(onObjects[6]).toMatchObject({ ok: true, value: { content: '# tricky\n' } });
    expect(onObjects[7]).toMatchObject({ ok: false, error: { code: 'SYMLINK_ESCAPE' } });
    expect(onObjects[8]).toMatchObject({ ok: false, error: { code: 'SYMLINK_ESCAPE' } });
    expect(onObjects[9]).toMatchObject({ ok: false, error: { code: 'NOT_REGULAR_FILE' } });

    // On disk: the commit's bytes (no CRLF, no expanded $Id$), links as links, the submodule a FIFO.
    const tree = join(repo.dir, '.gatefs/lowers/c/tree');
    expect(readFileSync(join(tree, 'notes.txt'), 'utf8')).toBe('line one\nline two\n');
    expect(readFileSync(join(tree, 'id.c'), 'utf8')).toBe('/* $Id$ */\nint x;\n');
    expect(readlinkSync(join(tree, 'src/out'))).toBe('../../outside');
    expect(lstatSync(join(tree, 'vendor/sub')).isFIFO()).toBe(true);
    expect(lstatSync(join(tree, 'run.sh')).mode & 0o111).not.toBe(0);
    for (const path of ['notes.txt', 'id.c', 'bin.dat', 'src/x.ts']) {
      expect({ path, oid: sha1Blob(readFileSync(join(tree, path))) }).toEqual({ path, oid: repo.git('rev-parse', `HEAD:${path}`) });
    }
    // The view reads the folder now: a byte changed there behind gatefs's back shows.
    writeFileSync(join(tree, 'README.md'), '# changed in the lower folder\n');
    expect(await host.gate.call('c', 'read', { path: 'README.md' })).toMatchObject({
      value: { content: '# changed in the lower folder\n' },
    });
  });

  it('sends every change to the copy folder: the lower folder never changes', async () => {
    const repo = trickyRepo();
    const host = await copyHost(repo);
    await host.prepare({ conversation: 'c' });
    await host.gate.call('c', 'read', { path: 'README.md' });
    expect(await lowerOutcome(host, 'c')).toMatchObject({ type: 'lower.ready' });
    const tree = join(repo.dir, '.gatefs/lowers/c/tree');
    const before = hashFolder(tree);
    expect(await host.gate.call('c', 'edit', { path: 'src/x.ts', oldString: 'x = 1', newString: 'x = 10' })).toMatchObject({ ok: true });
    expect(await host.gate.call('c', 'write', { path: 'src/to-x', content: 'through the link\n' })).toMatchObject({ ok: true });
    expect(await host.gate.call('c', 'delete', { path: 'notes.txt' })).toMatchObject({ ok: true });
    expect(await host.gate.call('c', 'move', { from: 'src/deep', to: 'src/moved' })).toMatchObject({ ok: true });
    expect(await host.gate.call('c', 'write', { path: 'new/file.md', content: 'new\n' })).toMatchObject({ ok: true });
    expect(hashFolder(tree)).toBe(before);
    expect(readFileSync(join(repo.dir, '.gatefs/copies/c/src/x.ts'), 'utf8')).toBe('through the link\n');
    expect(await host.gate.call('c', 'read', { path: 'src/x.ts' })).toMatchObject({ value: { content: 'through the link\n' } });
    expect(await host.gate.call('c', 'read', { path: 'notes.txt' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await host.gate.call('c', 'read', { path: 'src/moved/y.ts' })).toMatchObject({ value: { content: 'export const y = 2;\n' } });
    const listed = await host.gate.call('c', 'list', { pattern: 'src/**' });
    expect(listed).toMatchObject({ ok: true });
    expect((listed as { value: { entries: { path: string }[] } }).value.entries.map((e) => e.path).filter((p) => p !== 'src')).toEqual([
      'src/moved',
      'src/moved/y.ts',
      'src/out',
      'src/to-readme',
      'src/to-x',
      'src/x.ts',
    ]);
  });

  it('a commit whose checkout cannot be proven (a link target that is not UTF-8 text) stays on git objects, and is not tried again for that pin', async () => {
    const repo = makeTempRepo({ 'ok.txt': 'fine\n' });
    cleanups.push(() => repo.cleanup());
    symlinkSync(Buffer.from([0x6f, 0xff, 0xfe]), join(repo.dir, 'odd-link'));
    repo.commit('a link whose target is not UTF-8');
    const host = await copyHost(repo);
    await host.prepare({ conversation: 'c' });
    expect(await host.gate.call('c', 'read', { path: 'ok.txt' })).toMatchObject({ ok: true, value: { content: 'fine\n' } });
    expect(await lowerOutcome(host, 'c')).toMatchObject({ type: 'lower.unavailable', data: { reason: 'LINK_TARGET', path: 'odd-link' } });
    expect(existsSync(join(repo.dir, '.gatefs/lowers/c'))).toBe(false);
    expect(await host.gate.call('c', 'read', { path: 'odd-link' })).toMatchObject({ ok: false, error: { code: 'SYMLINK_ESCAPE' } });
    await host.close();
    const again = await copyHost(repo);
    const seen = again.events().length;
    expect(await again.gate.call('c', 'list', {})).toMatchObject({ ok: true });
    await new Promise((r) => setTimeout(r, 200));
    expect(
      again
        .events()
        .slice(seen)
        .filter((e) => e.type.startsWith('lower.')),
    ).toEqual([]);
  });

  it('a checkout git refuses leaves the copy on git objects, its half-made folder removed', async () => {
    const repo = trickyRepo();
    const exec = new SwitchableExec();
    exec.failing = { match: (argv) => argv.includes('checkout-index'), stderr: "error: invalid path 'x'" };
    const host = await copyHost(repo, exec);
    await host.prepare({ conversation: 'c' });
    const answers = await agentView(host, 'c');
    expect(await lowerOutcome(host, 'c')).toMatchObject({ type: 'lower.unavailable', data: { reason: 'CHECKOUT_FAILED' } });
    expect(existsSync(join(repo.dir, '.gatefs/lowers/c'))).toBe(false);
    expect(await agentView(host, 'c')).toEqual(answers);
  });
});

describe('a lower folder build killed with its process', () => {
  for (const step of ['checkout-index', 'hash-object']) {
    it(`killed in the middle of ${step}: the next host finishes it, and no half-made folder is ever served`, async () => {
      const repo = trickyRepo();
      const run = await runChild({
        repo: repo.dir,
        manifest,
        holdExec: step,
        steps: [
          { op: 'prepare', conversation: 'c' },
          { op: 'call', conversation: 'c', tool: 'read', args: { path: 'README.md' } },
          { op: 'hang' },
        ],
      });
      await run.reached('exec-held');
      process.kill(-run.child.pid!, 'SIGKILL');
      expect((await run.done).signal).toBe('SIGKILL');
      const root = join(repo.dir, '.gatefs/lowers/c');
      // What the kill left: a build under way, never a finished tree.
      expect(existsSync(join(root, 'tree'))).toBe(false);

      const host = await copyHost(repo);
      const answers = await agentView(host, 'c');
      expect(await lowerOutcome(host, 'c')).toMatchObject({ type: 'lower.ready', data: { files: 10 } });
      expect(readdirSync(root)).toEqual(['tree']);
      expect(await agentView(host, 'c')).toEqual(answers);
      expect(readFileSync(join(root, 'tree/notes.txt'), 'utf8')).toBe('line one\nline two\n');
    });
  }
});

describe('the lower folder against the git-tree layer, route by route', () => {
  it('stat, readdir, readFile, readLink and the walk with its held-folder access agree on every path of the commit', async () => {
    const repo = trickyRepo();
    const sha = repo.git('rev-parse', 'HEAD');
    const objects = new IsoObjectReader({ fs: fs as unknown as FsClient, gitdir: join(repo.dir, '.git') });
    const state = join(repo.dir, '..', 'state');
    mkdirSync(join(state, 'lowers'), { recursive: true });
    const paths = lowerPathsOf({ repo: repo.dir, stateDir: state, join }, 'c');
    const report = await checkOutLower(paths, sha, {
      checkout: new CliTreeCheckout({ repo: repo.dir, exec: new NodeHostExec() }),
      objects,
      openFolder: (p) => {
        const layer = openHostLayer(p);
        return { layer, identity: layer.identity, close: () => layer.close() };
      },
      context: { tag: 'test', chain: [] },
      signal: new AbortController().signal,
    });
    expect(report).toEqual({ files: 10, links: 4, submodules: 1, rewritten: 2 });
    const host = openHostLayer(paths.tree);
    cleanups.push(() => host.close());
    const folder = snapshotFolder(host);
    const git = gitTreeLayer(objects, sha);
    expect(await everyRoute(folder)).toEqual(await everyRoute(git));
    expect(readdirSync(join(paths.root))).toEqual(['tree']);
  });
});

/** Everything a layer says about every path, by every route (stat, readdir, readFile, readLink, the walk). */
async function everyRoute(layer: Layer): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const outcome = async (p: Promise<unknown>) =>
    p.then(
      (v) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v),
      (e: { code?: string }) => `error ${e.code}`,
    );
  const visit = async (path: string) => {
    out[`stat ${path}`] = await outcome(layer.stat(path));
    out[`readdir ${path}`] = await outcome(layer.readdir(path));
    out[`read ${path}`] = await outcome(layer.readFile(path));
    if (isLinkReadingLayer(layer)) out[`link ${path}`] = await outcome(layer.readLink(path));
    const entries = await layer.readdir(path).catch(() => []);
    for (const e of entries) await visit(path === '' ? e.name : `${path}/${e.name}`);
  };
  await visit('');
  for await (const w of walkLayer(layer, '')) {
    out[`walk ${w.path}`] = w.entries;
    // Where the walk holds the folder, its access answers as the layer's own calls did.
    for (const e of w.files ? w.entries : []) {
      const path = w.path === '' ? e.name : `${w.path}/${e.name}`;
      expect({ path, stat: w.files!.stat(e.name) }).toEqual({ path, stat: out[`stat ${path}`] });
      if (e.type === 'file')
        expect({ path, read: Buffer.from(await w.files!.readFile(e.name)).toString('base64') }).toEqual({
          path,
          read: out[`read ${path}`],
        });
    }
  }
  return out;
}

function hashFolder(dir: string): string {
  const h = createHash('sha256');
  const visit = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      h.update(`${rel}/${name}:${st.mode}:${st.size}\n`);
      if (st.isDirectory()) visit(p, `${rel}/${name}`);
      else if (st.isFile()) h.update(readFileSync(p));
      else if (st.isSymbolicLink()) h.update(readlinkSync(p));
    }
  };
  visit(dir, '');
  return h.digest('hex');
}
