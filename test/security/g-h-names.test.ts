/**
 * Attack classes G (names and input types) and H (Unicode and case): bad characters and
 * over-long names are typed refusals that touch nothing; non-string paths never reach the disk;
 * composed and decomposed names, and differently cased names, are different names; mount names
 * match exactly.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { sandboxed } from './sandbox.js';

const bytes = (s: string) => Buffer.from(s);
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('G: names and input types', () => {
  it(
    'refuses NUL, backslash and lone surrogates with BAD_NAME, creating nothing',
    sandboxed(async (sb) => {
      const { ns, layer, attempt } = sb;
      for (const p of ['a\u0000b', 'src/a.ts\u0000.png', '\u0000', 'src\\a.ts', '..\\..\\sentinel', 'x\uD800y', '\uDC00']) {
        expect(await attempt(() => ns.readFile(p))).toMatchObject({ ok: false, code: 'BAD_NAME' });
        expect(await attempt(() => ns.writeFile(p, bytes('x'), { createParents: true }))).toMatchObject({ ok: false, code: 'BAD_NAME' });
        expect(await attempt(() => ns.mkdir(p))).toMatchObject({ ok: false, code: 'BAD_NAME' });
      }
      expect(await attempt(() => layer.writeFile('a\u0000b', bytes('x')))).toMatchObject({ ok: false, code: 'BAD_NAME' });
      expect(fs.readdirSync(sb.work).sort()).toEqual(['.campaign', '.gatefs', 'README.md', 'd', 'src']);
    }),
  );

  it(
    'counts name and path lengths in UTF-8 bytes: 255 passes, 256 is NAME_TOO_LONG',
    sandboxed(async (sb) => {
      const { ns, layer, attempt } = sb;
      const ok255 = `${'é'.repeat(127)}a`;
      expect(Buffer.byteLength(ok255)).toBe(255);
      expect(await attempt(() => ns.writeFile(`src/${ok255}`, bytes('long')))).toMatchObject({ ok: true });
      const back = await attempt(() => ns.readFile(`src/${ok255}`));
      expect(back.ok && text(back.value)).toBe('long');
      for (const name of ['é'.repeat(128), 'a'.repeat(256), `${'€'.repeat(85)}a`]) {
        expect(await attempt(() => ns.writeFile(`src/${name}`, bytes('x')))).toMatchObject({ ok: false, code: 'NAME_TOO_LONG' });
        expect(await attempt(() => layer.writeFile(`src/${name}`, bytes('x')))).toMatchObject({ ok: false, code: 'NAME_TOO_LONG' });
      }
      const longPath = Array.from({ length: 20 }, () => 'd'.repeat(210)).join('/');
      expect(await attempt(() => ns.writeFile(longPath, bytes('x'), { createParents: true }))).toMatchObject({
        ok: false,
        code: 'NAME_TOO_LONG',
      });
      expect(fs.readdirSync(path.join(sb.work, 'src')).sort()).toEqual(['a.ts', ok255]);
    }),
  );

  it(
    'the host layer refuses non-string paths with a typed error before touching the disk',
    sandboxed(async (sb) => {
      const { layer, attempt } = sb;
      for (const bad of [42, ['src', 'a.ts'], { path: 'src/a.ts' }, null, undefined]) {
        const p = bad as unknown as string;
        expect(await attempt(() => layer.readFile(p))).toMatchObject({ ok: false, code: 'BAD_NAME' });
        expect(await attempt(() => layer.writeFile(p, bytes('x')))).toMatchObject({ ok: false, code: 'BAD_NAME' });
        expect(await attempt(() => layer.readdir(p))).toMatchObject({ ok: false, code: 'BAD_NAME' });
      }
    }),
  );
});

describe('H: Unicode and case', () => {
  it(
    'composed and decomposed names are different files; case is significant',
    sandboxed(async (sb) => {
      const { ns, attempt } = sb;
      const composed = 'caf\u00e9.md';
      const decomposed = 'cafe\u0301.md';
      expect(await attempt(() => ns.writeFile(composed, bytes('composed')))).toMatchObject({ ok: true });
      expect(await attempt(() => ns.readFile(decomposed))).toMatchObject({ ok: false, code: 'NOT_FOUND' });
      expect(await attempt(() => ns.writeFile(decomposed, bytes('decomposed')))).toMatchObject({ ok: true, value: { created: true } });
      const a = await attempt(() => ns.readFile(composed));
      expect(a.ok && text(a.value)).toBe('composed');
      expect(await attempt(() => ns.readFile('readme.md'))).toMatchObject({ ok: false, code: 'NOT_FOUND' });
      const names = fs.readdirSync(sb.work);
      expect(names).toContain(composed);
      expect(names).toContain(decomposed);
    }),
  );

  it(
    'mount names match exactly: no case folding, no Unicode look-alikes',
    sandboxed(async (sb) => {
      const { ns, attempt } = sb;
      for (const p of [
        '/Docs/guide.md',
        '/DOCS-EXTRA/x.md',
        '/\uff44ocs/guide.md',
        '/docs\u0301/guide.md',
        '/Worktrees/a/README.md',
        '/worktrees/A/README.md',
      ]) {
        expect(await attempt(() => ns.readFile(p))).toMatchObject({ ok: false, code: 'OUTSIDE_MOUNTS' });
        expect(await attempt(() => ns.writeFile(p, bytes('x')))).toMatchObject({ ok: false, code: 'OUTSIDE_MOUNTS' });
      }
      expect(await attempt(() => ns.writeFile('.Campaign/plan.md', bytes('x'), { createParents: true }))).toMatchObject({ ok: true });
      expect(fs.readFileSync(path.join(sb.campaign, 'plan.md'), 'utf8')).toBe('the plan\n');
    }),
  );
});
