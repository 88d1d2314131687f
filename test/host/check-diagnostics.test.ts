/**
 * `parseDiagnostics` turns a checking command's output into diagnostics an agent can act on.
 * tsc, Biome and vitest run for real on tiny projects in temporary folders (their output formats
 * change between versions; Biome calls its JSON reporter experimental); ESLint JSON, jest JSON,
 * `prettier --check` and compiler-style lines follow their documented formats, as those tools are
 * not installed here. Paths are checked the way the agent sees them: relative to the workspace
 * root, absolute for a reachable mount, and never a path outside either.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type DiagnosticPlace, MAX_DIAGNOSTICS, parseDiagnostics } from '../../src/host/commands/diagnostics.js';

const modules = resolve(dirname(fileURLToPath(import.meta.url)), '../../node_modules');
const TSC = join(modules, 'typescript/bin/tsc');
const BIOME = join(modules, '@biomejs/biome/bin/biome');
const VITEST = join(modules, 'vitest/vitest.mjs');

const folders: string[] = [];
afterAll(() => folders.splice(0).forEach((f) => rmSync(f, { recursive: true, force: true })));

/** A temporary folder holding `files` (path → content). */
function project(files: Record<string, string>): string {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'gatefs-diagnostics-')));
  folders.push(base);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), content);
  }
  return base;
}

/** Runs a Node tool script in `cwd`, outside this vitest run's environment. */
function run(script: string, args: string[], cwd: string): { stdout: string; stderr: string } {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS' && k !== 'TEST'),
  );
  const result = spawnSync(process.execPath, [script, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { stdout: result.stdout, stderr: result.stderr };
}

/** The workspace at `root`, the command run in `cwd`; reachable: the root and the `mounts`. */
function place(root: string, cwd = root, mounts: string[] = []): DiagnosticPlace {
  return { root, cwd, reachable: (p) => [root, ...mounts].some((m) => p === m || p.startsWith(`${m}/`)) };
}

const text = (stdout: string, stderr = '') => ({ stdout, stderr });

const TS_CONFIG = JSON.stringify({
  compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', types: [] },
  include: ['src'],
});
const TS_ERROR = {
  path: 'src/a.ts',
  line: 1,
  column: 7,
  severity: 'error',
  message: "TS2322: Type 'string' is not assignable to type 'number'.",
};

describe('tsc', () => {
  const files = { 'tsconfig.json': TS_CONFIG, 'src/a.ts': 'const x: number = "s";\nexport const y = x;\n' };

  it('reports a type error at its file, line and column, with the TS code', () => {
    const root = project(files);
    expect(parseDiagnostics(run(TSC, ['--noEmit', '-p', '.'], root), place(root))).toEqual([TS_ERROR]);
  });

  it('reads --pretty output the same once its colour codes are removed, ignoring the code frame and summary', () => {
    const root = project(files);
    const output = run(TSC, ['--noEmit', '-p', '.', '--pretty'], root);
    expect(output.stdout).toContain('\x1b[');
    expect(parseDiagnostics(output, place(root))).toEqual([TS_ERROR]);
  });

  it('shows a path printed by a command run in a sub-folder relative to the workspace root', () => {
    const root = project(files);
    const output = run(TSC, ['--noEmit', '-p', '..'], join(root, 'src'));
    expect(output.stdout).toMatch(/^a\.ts\(1,7\)/);
    expect(parseDiagnostics(output, place(root, join(root, 'src')))).toEqual([TS_ERROR]);
  });

  it('drops an error in a file reached by climbing out of the workspace with ..', () => {
    const base = project({ 'outside/x.ts': 'const x: number = "s";\nexport {};\n' });
    const root = join(base, 'ws');
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'src/a.ts'), files['src/a.ts']);
    writeFileSync(join(root, 'tsconfig.json'), TS_CONFIG.replace('["src"]', '["src", "../outside/x.ts"]'));
    const output = run(TSC, ['--noEmit', '-p', '.'], root);
    expect(output.stdout).toContain('../outside/x.ts(1,7)');
    expect(parseDiagnostics(output, place(root))).toEqual([TS_ERROR]);
  });

  it("drops an error in a file outside the workspace, such as TypeScript's own lib files, and keeps one in a mount", () => {
    const output = text(
      [
        '/usr/lib/node_modules/typescript/lib/lib.dom.d.ts(27,1): error TS6200: Definitions of the following identifiers conflict with those in another file: URL',
        "/mnt/shared/types.d.ts(3,5): error TS2300: Duplicate identifier 'URL'.",
        "src/a.ts(1,7): warning TS6133: 'x' is declared but its value is never read.",
        '../../../../mnt/shared/types.d.ts(4,5): error TS2300: a path climbing above / is not trusted, even into a mount.',
      ].join('\n'),
    );
    expect(parseDiagnostics(output, place('/worktrees/c1', '/worktrees/c1', ['/mnt/shared']))).toEqual([
      { path: '/mnt/shared/types.d.ts', line: 3, column: 5, severity: 'error', message: "TS2300: Duplicate identifier 'URL'." },
      { path: 'src/a.ts', line: 1, column: 7, severity: 'warning', message: "TS6133: 'x' is declared but its value is never read." },
    ]);
  });
});

describe('Biome JSON reporter', () => {
  const files = {
    'biome.json': '{}',
    'src/b.js': 'let unused = 1;\nif (a == b) { debugger; }\n',
  };

  it('reports each lint finding with its rule, severity, line and column', () => {
    const root = project(files);
    const output = run(BIOME, ['lint', '--reporter=json', 'src/b.js'], root);
    const found = parseDiagnostics(output, place(root));
    expect(found).toContainEqual({
      path: 'src/b.js',
      line: 2,
      column: 15,
      severity: 'error',
      message: 'lint/suspicious/noDebugger: This is an unexpected use of the debugger statement.',
    });
    expect(found).toContainEqual({
      path: 'src/b.js',
      line: 1,
      column: 5,
      severity: 'warning',
      message: 'lint/correctness/noUnusedVariables: This variable unused is unused.',
    });
    expect(found).toHaveLength(4);
  });

  it('reports a file Biome would reformat at its line 1, with no column', () => {
    const root = project(files);
    const found = parseDiagnostics(run(BIOME, ['check', '--reporter=json', 'src/b.js'], root), place(root));
    expect(found).toContainEqual({
      path: 'src/b.js',
      line: 1,
      severity: 'error',
      message: 'format: Formatter would have printed the following content:',
    });
  });

  it('reads pretty-printed JSON run from a sub-folder', () => {
    const root = project(files);
    const found = parseDiagnostics(run(BIOME, ['lint', '--reporter=json-pretty', '.'], join(root, 'src')), place(root, join(root, 'src')));
    expect(found.map((d) => d.path)).toEqual(['src/b.js', 'src/b.js', 'src/b.js', 'src/b.js']);
  });

  it("places a Biome 1 diagnostic given as a byte span at the span's line and column, or line 1 without the source", () => {
    const sourceCode = 'const é = 1;\nlet x = 2;\n';
    const offset = Buffer.byteLength('const é = 1;\nlet ');
    const diagnostic = (location: object) => ({
      category: 'lint/style/useConst',
      severity: 'error',
      description: 'This let declares a variable that is only assigned once.',
      message: [{ elements: [], content: 'This let declares a variable that is only assigned once.' }],
      location,
    });
    const output = JSON.stringify({
      summary: { errors: 2 },
      diagnostics: [
        diagnostic({ path: { file: 'src/c.js' }, span: [offset, offset + 1], sourceCode }),
        diagnostic({ path: { file: 'src/d.js' }, span: [4, 5], sourceCode: null }),
      ],
    });
    const message = 'lint/style/useConst: This let declares a variable that is only assigned once.';
    expect(parseDiagnostics(text(output), place('/w'))).toEqual([
      { path: 'src/c.js', line: 2, column: 5, severity: 'error', message },
      { path: 'src/d.js', line: 1, severity: 'error', message },
    ]);
  });
});

describe('test runner JSON', () => {
  it('reports each failed vitest test at the line that failed, and a test file that could not load at its line 1', () => {
    const root = project({
      'test/a.test.ts':
        'describe("adds", () => {\n  it("sums", () => {\n    expect(1 + 1).toBe(3);\n  });\n  it("passes", () => {});\n});\n',
      'test/b.test.ts': 'import "./missing.js";\n',
    });
    const output = run(VITEST, ['run', '--globals', '--reporter=json', '--root', '.'], root);
    expect(parseDiagnostics(output, place(root))).toEqual([
      {
        path: 'test/a.test.ts',
        line: 3,
        column: 19,
        severity: 'error',
        message: 'adds sums: AssertionError: expected 2 to be 3 // Object.is equality',
      },
      {
        path: 'test/b.test.ts',
        line: 1,
        severity: 'error',
        message: "test file failed to run: Cannot find module './missing.js' imported from test/b.test.ts",
      },
    ]);
  });

  it('reports a failed jest test at the location jest gives, and a suite that failed to run by its reason', () => {
    const report = {
      numFailedTests: 2,
      success: false,
      testResults: [
        {
          assertionResults: [
            {
              ancestorTitles: ['sum'],
              fullName: 'sum adds',
              title: 'adds',
              status: 'failed',
              location: { line: 4, column: 3 },
              failureMessages: [
                'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 4\nReceived: 3\n    at Object.toBe (/worktrees/c1/sum.test.js:5:17)',
              ],
            },
            {
              ancestorTitles: ['sum'],
              fullName: 'sum subtracts',
              title: 'subtracts',
              status: 'passed',
              failureMessages: [],
              location: null,
            },
            {
              ancestorTitles: [],
              fullName: 'divides',
              title: 'divides',
              status: 'failed',
              location: null,
              failureMessages: [
                'TypeError: x is not a function\n    at helper (/worktrees/c1/helper.js:2:9)\n    at Object.<anonymous> (/worktrees/c1/sum.test.js:9:5)',
              ],
            },
          ],
          message: '  ● sum › adds\n\n    expect(received).toBe(expected)',
          name: '/worktrees/c1/sum.test.js',
          status: 'failed',
        },
        {
          assertionResults: [],
          message: "  ● Test suite failed to run\n\n    Cannot find module './gone' from 'broken.test.js'",
          name: '/worktrees/c1/broken.test.js',
          status: 'failed',
        },
      ],
    };
    expect(parseDiagnostics(text(JSON.stringify(report)), place('/worktrees/c1'))).toEqual([
      {
        path: 'sum.test.js',
        line: 4,
        column: 3,
        severity: 'error',
        message: 'sum adds: Error: expect(received).toBe(expected) // Object.is equality',
      },
      { path: 'sum.test.js', line: 9, column: 5, severity: 'error', message: 'divides: TypeError: x is not a function' },
      {
        path: 'broken.test.js',
        line: 1,
        severity: 'error',
        message: "test file failed to run: Cannot find module './gone' from 'broken.test.js'",
      },
    ]);
  });
});

describe('ESLint, prettier and compiler-style output', () => {
  it('reports ESLint JSON findings with their rule, as errors or warnings, and a parse error without a rule', () => {
    const report = [
      {
        filePath: '/worktrees/c1/src/full.js',
        messages: [
          {
            ruleId: 'no-unused-vars',
            severity: 2,
            message: "'addOne' is defined but never used.",
            line: 1,
            column: 10,
            nodeType: 'Identifier',
            endLine: 1,
            endColumn: 16,
          },
          { ruleId: 'semi', severity: 1, message: 'Missing semicolon.', line: 3, column: 20, nodeType: 'ReturnStatement' },
        ],
        errorCount: 1,
        warningCount: 1,
      },
      {
        filePath: '/worktrees/c1/src/broken.js',
        messages: [{ ruleId: null, fatal: true, severity: 2, message: 'Parsing error: Unexpected token )', line: 3, column: 5 }],
      },
      { filePath: '/worktrees/c1/src/clean.js', messages: [] },
    ];
    expect(parseDiagnostics(text(JSON.stringify(report)), place('/worktrees/c1'))).toEqual([
      { path: 'src/full.js', line: 1, column: 10, severity: 'error', message: "no-unused-vars: 'addOne' is defined but never used." },
      { path: 'src/full.js', line: 3, column: 20, severity: 'warning', message: 'semi: Missing semicolon.' },
      { path: 'src/broken.js', line: 3, column: 5, severity: 'error', message: 'Parsing error: Unexpected token )' },
    ]);
  });

  it('lists each file prettier --check would reformat as a warning, but not its summary line', () => {
    const stderr = [
      '[warn] src/a.ts',
      '[warn] src/nested/b.css',
      '[warn] Code style issues found in 2 files. Run Prettier with --write to fix.',
      '[error] src/c.js: SyntaxError: Unexpected token (1:16)',
      '[error] > 1 | const z = {a:1',
    ].join('\n');
    const message = 'not formatted (prettier --check)';
    expect(parseDiagnostics(text('Checking formatting...\n', stderr), place('/worktrees/c1'))).toEqual([
      { path: 'src/a.ts', line: 1, severity: 'warning', message },
      { path: 'src/nested/b.css', line: 1, severity: 'warning', message },
      { path: 'src/c.js', line: 1, column: 16, severity: 'error', message: 'SyntaxError: Unexpected token (1:16)' },
    ]);
  });

  it("reads file:line:col lines from gcc, ruff, mypy and ESLint's unix formatter", () => {
    const output = [
      "main.c:3:5: error: 'y' undeclared (first use in this function)",
      'main.c:7:1: warning: control reaches end of non-void function [-Wreturn-type]',
      'app/models.py:1:8: F401 [*] `os` imported but unused',
      'app/views.py:12: error: Incompatible return value type (got "int", expected "str")  [return-value]',
      'app/views.py:14: note: Revealed type is "builtins.str"',
      "/worktrees/c1/src/a.js:1:10: 'addOne' is defined but never used. [Error/no-unused-vars]",
    ].join('\n');
    expect(parseDiagnostics(text(output), place('/worktrees/c1'))).toEqual([
      { path: 'main.c', line: 3, column: 5, severity: 'error', message: "'y' undeclared (first use in this function)" },
      { path: 'main.c', line: 7, column: 1, severity: 'warning', message: 'control reaches end of non-void function [-Wreturn-type]' },
      { path: 'app/models.py', line: 1, column: 8, severity: 'error', message: 'F401 [*] `os` imported but unused' },
      {
        path: 'app/views.py',
        line: 12,
        severity: 'error',
        message: 'Incompatible return value type (got "int", expected "str")  [return-value]',
      },
      { path: 'app/views.py', line: 14, severity: 'info', message: 'Revealed type is "builtins.str"' },
      { path: 'src/a.js', line: 1, column: 10, severity: 'error', message: "no-unused-vars: 'addOne' is defined but never used." },
    ]);
  });

  it('ignores lines whose part before the colon is not a file path with an extension', () => {
    const output = [
      'Error: 12:30:45 build failed',
      'http://localhost:3000: connection refused',
      'v1.2:3: something',
      'Found 1 error in src/a.ts:1',
      '    at run (/worktrees/c1/src/a.ts:3:9)',
      ' ❯ test/a.test.ts:5:19',
    ].join('\n');
    expect(parseDiagnostics(text(output), place('/worktrees/c1'))).toEqual([]);
  });
});

describe('what an agent is shown', () => {
  const at = place('/worktrees/c1', '/worktrees/c1/pkg');

  it('drops a diagnostic whose line is not a positive integer, and leaves out such a column', () => {
    const eslint = [
      {
        filePath: 'a.js',
        messages: [
          { ruleId: 'r', severity: 2, message: 'm', line: 0, column: 1 },
          { ruleId: 'r', severity: 2, message: 'n', line: 2.5 },
          { ruleId: 'r', severity: 2, message: 'o', line: 3, column: 0 },
        ],
      },
    ];
    expect(parseDiagnostics(text(`main.c:0:3: error: zero\n${JSON.stringify(eslint)}`), at)).toEqual([
      { path: 'pkg/a.js', line: 3, severity: 'error', message: 'r: o' },
    ]);
  });

  it('reports an identical diagnostic once, from stdout before stderr', () => {
    const line = "src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.";
    const found = parseDiagnostics(text(`${line}\n${line}\n`, `${line}\nsrc/b.ts(2,1): error TS1005: ';' expected.`), at);
    expect(found.map((d) => d.path)).toEqual(['pkg/src/a.ts', 'pkg/src/b.ts']);
  });

  it('keeps messages to one trimmed line of at most 500 characters, cut with …', () => {
    const eslint = [
      {
        filePath: 'a.js',
        messages: [
          { ruleId: null, severity: 2, message: `  first line  \nsecond line`, line: 1 },
          { ruleId: null, severity: 2, message: 'x'.repeat(2000), line: 2 },
        ],
      },
    ];
    const [first, long] = parseDiagnostics(text(JSON.stringify(eslint)), at);
    expect(first.message).toBe('first line');
    expect(long.message).toHaveLength(500);
    expect(long.message.endsWith('x…')).toBe(true);
  });

  it('shows a workspace path quoted in a message relative to the root and hides an outside one', () => {
    const output = "src/a.ts(1,20): error TS2307: Cannot find module '/worktrees/c1/lib/x' or '/home/alice/.cache/y'.";
    expect(parseDiagnostics(text(output), at)).toEqual([
      { path: 'pkg/src/a.ts', line: 1, column: 20, severity: 'error', message: "TS2307: Cannot find module 'lib/x' or '<outside path>'." },
    ]);
  });

  it('never shows a path outside the workspace, whichever way it is written', () => {
    const paths = [
      '../../../etc/passwd.ts',
      '../../../../x.ts',
      '../../c2/src/a.ts',
      '/worktrees/c1/../c2/a.ts',
      '/../../x.ts',
      '/etc/hosts.ts',
      'file:///usr/lib/a.ts',
    ];
    const output = paths.map((p) => `${p}(1,1): error TS1: nope`).join('\n');
    expect(parseDiagnostics(text(output), at)).toEqual([]);
  });

  it('finds a JSON report printed after other output', () => {
    const eslint = JSON.stringify(
      [{ filePath: 'a.js', messages: [{ ruleId: 'r', severity: 1, message: 'm', line: 1, column: 1 }] }],
      null,
      2,
    );
    expect(parseDiagnostics(text(`> lint\n> eslint -f json .\n\n${eslint}\n`), at)).toEqual([
      { path: 'pkg/a.js', line: 1, column: 1, severity: 'warning', message: 'r: m' },
    ]);
  });

  it('ignores malformed JSON and JSON of unknown shape, returning nothing rather than throwing', () => {
    const inputs = [
      '{"testResults": [',
      '[{"filePath": 1, "messages": []}]',
      '{"diagnostics": [null, 1, "x", {"location": 5}, {"location": {"path": {"file": 3}}}, {"location": {"path": "a.ts", "start": {"line": -1}}, "message": "m"}]}',
      '{"testResults": [null, {"name": 5}, {"name": "/worktrees/c1/t.js", "assertionResults": [null, {"status": "failed", "failureMessages": [1, null]}]}]}',
      'null',
      '[null, 1, "x"]',
      '{"results": 7}',
      `${'['.repeat(200_000)}${']'.repeat(200_000)}`,
      `{"__proto__": {"filePath": "x"}, "constructor": 1}`,
    ];
    for (const input of inputs) expect(parseDiagnostics(text(input, input), at)).toEqual([]);
  });

  it('reads 5 MB of adversarial garbage without hanging, still finding the real diagnostic at its end', { timeout: 20_000 }, () => {
    const chunk = (s: string) => s.repeat(Math.ceil(700_000 / s.length));
    const garbage = [
      chunk('('.concat('1'.repeat(50), ',')),
      chunk('a.ts:1'),
      chunk('x.ts('),
      chunk('[warn] '),
      chunk('\x1b['),
      `{"testResults":[${chunk('{"name":"/a",')}`,
      chunk(':1:1 - error TS'),
      `src/q.ts:1: /${chunk('.')}`,
      Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 95))).join(''),
    ].join('\n');
    const found = parseDiagnostics(text(`${garbage}\nsrc/z.ts(4,2): error TS1005: ';' expected.`), at);
    expect(found).toContainEqual({ path: 'pkg/src/z.ts', line: 4, column: 2, severity: 'error', message: "TS1005: ';' expected." });
  });

  it(`returns at most ${MAX_DIAGNOSTICS} diagnostics, the first ones in output order`, () => {
    const output = Array.from({ length: 500 }, (_, i) => `src/a.ts(${i + 1},1): error TS1: problem ${i + 1}`).join('\n');
    const found = parseDiagnostics(text(output, output), at);
    expect(found).toHaveLength(MAX_DIAGNOSTICS);
    expect(found[0].line).toBe(1);
    expect(found[MAX_DIAGNOSTICS - 1].line).toBe(MAX_DIAGNOSTICS);
  });
});
