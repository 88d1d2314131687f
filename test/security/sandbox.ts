/**
 * The attack-test sandbox: real folders under os.tmpdir(), a Namespace over host layers shaped
 * like a conversation's, a sentinel tree outside it, and the checks every attack test ends with
 * (sentinel and read-only trees hashed before and after; no sentinel bytes and no host path in
 * anything the VFS returned or threw).
 *
 * On disk (all under one temp `base`):
 *   sentinel/            outside everything: secret.txt, a.ts, f.txt, sub/deep.txt (marker bytes)
 *   worktrees/a/         the workspace root, mounted writable at /worktrees/a
 *     .campaign/         also mounted read-only at /worktrees/a/.campaign, and guarded in the root layer
 *     .gatefs/           a state folder inside the root: guarded as PROTECTED_PATH
 *   worktrees/b/, worktrees/ax/   other conversations (outside this namespace)
 *   docs/, docs-extra/   /docs writable, /docs-extra read-only
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { openHostLayer, type HostLayer, type HostLayerOptions, type HostSeams } from '../../vfs/host-layer.js';
import type { HostIdentity } from '../../vfs/host-hooks.js';
import { Namespace } from '../../vfs/namespace.js';
import { readOnly } from '../../vfs/read-only-layer.js';

export interface Sandbox {
  base: string;
  /** Marker bytes present in every sentinel file: must never come back. */
  marker: string;
  sentinel: string;
  work: string;
  campaign: string;
  docs: string;
  docsExtra: string;
  /** The writable root layer (guarded: `.campaign` read-only, `.gatefs` protected). */
  layer: HostLayer;
  ns: Namespace;
  /** Every value and error message seen, for the leak check. */
  transcript: string[];
  /** Runs a VFS call and records its value or error; returns `{ ok, value?, code? }`. */
  attempt<T>(fn: () => Promise<T>): Promise<Outcome<T>>;
  /** A second root layer over the same folder with other options (seams, fallback). */
  openRoot(options?: HostLayerOptions): HostLayer;
  /** A namespace like `ns` whose root mount is `layer`. */
  namespaceOver(layer: HostLayer): Namespace;
  /** Asserts the protected trees are unchanged and nothing leaked; then removes everything. */
  finish(): void;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

/** Paths, relative to `base`, of every tree an attack must leave byte-identical. */
export const PROTECTED_TREES = ['sentinel', 'worktrees/b', 'worktrees/ax', 'worktrees/a/.campaign', 'worktrees/a/.gatefs', 'docs-extra'];

export interface SandboxOptions extends HostLayerOptions {
  /** Plants extra things (links, FIFOs, hard links) before the protected trees are hashed. */
  plant?(paths: { base: string; sentinel: string; work: string; docsExtra: string }): void;
}

export function makeSandbox(options: SandboxOptions = {}): Sandbox {
  const { plant, ...extra } = options;
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-attack-')));
  const marker = `SENTINEL-${randomBytes(8).toString('hex')}`;
  const put = (rel: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
    fs.writeFileSync(path.join(base, rel), content);
  };
  for (const f of ['sentinel/secret.txt', 'sentinel/a.ts', 'sentinel/f.txt', 'sentinel/sub/deep.txt', 'worktrees/b/f', 'worktrees/ax/f']) {
    put(f, `${marker} ${f}\n`);
  }
  put('worktrees/a/src/a.ts', 'export const a = 1;\n');
  put('worktrees/a/d/f.txt', 'inside f\n');
  put('worktrees/a/README.md', 'readme\n');
  put('worktrees/a/.campaign/plan.md', 'the plan\n');
  put('worktrees/a/.gatefs/gatefs.db', 'state\n');
  put('docs/guide.md', 'guide\n');
  put('docs-extra/x.md', 'extra\n');
  const work = path.join(base, 'worktrees/a');
  const campaign = path.join(work, '.campaign');
  const readOnlyId = identity(campaign);
  const stateId = identity(path.join(work, '.gatefs'));
  const guard = (id: HostIdentity) =>
    same(id, readOnlyId) ? ('READ_ONLY' as const) : same(id, stateId) ? ('PROTECTED_PATH' as const) : undefined;
  const layers: HostLayer[] = [];
  const open = (dir: string, options: HostLayerOptions = {}) => {
    const layer = openHostLayer(dir, options);
    layers.push(layer);
    return layer;
  };
  const openRoot = (options: HostLayerOptions = {}) => open(work, { guard, ...extra, ...options });
  const docs = path.join(base, 'docs');
  const docsExtra = path.join(base, 'docs-extra');
  const campaignLayer = readOnly(open(campaign, extra));
  const docsLayer = open(docs, extra);
  const docsExtraLayer = readOnly(open(docsExtra, extra));
  const namespaceOver = (root: HostLayer) =>
    new Namespace({
      root: '/worktrees/a',
      mounts: [
        { path: '/worktrees/a', layer: root, writable: true },
        { path: '/worktrees/a/.campaign', layer: campaignLayer, writable: false },
        { path: '/docs', layer: docsLayer, writable: true },
        { path: '/docs-extra', layer: docsExtraLayer, writable: false },
      ],
    });
  const layer = openRoot();
  const ns = namespaceOver(layer);
  plant?.({ base, sentinel: path.join(base, 'sentinel'), work, docsExtra });
  const before = hashTrees(base);
  const transcript: string[] = [];

  async function attempt<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
    try {
      const value = await fn();
      transcript.push(show(value));
      return { ok: true, value };
    } catch (e) {
      const err = e as { code?: string; message?: string; path?: string; cause?: unknown };
      transcript.push(`${err.message ?? String(e)} ${err.path ?? ''} ${JSON.stringify(e)}`);
      if (typeof err.code !== 'string' || !(e instanceof Error) || e.name !== 'VfsError') throw e;
      return { ok: false, code: err.code, message: err.message ?? '' };
    }
  }

  return {
    base,
    marker,
    sentinel: path.join(base, 'sentinel'),
    work,
    campaign,
    docs,
    docsExtra,
    layer,
    ns,
    transcript,
    attempt,
    openRoot,
    namespaceOver,
    finish() {
      try {
        expect(hashTrees(base)).toEqual(before);
        const all = transcript.join('\n');
        expect(all).not.toContain(marker);
        expect(all).not.toContain(base);
        expect(all).not.toContain(`${os.tmpdir()}/`);
        expect(all).not.toContain('/proc/self');
        expect(all).not.toContain('.gatefs-');
      } finally {
        for (const l of layers) l.close();
        fs.rmSync(base, { recursive: true, force: true });
      }
    },
  };
}

/** A test body run in a fresh sandbox that is always checked and removed afterwards. */
export function sandboxed(body: (sb: Sandbox) => Promise<void>, options?: SandboxOptions): () => Promise<void> {
  return async () => {
    const sb = makeSandbox(options);
    let failed = true;
    try {
      await body(sb);
      failed = false;
    } finally {
      if (failed) {
        try {
          sb.finish();
        } catch {
          /* the body's own failure is the one to report */
        }
      } else sb.finish();
    }
  };
}

/** Seams that run `action` once, at the first event matching `step`, `op` and `path`. */
export function seamOnce(step: keyof HostSeams, op: string, at: string, action: () => void): HostSeams & { fired(): boolean } {
  let fired = false;
  const fn = (e: { op: string; path: string }) => {
    if (!fired && e.op === op && e.path === at) {
      fired = true;
      action();
    }
  };
  return { [step]: fn, fired: () => fired } as HostSeams & { fired(): boolean };
}

/** Replaces the folder or file `target` by a symlink to `to` (the original moves to `<target>.real`), or plants one. */
export function swapForLink(target: string, to: string): void {
  if (fs.existsSync(target)) fs.renameSync(target, `${target}.real`);
  fs.symlinkSync(to, target);
}

/** sha256 of each protected tree: names, types, modes, link targets and bytes, sorted. */
export function hashTrees(base: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of PROTECTED_TREES) out[rel] = hashTree(path.join(base, rel));
  return out;
}

export function hashTree(dir: string): string {
  const h = createHash('sha256');
  const visit = (p: string, rel: string) => {
    const st = fs.lstatSync(p);
    h.update(`${rel}\0${st.mode}\0`);
    if (st.isSymbolicLink()) h.update(`link:${fs.readlinkSync(p)}`);
    else if (st.isFile()) h.update(fs.readFileSync(p));
    else if (st.isDirectory()) for (const name of fs.readdirSync(p).sort()) visit(path.join(p, name), `${rel}/${name}`);
    h.update('\0');
  };
  if (fs.existsSync(dir)) visit(dir, '');
  else h.update('(missing)');
  return h.digest('hex');
}

function show(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('latin1');
  return JSON.stringify(value) ?? String(value);
}

function identity(p: string): HostIdentity {
  const st = fs.statSync(p);
  return { dev: st.dev, ino: st.ino };
}

function same(a: HostIdentity, b: HostIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
