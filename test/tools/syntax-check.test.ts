/**
 * The syntax check behind edit's and write's `syntax` report (tools/syntax-check.ts) where
 * tree-sitter is not installed — its packages are optional dependencies — and over large
 * files: the report says what happened, and never fails the call.
 *
 * The absent case is real: a `Grammars` whose runtime or grammar package name is one npm never
 * installed here, so `import()` and `require.resolve` fail as they do after
 * `npm ci --omit=optional`, through the same loading code as the installed packages.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { introducedSyntaxErrors } from '../../tools/syntax-check.js';
import { Grammars, RUNTIME_PACKAGE, installedGrammars } from '../../tools/syntax-grammars.js';

const require = createRequire(import.meta.url);

describe('where tree-sitter is not installed', () => {
  it('the report says the check is unavailable and names the package, for every language', async () => {
    const absent = new Grammars({ runtimeModule: `${RUNTIME_PACKAGE}-not-installed` });
    for (const [path, text] of [
      ['data.json', '{"a": 1,,}'],
      ['src/app.ts', 'const a = ;\n'],
    ]) {
      expect(await introducedSyntaxErrors(path, undefined, text, absent)).toEqual({
        language: path.endsWith('.json') ? 'json' : 'typescript',
        checked: false,
        reason: `the syntax check is unavailable: tree-sitter is not installed here (${RUNTIME_PACKAGE}, an optional dependency)`,
        introduced: [],
        introducedCount: 0,
      });
    }
    // Files it has no grammar for still get no report at all.
    expect(await introducedSyntaxErrors('notes.md', undefined, '# (', absent)).toBeUndefined();
  });

  it('a grammar whose package is absent is reported as such; the others still check', async () => {
    const noJson = new Grammars({
      resolveWasm: (specifier) =>
        require.resolve(specifier.startsWith('tree-sitter-json/') ? `tree-sitter-json-not-installed/x.wasm` : specifier),
    });
    expect(await introducedSyntaxErrors('data.json', undefined, '{"a": 1,,}', noJson)).toMatchObject({
      language: 'json',
      checked: false,
      reason: 'the json grammar is not installed here (tree-sitter-json, an optional dependency)',
    });
    expect(await introducedSyntaxErrors('src/app.ts', undefined, 'const a = ;\n', noJson)).toMatchObject({
      language: 'typescript',
      checked: true,
      introducedCount: 1,
    });
  });
});

describe('a large file', () => {
  it('an error deep in a JSON array of 5,000 elements (180 KB) is found at its line and column, and only the new one is reported', async () => {
    const items = Array.from({ length: 5_000 }, (_, i) => `  {"id": ${i}, "name": "item-${i}"}`);
    const before = `[\n${items.join(',\n')}\n]\n`;
    const broken = [...items];
    broken[4_000] = `  {"id": 4000,, "name": "item-4000"}`;
    const after = `[\n${broken.join(',\n')}\n]\n`;
    const report = await introducedSyntaxErrors('data.json', before, after, installedGrammars);
    expect(report).toEqual({
      language: 'json',
      checked: true,
      introduced: [{ line: 4_002, column: 14, message: 'unexpected ","' }],
      introducedCount: 1,
    });
    // The same error already there before the change is not introduced by it.
    expect(await introducedSyntaxErrors('data.json', after, `${after}\n`, installedGrammars)).toMatchObject({
      checked: true,
      introducedCount: 0,
    });
  });
});
