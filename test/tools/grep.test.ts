import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import type { Layer } from '../../vfs/layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { GREP_FILE_BUDGET_MS } from '../../tools/grep/line-matcher.js';
import { regexWorkers } from '../../tools/grep/regex-worker-pool.js';
import { addWorkspace, errorOf, setupGate, valueOf } from './workspace-fixture.js';

const FILES: Record<string, string | Uint8Array> = {
  '.gitignore': 'build/\n*.log\n',
  'src/a.ts': 'import x\nconst TODO = 1;\n// todo: lower\nend\n',
  'src/b.ts': 'nothing here\n',
  'src/c.js': 'TODO in js\r\nsecond TODO line\r\n',
  'src/gen/.gitignore': '*.gen.ts\n!keep.gen.ts\n',
  'src/gen/x.gen.ts': 'TODO generated\n',
  'src/gen/keep.gen.ts': 'TODO kept\n',
  'build/out.ts': 'TODO built\n',
  'debug.log': 'TODO log\n',
  '.git/HEAD': 'TODO in git\n',
  'img.bin': Buffer.concat([Buffer.from('TODO'), Buffer.from([0, 1, 2])]),
};

/** The workspace over memfs, links to an outside folder of the same volume included. */
function memoryLayer(): Layer {
  const layer = new MemoryLayer({ root: '/ws', files: FILES });
  layer.volume.mkdirSync('/outside');
  layer.volume.writeFileSync('/outside/secret.ts', 'TODO SENTINEL\n');
  layer.volume.symlinkSync('/outside', '/ws/src/linked');
  layer.volume.symlinkSync('/outside/secret.ts', '/ws/src/leaf.ts');
  return layer;
}

const hostDirs: string[] = [];
const hostLayers: HostLayer[] = [];
afterEach(() => {
  for (const l of hostLayers.splice(0)) l.close();
  for (const d of hostDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** The same workspace in a host folder (the walk's held-folder fast path), with a FIFO too. */
function hostLayer(): Layer {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-grep-'));
  hostDirs.push(base);
  const ws = path.join(base, 'ws');
  for (const [rel, content] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), content);
  }
  fs.mkdirSync(path.join(base, 'outside'));
  fs.writeFileSync(path.join(base, 'outside/secret.ts'), 'TODO SENTINEL\n');
  fs.symlinkSync(path.join(base, 'outside'), path.join(ws, 'src/linked'));
  fs.symlinkSync(path.join(base, 'outside/secret.ts'), path.join(ws, 'src/leaf.ts'));
  execFileSync('mkfifo', [path.join(ws, 'src/pipe.ts')]);
  const layer = openHostLayer(ws);
  hostLayers.push(layer);
  return layer;
}

const kinds: [string, () => Layer][] = [
  ['memory', memoryLayer],
  ['host', hostLayer],
];

describe.each(kinds)('grep over %s', (_kind, makeLayer) => {
  function setup() {
    const s = setupGate();
    const layer = makeLayer();
    const campaign = new MemoryLayer({ files: { 'plan.md': 'TODO plan\n' } });
    addWorkspace(s, 'a', { layer, mounts: [{ path: '/worktrees/a/.campaign', layer: readOnly(campaign), writable: false }] });
    return { ...s, layer, grep: (args: unknown) => s.gate.call('a', 'grep', args) };
  }

  it('lists matching files in tree order, skipping .git, gitignored, binary files and links', async () => {
    const { grep } = setup();
    const v = valueOf(await grep({ pattern: 'TODO' }));
    // Searched: the four, src/b.ts and the two .gitignore files; ignored: build/, debug.log, x.gen.ts.
    expect(v).toEqual({
      files: ['.campaign/plan.md', 'src/a.ts', 'src/c.js', 'src/gen/keep.gen.ts'],
      truncated: false,
      filesSearched: 7,
      skipped: { ignored: 3, binary: 1 },
      hint: 'matching files only: output: "content" shows the matching lines, output: "count" how many per file',
    });
    expect(JSON.stringify(v)).not.toContain('SENTINEL');
  });

  it('says how many files an empty search read and skipped, and why a glob found nothing', async () => {
    const { grep } = setup();
    expect(valueOf(await grep({ pattern: 'absent-word' }))).toEqual({
      files: [],
      truncated: false,
      filesSearched: 7,
      skipped: { ignored: 3, binary: 1 },
    });
    expect(valueOf(await grep({ pattern: 'TODO', path: 'src/gen', output: 'count' }))).toEqual({
      counts: [{ path: 'src/gen/keep.gen.ts', count: 1 }],
      truncated: false,
      filesSearched: 2,
      skipped: { ignored: 1 },
    });
    const noFile = valueOf(await grep({ pattern: 'TODO', glob: 'lib/**/*.ts' }));
    expect(noFile).toMatchObject({ files: [], filesSearched: 0 });
    expect(noFile.hint).toBe(
      "no file matches the glob 'lib/**/*.ts' (matched against paths below '.'); list with the same pattern shows what it selects",
    );
  });

  it('returns matching lines with numbers and context, and counts per file', async () => {
    const { grep } = setup();
    expect(valueOf(await grep({ pattern: 'TODO', path: 'src', output: 'content', glob: '*.js' })).matches).toEqual([
      { path: 'src/c.js', line: 1, text: 'TODO in js' },
      { path: 'src/c.js', line: 2, text: 'second TODO line' },
    ]);
    expect(valueOf(await grep({ pattern: 'todo', ignoreCase: true, path: 'src/a.ts', output: 'content', context: 1 })).matches).toEqual([
      { path: 'src/a.ts', line: 2, text: 'const TODO = 1;', before: ['import x'], after: ['// todo: lower'] },
      { path: 'src/a.ts', line: 3, text: '// todo: lower', before: ['const TODO = 1;'], after: ['end'] },
    ]);
    expect(valueOf(await grep({ pattern: 'TODO', output: 'count', path: 'src' })).counts).toEqual([
      { path: 'src/a.ts', count: 1 },
      { path: 'src/c.js', count: 2 },
      { path: 'src/gen/keep.gen.ts', count: 1 },
    ]);
  });

  it('searches a regex per line (anchors, no match across lines) or a literal string', async () => {
    const { grep } = setup();
    expect(valueOf(await grep({ pattern: '^const \\w+ = \\d;$', output: 'content' })).matches).toEqual([
      { path: 'src/a.ts', line: 2, text: 'const TODO = 1;' },
    ]);
    expect(valueOf(await grep({ pattern: 'js$', output: 'files' })).files).toEqual(['src/c.js']);
    expect(valueOf(await grep({ pattern: 'x\\s+const' })).files).toEqual([]);
    expect(valueOf(await grep({ pattern: 'TODO = 1;', literal: true })).files).toEqual(['src/a.ts']);
    expect(valueOf(await grep({ pattern: '(', literal: true })).files).toEqual([]);
    expect(valueOf(await grep({ pattern: '^\\p{Lu}{4} in', output: 'content' })).matches).toEqual([
      { path: 'src/c.js', line: 1, text: 'TODO in js' },
    ]);
    expect(valueOf(await grep({ pattern: 'todo:', literal: true, ignoreCase: true, output: 'count' })).counts).toEqual([
      { path: 'src/a.ts', count: 1 },
    ]);
  });

  it('truncates at maxResults in every mode', async () => {
    const { grep } = setup();
    expect(valueOf(await grep({ pattern: 'TODO', maxResults: 2 }))).toMatchObject({
      files: ['.campaign/plan.md', 'src/a.ts'],
      truncated: true,
      nextOffset: 2,
    });
    const all = valueOf(await grep({ pattern: 'TODO', maxResults: 4 }));
    expect(all.truncated).toBe(false);
    expect('nextOffset' in all).toBe(false);
    const content = valueOf(await grep({ pattern: 'TODO', path: 'src/c.js', output: 'content', maxResults: 1 }));
    expect(content.matches).toHaveLength(1);
    expect(content).toMatchObject({ truncated: true, nextOffset: 1 });
    expect(valueOf(await grep({ pattern: 'TODO', output: 'count', maxResults: 1 }))).toMatchObject({ truncated: true, nextOffset: 1 });
  });

  it('pages with offset: each page starts where nextOffset said, in every mode, until no nextOffset is left', async () => {
    const { grep } = setup();
    const pages = async (args: Record<string, unknown>, key: 'files' | 'matches' | 'counts') => {
      const seen: unknown[] = [];
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        const v: { nextOffset?: number; truncated: boolean; [k: string]: any } = valueOf(await grep({ ...args, offset, maxResults: 2 }));
        seen.push(...v[key]);
        expect(v.truncated).toBe(v.nextOffset !== undefined);
        offset = v.nextOffset;
      }
      return seen;
    };
    expect(await pages({ pattern: 'TODO' }, 'files')).toEqual(valueOf(await grep({ pattern: 'TODO' })).files);
    expect(await pages({ pattern: 'TODO', output: 'count' }, 'counts')).toEqual(
      valueOf(await grep({ pattern: 'TODO', output: 'count' })).counts,
    );
    const all = valueOf(await grep({ pattern: 'TODO', output: 'content', context: 1 })).matches;
    expect(all).toHaveLength(5);
    expect(await pages({ pattern: 'TODO', output: 'content', context: 1 }, 'matches')).toEqual(all);
    // A page past the end is empty, not an error.
    expect(valueOf(await grep({ pattern: 'TODO', offset: 99 }))).toMatchObject({ files: [], truncated: false });
  });

  it('shows context before and after separately (before/after win over context on their side)', async () => {
    const { grep } = setup();
    expect(valueOf(await grep({ pattern: 'const', path: 'src/a.ts', output: 'content', before: 1 })).matches).toEqual([
      { path: 'src/a.ts', line: 2, text: 'const TODO = 1;', before: ['import x'] },
    ]);
    expect(valueOf(await grep({ pattern: 'const', path: 'src/a.ts', output: 'content', after: 5 })).matches).toEqual([
      { path: 'src/a.ts', line: 2, text: 'const TODO = 1;', after: ['// todo: lower', 'end'] },
    ]);
    for (const pattern of ['const', 'co[n]st']) {
      expect(valueOf(await grep({ pattern, path: 'src/a.ts', output: 'content', context: 2, after: 0 })).matches).toEqual([
        { path: 'src/a.ts', line: 2, text: 'const TODO = 1;', before: ['import x'] },
      ]);
    }
  });

  it('matches a glob with a folder part against the path below the searched folder, one without against the base name', async () => {
    const { grep } = setup();
    expect(valueOf(await grep({ pattern: 'TODO', glob: 'src/**/*.ts' })).files).toEqual(['src/a.ts', 'src/gen/keep.gen.ts']);
    expect(valueOf(await grep({ pattern: 'TODO', path: 'src', glob: 'gen/*.ts' })).files).toEqual(['src/gen/keep.gen.ts']);
    expect(valueOf(await grep({ pattern: 'TODO', glob: '*.{js,md}' })).files).toEqual(['.campaign/plan.md', 'src/c.js']);
    expect(valueOf(await grep({ pattern: 'TODO', glob: '!**/*.ts' })).files).toEqual(['.campaign/plan.md', 'src/c.js']);
    const refused = errorOf(await grep({ pattern: 'TODO', glob: '{a,b,c,d}'.repeat(6) }));
    expect(refused.code).toBe('INVALID_INPUT');
    expect(refused.message).toMatch(/^glob: braces expand to more than/);
  });

  it('selects with a folder-part glob exactly the files list selects with the same pattern (one matcher)', async () => {
    const { grep, gate } = setup();
    for (const [glob, path] of [
      ['src/**/*.ts', '.'],
      ['**/*.{ts,js}', '.'],
      ['gen/*', 'src'],
      ['src/[!ab]*', '.'],
      ['*/*.md', '.'],
    ]) {
      const listed = valueOf(await gate.call('a', 'list', { path, pattern: glob, maxResults: 1000 }))
        .entries.filter((e: { type: string }) => e.type === 'file')
        .map((e: { path: string }) => e.path);
      const grepped = valueOf(await grep({ pattern: '^', glob, path })).files;
      // grep also leaves out binary files; list shows them.
      expect(grepped, glob).toEqual(listed.filter((p: string) => !p.endsWith('.bin')));
      expect(grepped.length, glob).toBeGreaterThan(0);
    }
  });

  it('searches an explicitly named ignored folder, as ripgrep does', async () => {
    const { grep } = setup();
    expect(valueOf(await grep({ pattern: 'TODO', path: 'build' })).files).toEqual(['build/out.ts']);
  });

  it('refuses invalid regexes and globs naming the field, and bad paths with their codes', async () => {
    const { grep } = setup();
    const bad = errorOf(await grep({ pattern: '(unclosed' }));
    expect(bad.code).toBe('INVALID_INPUT');
    expect(bad.message).toMatch(/^pattern: /);
    expect(errorOf(await grep({ pattern: 'x', path: '../b' })).code).toBe('PATH_ESCAPE');
    expect(errorOf(await grep({ pattern: 'x', path: 'src/linked' })).code).toBe('SYMLINK_ESCAPE');
    expect(errorOf(await grep({ pattern: 'x', path: 'missing' })).code).toBe('NOT_FOUND');
  });
});

const CODE: Record<string, string> = {
  'src/f.ts': 'function f(a) {\n  return a +\n    1;\n}\nconst x = 0;\n',
  'src/g.ts': 'const TODO = 1;\nlet todo = 2;\n// ToDo: x\nuser_42 = 7\n',
};

/** `files` in a fresh host folder (the walk's held-folder path, where searches start inside the walk). */
function hostFolder(files: Record<string, string>): Layer {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-grep-'));
  hostDirs.push(ws);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), content);
  }
  const layer = openHostLayer(ws);
  hostLayers.push(layer);
  return layer;
}

describe.each([
  ['memory', (files: Record<string, string>) => new MemoryLayer({ files }) as Layer],
  ['host', hostFolder],
] as const)('grep patterns that span lines, and ripgrep syntax, over %s', (_kind, makeLayer) => {
  function setup(files: Record<string, string> = CODE) {
    const s = setupGate();
    addWorkspace(s, 'a', { layer: makeLayer(files) });
    return (args: Record<string, unknown>) => s.gate.call('a', 'grep', args);
  }

  it('never answers a pattern that needs several lines with a bare "no matches": it says to pass multiline', async () => {
    const grep = setup();
    const single = valueOf(await grep({ pattern: 'return[\\s\\S]*?}' }));
    expect(single).toEqual({
      files: [],
      truncated: false,
      filesSearched: 2,
      hint: "no match within single lines; '[\\s\\S]' can match a line break, which a line-by-line search never sees: pass multiline: true to let a match span lines",
    });
    expect(valueOf(await grep({ pattern: 'return\\s+0' })).hint).toMatch(/^no match within single lines; '\\s' can match a line break/);
    expect(valueOf(await grep({ pattern: 'absent' })).hint).toBeUndefined();
  });

  it('with multiline, matches across lines: first line, last line and the lines between, with context around them', async () => {
    const grep = setup();
    expect(valueOf(await grep({ pattern: 'return[\\s\\S]*?}', multiline: true, output: 'content', before: 1, after: 1 }))).toEqual({
      matches: [
        { path: 'src/f.ts', line: 2, endLine: 4, text: '  return a +\n    1;\n}', before: ['function f(a) {'], after: ['const x = 0;'] },
      ],
      truncated: false,
      filesSearched: 2,
    });
    expect(valueOf(await grep({ pattern: 'return[\\s\\S]*?}', multiline: true })).files).toEqual(['src/f.ts']);
    // `.` stops at a line break unless (?s) says otherwise; ^ and $ still match at every line.
    expect(valueOf(await grep({ pattern: 'return.*}', multiline: true })).files).toEqual([]);
    expect(valueOf(await grep({ pattern: '(?s)return.*?}', multiline: true, output: 'content' })).matches).toEqual([
      { path: 'src/f.ts', line: 2, endLine: 4, text: '  return a +\n    1;\n}' },
    ]);
    expect(valueOf(await grep({ pattern: '^\\S.*\\{$\\n^\\s+return', multiline: true, output: 'count' })).counts).toEqual([
      { path: 'src/f.ts', count: 1 },
    ]);
    // A match within one line is a hit on that line; matches sharing a line are one hit.
    expect(valueOf(await grep({ pattern: 'o', multiline: true, output: 'count' })).counts).toEqual([
      { path: 'src/f.ts', count: 2 },
      { path: 'src/g.ts', count: 3 },
    ]);
  });

  it('searches a pattern holding a line break as multiline, and says so', async () => {
    const grep = setup();
    const implied = valueOf(await grep({ pattern: 'a \\+\\n\\s+1', output: 'content' }));
    expect(implied.matches).toEqual([{ path: 'src/f.ts', line: 2, endLine: 3, text: '  return a +\n    1;' }]);
    expect(implied.hint).toBe('the pattern holds a line break, so it was searched with multiline: true (a match may span lines)');
    expect(valueOf(await grep({ pattern: '+\n    1;', literal: true, output: 'content' })).matches).toEqual([
      { path: 'src/f.ts', line: 2, endLine: 3, text: '  return a +\n    1;' },
    ]);
  });

  it('cuts a multiline hit after 100 lines of text; endLine still says where it ends', async () => {
    const lines = Array.from({ length: 150 }, (_, i) => `line ${i + 1}`);
    const grep = setup({ 'long.txt': `begin\n${lines.join('\n')}\nend\n` });
    const [m] = valueOf(await grep({ pattern: 'begin[\\s\\S]*end', multiline: true, output: 'content' })).matches;
    expect(m).toMatchObject({ path: 'long.txt', line: 1, endLine: 152 });
    const shown = m.text.split('\n');
    expect(shown).toHaveLength(101);
    expect(shown.slice(0, 2)).toEqual(['begin', 'line 1']);
    expect(shown[100]).toBe('…');
  });

  it('reads ripgrep inline flags, named groups and POSIX classes', async () => {
    const grep = setup();
    const lines = async (args: Record<string, unknown>) =>
      valueOf(await grep({ path: 'src/g.ts', output: 'content', ...args })).matches.map((m: { line: number }) => m.line);
    expect(await lines({ pattern: '(?i)todo' })).toEqual([1, 2, 3]);
    expect(await lines({ pattern: 'todo', ignoreCase: true })).toEqual([1, 2, 3]);
    expect(await lines({ pattern: '(?-i)todo', ignoreCase: true })).toEqual([2]);
    expect(await lines({ pattern: '(?x) user _ \\d+   # a name and its number' })).toEqual([4]);
    expect(await lines({ pattern: '(?P<n>[[:digit:]])(?P=n)?[[:digit:]] =' })).toEqual([4]);
    expect(await lines({ pattern: '(?is)TODO: X' })).toEqual([3]);
  });

  it('refuses what JavaScript cannot express, saying how to write it', async () => {
    const grep = setup();
    for (const [pattern, message] of [
      [
        'a(?i)b',
        "pattern: '(?i)' is ripgrep syntax: an inline flag group applies to the whole pattern only at its very start in JavaScript; move it there, or pass ignoreCase: true",
      ],
      [
        '(?i:todo)',
        "pattern: '(?i:' is ripgrep syntax: JavaScript regexes have no scoped flag groups; put (?i) at the very start to apply it to the whole pattern, or pass ignoreCase: true",
      ],
      ['(?U)a+', "pattern: the inline flag 'U' (swap greedy and lazy) has no JavaScript form; write lazy quantifiers explicitly (*?, +?)"],
      ['(?q)a', "pattern: unknown inline flag 'q' in '(?q)' (known: i, m, s, u, x)"],
      ['[[:letter:]]', /^pattern: unknown POSIX class '\[:letter:\]' \(known: alnum alpha/],
    ] as const) {
      const e = errorOf(await grep({ pattern }));
      expect(e.code).toBe('INVALID_INPUT');
      if (typeof message === 'string') expect(e.message).toBe(message);
      else expect(e.message).toMatch(message);
    }
  });
});

describe('grep', () => {
  it('ends a catastrophic regex: linear fallback answers, a backreference pattern gets INVALID_INPUT within the budget', async () => {
    const s = setupGate();
    addWorkspace(s, 'a', { files: { 'evil.txt': `${'a'.repeat(5000)}!\n`, 'ok.txt': 'aa\n' } });
    const linear = await s.gate.call('a', 'grep', { pattern: '(a+)+$', output: 'content' });
    expect(valueOf(linear).matches).toEqual([{ path: 'ok.txt', line: 1, text: 'aa' }]);
    // How long it takes is measured in bench/ (matching: slowest answer, pathological regexes).
    const guarded = errorOf(await s.gate.call('a', 'grep', { pattern: '^(a+)+\\1$' }));
    expect(guarded.code).toBe('INVALID_INPUT');
    expect(guarded.message).toMatch(new RegExp(`^pattern: matching one file took longer than ${GREP_FILE_BUDGET_MS} ms`));
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: '(a)\\1', output: 'count' })).counts).toEqual([
      { path: 'evil.txt', count: 1 },
      { path: 'ok.txt', count: 1 },
    ]);
  });

  it('cuts long lines at 2,000 characters and keeps context at the file edges, for literals and regexes alike', async () => {
    const s = setupGate();
    const long = `${'x'.repeat(4990)}needle`;
    addWorkspace(s, 'a', { files: { 'f.txt': `first\r\n${long}\r\nlast` } });
    const cut = `${'x'.repeat(2000)}…`;
    for (const pattern of ['needle', 'needl[e]']) {
      expect(valueOf(await s.gate.call('a', 'grep', { pattern, output: 'content', context: 3 })).matches).toEqual([
        { path: 'f.txt', line: 2, text: cut, before: ['first'], after: ['last'] },
      ]);
    }
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'first', output: 'content', context: 1 })).matches).toEqual([
      { path: 'f.txt', line: 1, text: 'first', before: [], after: [cut] },
    ]);
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'LAST', ignoreCase: true, output: 'content', context: 1 })).matches).toEqual([
      { path: 'f.txt', line: 3, text: 'last', before: [cut], after: [] },
    ]);
  });

  it('lets another conversation run while a whole-tree search is in progress', async () => {
    const s = setupGate();
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`d${i % 30}/f${i}.txt`] = `line\n`.repeat(50);
    addWorkspace(s, 'big', { files });
    addWorkspace(s, 'small', { files: { 'x.txt': 'x' } });
    const order: string[] = [];
    const search = s.gate.call('big', 'grep', { pattern: 'nomatch\\d' }).then((r) => {
      order.push('grep');
      return r;
    });
    // The second call arrives as a new macrotask (like a request on a socket): it can only run
    // before the search ends if the search yields to the event loop.
    const read = new Promise<Awaited<ReturnType<typeof s.gate.call>>>((resolve) =>
      setTimeout(
        () =>
          void s.gate.call('small', 'read', { path: 'x.txt' }).then((r) => {
            order.push('read');
            resolve(r);
          }),
        0,
      ),
    );
    const [g, r] = await Promise.all([search, read]);
    expect(valueOf(g).files).toEqual([]);
    expect(valueOf(r).content).toBe('x');
    expect(order).toEqual(['read', 'grep']);
  });

  it('never applies nor waits on a .gitignore that is a FIFO, a link to an outside rule file or a folder (also above the searched folder)', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-grep-'));
    hostDirs.push(base);
    const ws = path.join(base, 'ws');
    fs.mkdirSync(path.join(base, 'outside'));
    fs.writeFileSync(path.join(base, 'outside/rules'), '*\n');
    for (const d of ['fifo/sub', 'link/sub', 'folder/sub', 'plain/sub']) {
      fs.mkdirSync(path.join(ws, d), { recursive: true });
      fs.writeFileSync(path.join(ws, d, 'x.log'), 'needle\n');
    }
    execFileSync('mkfifo', [path.join(ws, 'fifo/.gitignore')]);
    fs.symlinkSync(path.join(base, 'outside/rules'), path.join(ws, 'link/.gitignore'));
    fs.mkdirSync(path.join(ws, 'folder/.gitignore'));
    fs.writeFileSync(path.join(ws, 'plain/.gitignore'), '*.log\n');
    const layer = openHostLayer(ws);
    hostLayers.push(layer);
    const s = setupGate();
    addWorkspace(s, 'a', { layer });
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'needle' })).files).toEqual([
      'fifo/sub/x.log',
      'folder/sub/x.log',
      'link/sub/x.log',
    ]);
    for (const d of ['fifo', 'link', 'folder']) {
      expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'needle', path: `${d}/sub` })).files).toEqual([`${d}/sub/x.log`]);
    }
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'needle', path: 'plain/sub' })).files).toEqual([]);
  });

  it('answers many regex searches started at once (a worker each): starting the workers is not charged to their budget', async () => {
    // 24 workers starting together take seconds on a loaded 2-core machine; each search itself
    // is one small file. A budget that counted the start-up answered INVALID_INPUT
    // ("catastrophic backtracking?") to plain patterns.
    const s = setupGate();
    for (let i = 0; i < 24; i++) addWorkspace(s, `w${i}`, { files: { 'f.txt': `x\nneedle ${i}\n` } });
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => s.gate.call(`w${i}`, 'grep', { pattern: 'ne+dle \\d+', output: 'count' })),
    );
    expect(results.map((r) => (r.ok ? valueOf(r).counts : errorOf(r).message))).toEqual(
      Array.from({ length: 24 }, () => [{ path: 'f.txt', count: 1 }]),
    );
  });

  it('answers INVALID_INPUT on pattern, not INTERNAL, when the regex engine gives up on a file (a lookahead over a 10 MB line)', async () => {
    const s = setupGate();
    addWorkspace(s, 'a', { files: { 'long.txt': `${'ab'.repeat(5_000_000)}\n`, 'short.txt': 'abc\n' } });
    // V8 overflows its stack on the first position (about a second), or the budget ends it first
    // on a slow machine: either way the pattern is refused, never an internal error.
    const failed = errorOf(await s.gate.call('a', 'grep', { pattern: '(?=(a|b)*c)', path: 'long.txt' }));
    expect(failed.code).toBe('INVALID_INPUT');
    expect(failed.message).toMatch(/^pattern: (the regex engine gave up|matching one file took longer)/);
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: '(?=(a|b)*c)', path: 'short.txt' })).files).toEqual(['short.txt']);
  });

  it('runs every regex grep on the shared workers: 60 at once start no more than the pool holds', async () => {
    const s = setupGate();
    addWorkspace(s, 'a', { files: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.txt`, `x\nvalue ${i}\n`])) });
    let most = 0;
    const calls = Array.from({ length: 60 }, () => s.gate.call('a', 'grep', { pattern: 'val[u]e \\d', output: 'count' }));
    const watch = setInterval(() => (most = Math.max(most, regexWorkers.workers)), 1);
    const results = await Promise.all(calls);
    clearInterval(watch);
    expect(results.every((r) => r.ok && valueOf(r).counts.length === 20)).toBe(true);
    expect(most).toBeLessThanOrEqual(regexWorkers.size);
  });

  it("answers another conversation's grep while one conversation runs 6 greps whose regex runs to its budget", {
    timeout: 120_000,
  }, async () => {
    const s = setupGate();
    // A backreference keeps V8 on its backtracking engine: cubic on each 3,000-'a' line.
    addWorkspace(s, 'hostile', { files: { 'lines.txt': `${`${'a'.repeat(3000)}\n`.repeat(20)}b\n` } });
    addWorkspace(s, 'quiet', { files: Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}.txt`, `value x${i}y\n`])) });
    let hostileAnswered = 0;
    const hostile = Array.from({ length: 6 }, () =>
      s.gate.call('hostile', 'grep', { pattern: '(a*)\\1*b', path: 'lines.txt' }).then((r) => {
        hostileAnswered++;
        return r;
      }),
    );
    // Several batches (64 files each): every one of them goes back to the pool.
    const quiet = await s.gate.call('quiet', 'grep', { pattern: 'x\\d+y', output: 'count' });
    const answeredMeanwhile = hostileAnswered;
    expect(valueOf(quiet).counts).toHaveLength(150);
    // Served beside the hostile greps, not behind them: at most one of them had an answer (each
    // holds a worker for its whole budget; one worker always stays for other conversations).
    expect(answeredMeanwhile).toBeLessThanOrEqual(1);
    const answers = await Promise.all(hostile);
    expect(answers.map((r) => errorOf(r).code)).toEqual(Array.from({ length: 6 }, () => 'INVALID_INPUT'));
  });
});
