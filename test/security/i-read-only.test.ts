/**
 * Attack class I: every kind of write into a read-only mount is `READ_ONLY` and changes nothing
 * (the trees are hashed before and after by the sandbox): write, edit, create, mkdir (directly
 * and through write's parent creation), delete (plain and compare-and-swap), rename into, out of
 * and within (a file and the folder itself, with and without overwrite). And the host
 * layer's guard keeps a read-only tree read-only (and the state folder protected) even when it
 * is reached through a writable root.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import type { HostLayerOptions } from '../../vfs/host-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { sandboxed, type Sandbox } from './sandbox.js';

const bytes = (s: string) => Buffer.from(s);
const modes: [string, HostLayerOptions][] = [
  ['procfs', {}],
  ['lstat-fallback', { forceFallback: true }],
];

interface Writer {
  readFile(p: string): Promise<Uint8Array>;
  writeFile(p: string, d: Uint8Array, o?: { exclusive?: boolean; createParents?: boolean }): Promise<unknown>;
  mkdir(p: string, o?: { parents?: boolean }): Promise<void>;
  remove(p: string, o?: { ifMatch?: Uint8Array; fileOnly?: boolean }): Promise<void>;
  rename(from: string, to: string, o?: { overwrite?: boolean }): Promise<void>;
}

/** Every mutating operation aimed at `ro` (a folder path holding `file`). */
function attacks(ro: string, file: string): [string, (t: Writer) => Promise<unknown>][] {
  return [
    ['write', (t) => t.writeFile(`${ro}/${file}`, bytes('overwritten'))],
    ['edit', async (t) => t.writeFile(`${ro}/${file}`, Buffer.concat([Buffer.from(await t.readFile(`${ro}/${file}`)), bytes('+')]))],
    ['create', (t) => t.writeFile(`${ro}/new.md`, bytes('new'), { exclusive: true })],
    ['create with parents', (t) => t.writeFile(`${ro}/sub/dir/new.md`, bytes('new'), { createParents: true })],
    ['mkdir', (t) => t.mkdir(`${ro}/sub`)],
    ['mkdir with parents', (t) => t.mkdir(`${ro}/sub/dir`, { parents: true })],
    ['delete a file', (t) => t.remove(`${ro}/${file}`)],
    [
      'delete a file, compare-and-swap',
      async (t) => t.remove(`${ro}/${file}`, { ifMatch: await t.readFile(`${ro}/${file}`), fileOnly: true }),
    ],
    ['delete the folder', (t) => t.remove(ro)],
    ['rename within', (t) => t.rename(`${ro}/${file}`, `${ro}/renamed.md`)],
    ['rename out of', (t) => t.rename(`${ro}/${file}`, 'taken-out.md')],
    ['rename into', (t) => t.rename('README.md', `${ro}/put-in.md`)],
    ['rename into, over a file', (t) => t.rename('README.md', `${ro}/${file}`, { overwrite: true })],
    ['rename the folder', (t) => t.rename(ro, 'moved-away')],
  ];
}

async function expectAllRefused(sb: Sandbox, target: Writer, ro: string, file: string, code = 'READ_ONLY') {
  for (const [name, attack] of attacks(ro, file)) {
    const outcome = await sb.attempt(() => attack(target));
    expect({ name, outcome: outcome.ok ? 'ok' : outcome.code }).toEqual({ name, outcome: code });
  }
}

describe.each(modes)('I: writes to read-only mounts (%s)', (_name, options) => {
  it(
    'a read-only mount nested in the workspace refuses every operation',
    sandboxed(async (sb) => {
      await expectAllRefused(sb, sb.ns, '.campaign', 'plan.md');
    }, options),
  );

  it(
    'a read-only absolute mount beside a writable one refuses every operation',
    sandboxed(async (sb) => {
      await expectAllRefused(sb, sb.ns, '/docs-extra', 'x.md');
      expect(await sb.attempt(() => sb.ns.writeFile('/docs/fine.md', bytes('ok')))).toMatchObject({ ok: true });
    }, options),
  );

  it(
    'the guard keeps the read-only tree read-only when reached through the writable root layer',
    sandboxed(async (sb) => {
      const direct: Writer = {
        readFile: (p) => sb.layer.readFile(p),
        writeFile: (p, d, o) => sb.layer.writeFile(p, d, o),
        mkdir: (p) => sb.layer.mkdir(p),
        remove: (p, o) => sb.layer.remove(p, o),
        rename: (from, to, o) => sb.layer.rename(from, to, o),
      };
      const withoutNestedMount = new Namespace({
        root: '/worktrees/a',
        mounts: [{ path: '/worktrees/a', layer: sb.layer, writable: true }],
      });
      await expectAllRefused(sb, withoutNestedMount, '.campaign', 'plan.md');
      for (const [name, attack] of attacks('.campaign', 'plan.md')) {
        // The layer has no parent creation (a namespace option).
        if (name === 'create with parents') continue;
        const outcome = await sb.attempt(() => attack(direct));
        expect({ name, outcome: outcome.ok ? 'ok' : outcome.code }).toEqual({ name, outcome: 'READ_ONLY' });
      }
    }, options),
  );

  it(
    'a folder holding a read-only or protected folder never moves, also when reached through the writable root layer',
    sandboxed(
      async (sb) => {
        const { layer, attempt } = sb;
        // box/ holds the read-only tree and holder/ the state folder (by identity): moving either
        // would carry them off. The guard is shown every folder inside a moved folder.
        expect(await attempt(() => layer.rename('box', 'moved-box'))).toMatchObject({ ok: false, code: 'READ_ONLY' });
        expect(await attempt(() => layer.rename('holder', 'moved-holder'))).toMatchObject({ ok: false, code: 'PROTECTED_PATH' });
        expect(await attempt(() => sb.ns.rename('box', 'moved-box'))).toMatchObject({ ok: false, code: 'READ_ONLY' });
        expect(await attempt(() => layer.rename('free', 'moved-free'))).toMatchObject({ ok: true });
      },
      {
        ...options,
        plant: ({ work }) => {
          // Bind-mount-like second routes: the same folders' identities below other names.
          fs.mkdirSync(path.join(work, 'box/deeper'), { recursive: true });
          fs.renameSync(path.join(work, '.campaign'), path.join(work, 'box/deeper/campaign'));
          fs.mkdirSync(path.join(work, 'holder'));
          fs.renameSync(path.join(work, '.gatefs'), path.join(work, 'holder/state'));
          fs.mkdirSync(path.join(work, 'free/sub'), { recursive: true });
        },
      },
    ),
  );

  it(
    'the guard keeps the state folder protected inside a writable root',
    sandboxed(async (sb) => {
      const { layer, attempt } = sb;
      expect(await attempt(() => layer.writeFile('.gatefs/gatefs.db', bytes('x')))).toMatchObject({ ok: false, code: 'PROTECTED_PATH' });
      expect(await attempt(() => layer.writeFile('.gatefs/new', bytes('x'), { exclusive: true }))).toMatchObject({
        ok: false,
        code: 'PROTECTED_PATH',
      });
      expect(await attempt(() => layer.remove('.gatefs/gatefs.db'))).toMatchObject({ ok: false, code: 'PROTECTED_PATH' });
      expect(await attempt(() => layer.remove('.gatefs'))).toMatchObject({ ok: false, code: 'PROTECTED_PATH' });
      expect(await attempt(() => layer.mkdir('.gatefs/x'))).toMatchObject({ ok: false, code: 'PROTECTED_PATH' });
      expect(await attempt(() => layer.readFile('.gatefs/gatefs.db'))).toMatchObject({ ok: true });
    }, options),
  );
});
