import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import type { WriteOptions } from '../../vfs/layer.js';
import { addWorkspace, errorOf, setupGate, text, valueOf } from './workspace-fixture.js';

const sha = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

/** A memory layer that counts the writes that reach it. */
class CountingLayer extends MemoryLayer {
  writes = 0;
  override async writeFile(path: string, data: Uint8Array, options?: WriteOptions) {
    this.writes++;
    return super.writeFile(path, data, options);
  }
}

function setup(files: Record<string, string | Uint8Array>) {
  const s = setupGate();
  const layer = new CountingLayer({ files });
  addWorkspace(s, 'a', {
    layer,
    mounts: [{ path: '/worktrees/a/vendor', layer: readOnly(new MemoryLayer({ files: { 'lib.js': 'x = 1' } })), writable: false }],
  });
  return {
    ...s,
    layer,
    edit: (args: unknown) => s.gate.call('a', 'edit', args),
    content: async (p: string) => text(await layer.readFile(p)),
  };
}

const numbered = (lines: [number, string][]) => lines.map(([n, t]) => `${String(n).padStart(6)}\t${t}`).join('\n');

describe('edit: one replacement', () => {
  it('replaces one exact occurrence and reports the new sha256, a unified diff and numbered lines around the change', async () => {
    const { edit, content } = setup({ 'a.ts': 'const a = 1;\nconst b = 2;\n' });
    const v = valueOf(await edit({ path: 'a.ts', oldString: 'b = 2', newString: 'b = 3' }));
    expect(v).toEqual({
      path: 'a.ts',
      replacements: 1,
      sha256: sha('const a = 1;\nconst b = 3;\n'),
      diff: '--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;',
      snippet: numbered([
        [1, 'const a = 1;'],
        [2, 'const b = 3;'],
      ]),
      truncated: false,
      syntax: { language: 'typescript', checked: true, introduced: [], introducedCount: 0 },
    });
    expect(await content('a.ts')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it("shows only the lines that changed when oldString spans unchanged lines, as git's diff does", async () => {
    const file = `${Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
    const { edit, content } = setup({ 'f.txt': file });
    const oldString = 'line 4\nline 5\nline 6\nline 7\nline 8\n';
    const v = valueOf(await edit({ path: 'f.txt', oldString, newString: 'line 4\nline 5\nline six\nline 7\nline 8\nline 8b\n' }));
    expect(await content('f.txt')).toBe(file.replace(oldString, 'line 4\nline 5\nline six\nline 7\nline 8\nline 8b\n'));
    expect(v.diff).toBe(
      [
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -3,9 +3,10 @@',
        ' line 3',
        ' line 4',
        ' line 5',
        '-line 6',
        '+line six',
        ' line 7',
        ' line 8',
        '+line 8b',
        ' line 9',
        ' line 10',
        ' line 11',
      ].join('\n'),
    );
  });

  it('inserts the replacement literally ($& and $1 are not patterns)', async () => {
    const { edit, content } = setup({ 'a.txt': 'price = X' });
    valueOf(await edit({ path: 'a.txt', oldString: 'X', newString: '$& $1 $$' }));
    expect(await content('a.txt')).toBe('price = $& $1 $$');
  });

  it('NO_MATCH when absent; AMBIGUOUS_MATCH names the lines; replaceAll changes every one', async () => {
    const { edit, content } = setup({ 'a.txt': 'x\nx x\nz\nx\n' });
    expect(errorOf(await edit({ path: 'a.txt', oldString: 'y', newString: 'z' })).code).toBe('NO_MATCH');
    const amb = errorOf(await edit({ path: 'a.txt', oldString: 'x', newString: 'z' }));
    expect(amb).toMatchObject({ code: 'AMBIGUOUS_MATCH', details: { occurrences: 4, lines: [1, 2, 2, 4] } });
    expect(amb.message).toContain('4 times');
    expect(amb.message).toContain('lines 1, 2, 2, 4');
    expect(await content('a.txt')).toBe('x\nx x\nz\nx\n');
    const v = valueOf(await edit({ path: 'a.txt', oldString: 'x', newString: 'yy', replaceAll: true }));
    expect(v.replacements).toBe(4);
    expect(await content('a.txt')).toBe('yy\nyy yy\nz\nyy\n');
    expect(v.diff).toBe('--- a/a.txt\n+++ b/a.txt\n@@ -1,4 +1,4 @@\n-x\n-x x\n+yy\n+yy yy\n z\n-x\n+yy');
  });

  it('STALE_CONTENT when expectedSha256 does not match; passes when it does', async () => {
    const { edit, content } = setup({ 'a.txt': 'v1' });
    expect(errorOf(await edit({ path: 'a.txt', oldString: 'v1', newString: 'v2', expectedSha256: sha('v0') })).code).toBe('STALE_CONTENT');
    expect(await content('a.txt')).toBe('v1');
    valueOf(await edit({ path: 'a.txt', oldString: 'v1', newString: 'v2', expectedSha256: sha('v1') }));
    expect(await content('a.txt')).toBe('v2');
  });

  it('keeps CRLF line endings when the agent sends LF, and a missing final newline stays missing', async () => {
    const { edit, content } = setup({ 'w.txt': 'one\r\ntwo\r\nthree' });
    valueOf(await edit({ path: 'w.txt', oldString: 'one\ntwo', newString: 'uno\ndos\nmas' }));
    expect(await content('w.txt')).toBe('uno\r\ndos\r\nmas\r\nthree');
    const v = valueOf(await edit({ path: 'w.txt', oldString: 'three', newString: 'tres' }));
    expect(await content('w.txt')).toBe('uno\r\ndos\r\nmas\r\ntres');
    expect(v.diff).toBe(
      '--- a/w.txt\n+++ b/w.txt\n@@ -1,4 +1,4 @@\n uno\n dos\n mas\n-three\n\\ No newline at end of file\n+tres\n\\ No newline at end of file',
    );
  });

  it('matches CRLF oldString text in an LF file as LF, and writes LF', async () => {
    const { edit, content } = setup({ 'l.txt': 'a\nb\nc\n' });
    valueOf(await edit({ path: 'l.txt', oldString: 'a\r\nb', newString: 'A\r\nB' }));
    expect(await content('l.txt')).toBe('A\nB\nc\n');
  });

  it('leaves LF files, BOMs and a final newline exactly as they were outside the edit', async () => {
    const { edit, layer } = setup({ 'b.txt': '\uFEFFa\nb\n', 'mixed.txt': 'a\r\nb\nc' });
    valueOf(await edit({ path: 'b.txt', oldString: 'b', newString: 'B\nC' }));
    expect(Buffer.from(await layer.readFile('b.txt')).toString('hex')).toBe(Buffer.from('\uFEFFa\nB\nC\n').toString('hex'));
    valueOf(await edit({ path: 'mixed.txt', oldString: 'b\nc', newString: 'B\nC' }));
    expect(text(await layer.readFile('mixed.txt'))).toBe('a\r\nB\nC');
  });

  it('refuses an empty oldString, a no-op edit, both or neither argument forms, binaries and non-UTF-8 text', async () => {
    const { edit, layer } = setup({
      'a.txt': 'abc',
      bin: new Uint8Array([1, 0, 2]),
      'latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
    });
    const empty = errorOf(await edit({ path: 'a.txt', oldString: '', newString: 'x' }));
    expect(empty).toMatchObject({ code: 'INVALID_INPUT' });
    expect(empty.message).toMatch(/^oldString:/);
    expect(errorOf(await edit({ path: 'a.txt', oldString: 'a', newString: 'a' })).message).toMatch(/^newString:/);
    expect(
      errorOf(
        await edit({
          path: 'a.txt',
          edits: [
            { oldString: 'a', newString: 'b' },
            { oldString: '', newString: 'c' },
          ],
        }),
      ).message,
    ).toMatch(/^edits\[1\]\.oldString:/);
    const both = errorOf(await edit({ path: 'a.txt', oldString: 'a', newString: 'b', edits: [{ oldString: 'b', newString: 'c' }] }));
    expect(both).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/^edits: give either/) });
    expect(errorOf(await edit({ path: 'a.txt' }))).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/^oldString: required/),
    });
    expect(errorOf(await edit({ path: 'a.txt', edits: [] })).code).toBe('INVALID_INPUT');
    expect(errorOf(await edit({ path: 'bin', oldString: 'x', newString: 'y' })).code).toBe('BINARY_FILE');
    expect(errorOf(await edit({ path: 'latin1.txt', oldString: 'caf', newString: 'CAF' })).code).toBe('BINARY_FILE');
    expect(Buffer.from(await layer.readFile('latin1.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(text(await layer.readFile('a.txt'))).toBe('abc');
    expect(layer.writes).toBe(0);
  });

  it('refuses read-only mounts, protected paths, folders and missing files', async () => {
    const { edit } = setup({ '.git/config': '[core]', 'd/x': 'x' });
    expect(errorOf(await edit({ path: 'vendor/lib.js', oldString: '1', newString: '2' })).code).toBe('READ_ONLY');
    expect(errorOf(await edit({ path: 'vendor/lib.js', oldString: '1', newString: '2', dryRun: true })).code).toBe('READ_ONLY');
    expect(errorOf(await edit({ path: '.git/config', oldString: 'core', newString: 'evil' })).code).toBe('PROTECTED_PATH');
    expect(errorOf(await edit({ path: 'd', oldString: 'a', newString: 'b' })).code).toBe('IS_DIRECTORY');
    expect(errorOf(await edit({ path: 'none.ts', oldString: 'a', newString: 'b' })).code).toBe('NOT_FOUND');
  });

  it('TOO_LARGE, nothing written, for a replaceAll whose result would pass 10 MiB (a 100 KB file, a 2,000-character newString)', async () => {
    const original = 'ab\n'.repeat(34_000); // 102 KB, 34,000 occurrences of 'a'
    const { edit, content, layer } = setup({ 'big.txt': original });
    const newString = 'x'.repeat(2000);
    for (const args of [
      { path: 'big.txt', oldString: 'a', newString, replaceAll: true },
      { path: 'big.txt', oldString: 'a', newString, replaceAll: true, dryRun: true },
    ]) {
      const e = errorOf(await edit(args));
      expect(e.code).toBe('TOO_LARGE');
      expect(e.details).toEqual({ bytes: original.length + 34_000 * 1999 });
    }
    // In edits[], the step that would pass the limit is named; earlier steps counted in UTF-8 bytes.
    const listed = errorOf(
      await edit({
        path: 'big.txt',
        edits: [
          { oldString: 'b', newString: '\u00e9'.repeat(100), replaceAll: true }, // 34,000 × 199 bytes more: 6.9 MB
          { oldString: 'a', newString: 'yy'.repeat(60), replaceAll: true }, // 34,000 × 119 more: past 10 MiB
        ],
      }),
    );
    expect(listed).toMatchObject({ code: 'TOO_LARGE', details: { edit: 1 }, message: expect.stringMatching(/^edits\[1\] would make/) });
    expect(await content('big.txt')).toBe(original);
    expect(layer.writes).toBe(0);
    // Just under the limit still lands, exactly.
    const fits = Math.floor((10 * 1024 * 1024 - original.length) / 34_000) + 1;
    expect(valueOf(await edit({ path: 'big.txt', oldString: 'a', newString: 'z'.repeat(fits), replaceAll: true })).replacements).toBe(
      34_000,
    );
    expect(await content('big.txt')).toBe(`${'z'.repeat(fits)}b\n`.repeat(34_000));
  });

  it('100 concurrent edits of distinct lines of one file all land', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} = old`);
    const { edit, content } = setup({ 'many.txt': `${lines.join('\n')}\n` });
    const results = await Promise.all(lines.map((l, i) => edit({ path: 'many.txt', oldString: `${l}\n`, newString: `line ${i} = new\n` })));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await content('many.txt')).toBe(`${lines.map((_, i) => `line ${i} = new`).join('\n')}\n`);
  });
});

describe('edit: several replacements (edits[])', () => {
  const file = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

  it('applies them in order in one write; later steps see the text earlier ones made', async () => {
    const { edit, content, layer } = setup({ 'f.txt': file });
    const v = valueOf(
      await edit({
        path: 'f.txt',
        edits: [
          { oldString: 'line 3\n', newString: 'three\nTHREE\n' },
          { oldString: 'THREE', newString: 'drei' },
          { oldString: 'line 22\n', newString: '' },
          { oldString: 'line 2', newString: 'L2', replaceAll: true },
        ],
      }),
    );
    const expected = file.replace('line 3\n', 'three\ndrei\n').replace('line 22\n', '').replaceAll('line 2', 'L2');
    expect(await content('f.txt')).toBe(expected);
    expect(layer.writes).toBe(1);
    expect(v.replacements).toBe(1 + 1 + 1 + 10);
    expect(v.sha256).toBe(sha(expected));
    // Two hunks: lines 1-6 and 17-30, the deletion of line 22 inside the second.
    expect(v.diff.split('\n').filter((l: string) => l.startsWith('@@'))).toEqual(['@@ -1,6 +1,7 @@', '@@ -17,14 +18,13 @@']);
    expect(v.diff).toContain('\n-line 2\n-line 3\n+L2\n+three\n+drei\n line 4\n');
    expect(v.diff).toContain('\n-line 21\n-line 22\n-line 23\n');
    expect(v.diff).toContain('\n+L21\n+L23\n');
    expect(v.snippet.split('\n')[0]).toBe(`${'1'.padStart(6)}\tline 1`);
    expect(v.snippet).toContain(`\n${'4'.padStart(6)}\tdrei\n`);
    expect(v.snippet).toContain('\n...\n');
  });

  it('is all or nothing: a failing step leaves the file as it was and names the step', async () => {
    const { edit, content, layer } = setup({ 'f.txt': file });
    const err = errorOf(
      await edit({
        path: 'f.txt',
        edits: [
          { oldString: 'line 1\n', newString: 'one\n' },
          { oldString: 'line 99', newString: 'x' },
        ],
      }),
    );
    expect(err).toMatchObject({ code: 'NO_MATCH', details: { edit: 1 } });
    expect(err.message).toMatch(/^edits\[1\]\.oldString does not occur in 'f\.txt' \(after edits\[0\.\.0\] were applied\)/);
    const amb = errorOf(await edit({ path: 'f.txt', edits: [{ oldString: 'line 1', newString: 'x' }] }));
    expect(amb).toMatchObject({ code: 'AMBIGUOUS_MATCH', details: { edit: 0 } });
    expect(await content('f.txt')).toBe(file);
    expect(layer.writes).toBe(0);
  });

  it('dryRun computes the same result and writes nothing', async () => {
    const { edit, content, layer } = setup({ 'f.txt': file });
    const args = { path: 'f.txt', edits: [{ oldString: 'line 5\n', newString: 'five\n' }] };
    const dry = valueOf(await edit({ ...args, dryRun: true }));
    expect(dry.dryRun).toBe(true);
    expect(await content('f.txt')).toBe(file);
    expect(layer.writes).toBe(0);
    const real = valueOf(await edit(args));
    expect(real.dryRun).toBeUndefined();
    expect({ ...dry, dryRun: undefined }).toEqual({ ...real, dryRun: undefined });
    expect(sha(await content('f.txt'))).toBe(dry.sha256);
  });

  it('cuts a diff and a snippet past 16 Ki characters with a last line saying so; the changes shown are exact', async () => {
    const big = `${Array.from({ length: 3000 }, (_, i) => `row ${i}\n${'-'.repeat(9)}`).join('\n')}\n`;
    const { edit, content } = setup({ 'big.txt': big });
    const v = valueOf(await edit({ path: 'big.txt', oldString: 'row', newString: 'ROW', replaceAll: true }));
    expect(v.replacements).toBe(3000);
    expect(await content('big.txt')).toBe(big.replaceAll('row', 'ROW'));
    expect(v.truncated).toBe(true);
    for (const part of [v.diff, v.snippet]) {
      expect(part.length).toBeLessThanOrEqual(16 * 1024 + 200);
      expect(part).toMatch(/\n\.\.\. \(cut at 16384 characters: \d+ changes not shown in full; read the file to see them\)$/);
    }
    expect(v.diff).toContain('\n-row 0\n+ROW 0\n ---------\n-row 1\n+ROW 1\n ---------\n');
    expect(v.snippet).toContain(`${'1'.padStart(6)}\tROW 0\n${'2'.padStart(6)}\t---------\n`);
  });
});

describe('edit: NO_MATCH names the closest region', () => {
  const source = 'function f() {\n\tconst a = 1;  \n\treturn a;\n}\n';

  it('tabs against spaces and trailing blanks: the region, its exact text and each difference', async () => {
    const { edit, content } = setup({ 'f.ts': source });
    const err = errorOf(await edit({ path: 'f.ts', oldString: '    const a = 1;\n    return a;', newString: '    return 1;' }));
    expect(err.code).toBe('NO_MATCH');
    expect(err.message).toContain('lines 2-3 match it except for whitespace');
    expect(err.message).toContain('line 2 is indented with 1 tab in the file, 4 spaces in oldString');
    expect(err.message).toContain('line 2 ends with 2 spaces of trailing whitespace in the file, none in oldString');
    expect(err.details).toEqual({
      candidate: {
        line: 2,
        endLine: 3,
        text: '\tconst a = 1;  \n\treturn a;\n',
        whitespaceOnly: true,
        matchingLines: 2,
        oldStringLines: 2,
        differences: [
          { kind: 'indentation', line: 2, file: '1 tab', oldString: '4 spaces' },
          { kind: 'trailing-whitespace', line: 2, file: '2 spaces', oldString: 'none' },
          { kind: 'indentation', line: 3, file: '1 tab', oldString: '4 spaces' },
        ],
      },
    });
    expect(await content('f.ts')).toBe(source);
    // The candidate's text is what the next call needs.
    const retry = await edit({ path: 'f.ts', oldString: '\tconst a = 1;  \n\treturn a;', newString: '\treturn 1;' });
    expect(valueOf(retry).replacements).toBe(1);
  });

  it('CRLF against LF inside a file that mixes both', async () => {
    const { edit } = setup({ 'm.txt': 'a\r\nb\r\nc\nd\n' });
    const err = errorOf(await edit({ path: 'm.txt', oldString: 'a\nb', newString: 'x' }));
    expect(err.details?.candidate).toMatchObject({
      line: 1,
      whitespaceOnly: true,
      differences: [{ kind: 'line-endings', line: 1, file: 'CRLF', oldString: 'LF' }],
    });
    expect(err.message).toContain('line 1 ends with CRLF in the file, LF in oldString');
  });

  it('different text: the region most lines point to, and the first line that differs', async () => {
    const { edit } = setup({ 'f.ts': source });
    const err = errorOf(await edit({ path: 'f.ts', oldString: 'function f() {\n\tconst b = 1;\n\treturn a;', newString: 'x' }));
    expect(err.details?.candidate).toMatchObject({
      line: 1,
      endLine: 3,
      whitespaceOnly: false,
      matchingLines: 2,
      oldStringLines: 3,
      differences: [{ kind: 'text', line: 2, file: '\tconst a = 1;  ', oldString: '\tconst b = 1;' }],
    });
    expect(err.message).toContain('the closest region is lines 1-3 (2 of 3 lines match ignoring whitespace)');
  });

  it('one line: the line sharing most of its words; nothing similar: candidate null', async () => {
    const { edit } = setup({ 'f.ts': source });
    const near = errorOf(await edit({ path: 'f.ts', oldString: 'return b;', newString: 'x' }));
    expect(near.details?.candidate).toMatchObject({ line: 3, text: '\treturn a;\n' });
    const none = errorOf(await edit({ path: 'f.ts', oldString: 'zebra quagga', newString: 'x' }));
    expect(none.details).toEqual({ candidate: null });
    expect(none.message).toContain('no region resembles it');
  });

  it('in a file of 100,000 lines and one line of 1.5 million characters: the same region, found in slices, and the file unchanged', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `\tconst v${i} = f(a${i % 97}, b);`);
    lines[60_000] = `${'x '.repeat(750_000)}end`;
    const big = `${lines.join('\n')}\n`;
    const { edit, content, layer } = setup({ 'big.ts': big });
    const err = errorOf(
      await edit({ path: 'big.ts', oldString: '    const v99998 = f(a88, b);\n    const v99999 = f(a89, b);', newString: 'x' }),
    );
    expect(err.message).toContain('lines 99999-100000 match it except for whitespace');
    expect(err.details?.candidate).toMatchObject({ line: 99_999, endLine: 100_000, whitespaceOnly: true, matchingLines: 2 });
    // A later step of edits[] is searched for in the text the earlier ones left.
    const later = errorOf(
      await edit({
        path: 'big.ts',
        edits: [
          { oldString: 'const v5 =', newString: 'let v5 =' },
          { oldString: 'x  x end', newString: 'y' },
        ],
      }),
    );
    expect(later.message).toContain('edits[1].oldString does not occur');
    expect(later.details).toMatchObject({ edit: 1, candidate: { line: 60_001, endLine: 60_001, whitespaceOnly: true } });
    expect(await content('big.ts')).toBe(big);
    expect(layer.writes).toBe(0);
  });
});

describe('edit: syntax errors the change introduced', () => {
  it('reports a new error with its line and column, and never refuses the edit', async () => {
    const { edit, content } = setup({ 'a.ts': 'export function f(a: number) {\n  return a + 1;\n}\n' });
    const v = valueOf(await edit({ path: 'a.ts', oldString: 'a + 1;', newString: 'a +;' }));
    expect(await content('a.ts')).toContain('return a +;');
    expect(v.syntax).toEqual({
      language: 'typescript',
      checked: true,
      introduced: [{ line: 2, column: 13, message: 'missing "identifier"' }],
      introducedCount: 1,
    });
  });

  it('does not count errors the file already had, even when lines move', async () => {
    const broken = 'def f(:\n    pass\n\ndef g():\n    return 1\n';
    const { edit } = setup({ 'm.py': broken });
    const v = valueOf(await edit({ path: 'm.py', oldString: 'def g():', newString: '# comment\n\ndef g():' }));
    expect(v.syntax).toMatchObject({ language: 'python', checked: true, introduced: [], introducedCount: 0 });
    const worse = valueOf(await edit({ path: 'm.py', oldString: '    return 1', newString: '    return (1' }));
    expect(worse.syntax.introducedCount).toBeGreaterThan(0);
    expect(worse.syntax.introduced[0].line).toBeGreaterThanOrEqual(6);
  });

  it('checks JSON (comments allowed, as in tsconfig.json) and says nothing for files it has no grammar for', async () => {
    const { edit } = setup({ 'tsconfig.json': '{\n  // options\n  "strict": true\n}\n', 'notes.md': '# notes\n' });
    const ok = valueOf(await edit({ path: 'tsconfig.json', oldString: '"strict": true', newString: '"strict": true,\n  "noEmit": true' }));
    expect(ok.syntax).toMatchObject({ language: 'json', introduced: [] });
    const bad = valueOf(await edit({ path: 'tsconfig.json', oldString: '"noEmit": true', newString: '"noEmit": true,' }));
    expect(bad.syntax.introducedCount).toBe(1);
    expect(bad.syntax.introduced[0].line).toBe(4);
    expect(valueOf(await edit({ path: 'notes.md', oldString: 'notes', newString: 'Notes' })).syntax).toBeUndefined();
  });

  it('dryRun reports the errors the edit would introduce', async () => {
    const { edit, content } = setup({ 'main.go': 'package main\n\nfunc main() {\n}\n' });
    const v = valueOf(await edit({ path: 'main.go', oldString: 'func main() {', newString: 'func main( {', dryRun: true }));
    expect(v.syntax.introducedCount).toBeGreaterThan(0);
    expect(await content('main.go')).toBe('package main\n\nfunc main() {\n}\n');
  });
});
