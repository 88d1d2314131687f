/**
 * The `claude-code` profile over a gate (in process): a model that calls Claude Code's Read,
 * Write, Edit, MultiEdit, Glob, Grep and LS with Claude Code's arguments gets what those tools
 * give (cat -n lines, "Found 2 files", the tree), paths it can pass back, the bytes on disk it
 * asked for, and the gate's stable codes with its own field names in the messages — every call
 * through the gate (the run log shows each). Over MCP with the SDK client: claude-code-serve.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { CLAUDE_CODE_PROFILE } from '../../src/mcp/profiles/claude-code.js';
import { gateOf } from '../../src/mcp/profiles/tool-profile.js';
import { addWorkspace, setupGate } from '../tools/workspace-fixture.js';

const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const ROOT = '/worktrees/cc';

function setup(tools?: string[]) {
  const s = setupGate();
  const brief = new MemoryLayer({ files: { 'brief.md': 'read me, never change me\n' } });
  const { layer, ns } = addWorkspace(s, 'cc', {
    files: {
      '.gitignore': 'dist/\n',
      'README.md': '# demo\nTODO: docs\n',
      'dist/out.js': 'TODO built\n',
      'src/a.ts': 'import x\nconst TODO = 1;\n// todo: lower\nend\n',
      'src/b.js': 'function f() {\n  return 1 +\n    2;\n}\n',
      'src/deep/c.ts': 'export const c = "TODO";\n',
      'logo.png': PNG_1x1,
      'rows.txt': `${Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join('\n')}\n`,
    },
    mounts: [{ path: '/data/brief', layer: brief, writable: false }],
    ...(tools ? { tools } : {}),
  });
  const memory = layer as MemoryLayer;
  const call = async (name: string, args: Record<string, unknown>) => {
    const r: CallToolResult = await CLAUDE_CODE_PROFILE.call(name, args, gateOf({ gate: s.gate }, 'cc', undefined));
    const text = (r.content as { type: string; text?: string }[])
      .filter((c) => c.type === 'text')
      .map((c) => c.text)
      .join('\n');
    return { r, text, structured: r.structuredContent as Record<string, any> | undefined, isError: r.isError === true };
  };
  const onDisk = (p: string) => memory.volume.readFileSync(`/${p}`, 'utf8') as string;
  return { s, ns, call, onDisk, memory, tools: (conversation?: string) => CLAUDE_CODE_PROFILE.tools(s.gate.tools('cc'), conversation) };
}

describe('tools/list under the claude-code profile', () => {
  it("offers Claude Code's names for the role's tools, keeps the others' gatefs names, and names the workspace in descriptions", () => {
    const { tools } = setup(['read', 'grep', 'list', 'edit', 'write', 'delete', 'move']);
    const listed = tools('cc');
    expect(listed.map((t) => t.name)).toEqual(['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'LS', 'delete', 'move']);
    const read = listed.find((t) => t.name === 'Read')!;
    expect(Object.keys(read.inputSchema.properties ?? {})).toEqual(['file_path', 'offset', 'limit']);
    expect(read.description).toContain('/worktrees/cc/');
    expect(JSON.stringify(read.inputSchema)).not.toContain('<conversation>');
    expect(read.outputSchema).toBeUndefined(); // an image answer has no structuredContent (see claude-code-results.ts)
    const grep = listed.find((t) => t.name === 'Grep')!;
    expect(Object.keys(grep.inputSchema.properties ?? {})).toEqual([
      'pattern',
      'path',
      'glob',
      'output_mode',
      '-B',
      '-A',
      '-C',
      'context',
      '-n',
      '-i',
      'type',
      'head_limit',
      'offset',
      'multiline',
    ]);
    expect(grep.inputSchema.required).toEqual(['pattern']);
    expect(listed.find((t) => t.name === 'Edit')!.annotations).toMatchObject({ readOnlyHint: false });
  });

  it('lists only what the role declares: a reader gets Read, Glob, Grep and LS', () => {
    const { tools } = setup(['read', 'grep', 'list']);
    expect(tools().map((t) => t.name)).toEqual(['Read', 'Glob', 'Grep', 'LS']);
    expect(tools()[0].description).toContain('/worktrees/<conversation>/'); // conversation not known yet
  });
});

describe('Read', () => {
  it('answers cat -n lines for a relative or an absolute file_path, and structuredContent with the same lines', async () => {
    const { call } = setup();
    const rel = await call('Read', { file_path: 'src/a.ts' });
    expect(rel.text).toBe('     1\timport x\n     2\tconst TODO = 1;\n     3\t// todo: lower\n     4\tend');
    expect(rel.structured).toMatchObject({
      type: 'text',
      filePath: `${ROOT}/src/a.ts`,
      content: rel.text,
      startLine: 1,
      numLines: 4,
      totalLines: 4,
      truncated: false,
    });
    expect(rel.structured!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await call('Read', { file_path: `${ROOT}/src/a.ts` })).structured).toEqual(rel.structured);
  });

  it('offset and limit are lines (offset 0 reads from the start) and the answer says where to continue', async () => {
    const { call } = setup();
    const w = await call('Read', { file_path: 'rows.txt', offset: 9, limit: 2 });
    expect(w.text).toBe('     9\trow 9\n    10\trow 10\n(lines 9-10 of 50; more lines follow: continue with offset 11)');
    expect(w.structured).toMatchObject({ startLine: 9, numLines: 2, totalLines: 50, nextOffset: 11, truncated: true });
    expect((await call('Read', { file_path: 'rows.txt', offset: 0, limit: 1 })).text).toMatch(/^ {5}1\trow 1\n/);
  });

  it('an image comes as MCP image content with no structuredContent, so Claude Code passes it to the model', async () => {
    const { call } = setup();
    const { r } = await call('Read', { file_path: 'logo.png' });
    expect(r.structuredContent).toBeUndefined();
    expect(r.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^\/worktrees\/cc\/logo\.png: image image\/png, 1x1, \d+ bytes, sha256 [0-9a-f]{64}$/) },
      { type: 'image', data: PNG_1x1.toString('base64'), mimeType: 'image/png' },
    ]);
  });

  it('refuses a folder, a missing file and a hostile path with the gate codes, naming file_path', async () => {
    const { call } = setup();
    expect((await call('Read', { file_path: 'src' })).structured?.error.code).toBe('IS_DIRECTORY');
    expect((await call('Read', { file_path: 'nope.txt' })).structured?.error).toMatchObject({
      code: 'NOT_FOUND',
      path: `${ROOT}/nope.txt`,
    });
    const escape = await call('Read', { file_path: '../../etc/passwd' });
    expect(escape.isError).toBe(true);
    expect(escape.structured?.error.code).toBe('PATH_ESCAPE');
    const host = await call('Read', { file_path: '/etc/hostname' });
    expect(host.structured?.error.code).toBe('OUTSIDE_MOUNTS');
    expect(host.text).toContain(`this workspace is ${ROOT}: pass a path relative to it, or an absolute path under it`);
    const bad = await call('Read', { path: 'src/a.ts' });
    expect(bad.structured?.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'path: unknown field (not in the schema); did you mean file_path? Read takes: file_path (required), offset, limit.',
      details: { problem: 'unknown_field', field: 'path', suggestion: 'file_path', fields: ['file_path', 'offset', 'limit'] },
    });
    expect((await call('Read', { file_path: 'src/a.ts', pages: '1-2' })).structured?.error.message).toBe(
      'pages: unknown field (not in the schema). Read takes: file_path (required), offset, limit.',
    );
  });
});

describe('Write, Edit and MultiEdit', () => {
  it('Write creates and updates files, saying which, and the bytes are on disk', async () => {
    const { call, onDisk } = setup();
    const created = await call('Write', { file_path: `${ROOT}/new/dir/n.txt`, content: 'one\n' });
    expect(created.text).toBe(`File created successfully at: ${ROOT}/new/dir/n.txt`);
    expect(created.structured).toMatchObject({ type: 'create', filePath: `${ROOT}/new/dir/n.txt`, bytes: 4 });
    const updated = await call('Write', { file_path: 'new/dir/n.txt', content: 'two\n' });
    expect(updated.text).toBe(`The file ${ROOT}/new/dir/n.txt has been updated.`);
    expect(onDisk('new/dir/n.txt')).toBe('two\n');
    expect((await call('Write', { file_path: '/data/brief/brief.md', content: 'x' })).structured?.error.code).toBe('READ_ONLY');
  });

  it("Edit replaces old_string (replace_all for every one) and shows Claude Code's cat -n snippet", async () => {
    const { call, onDisk } = setup();
    const r = await call('Edit', { file_path: 'src/b.js', old_string: 'return 1 +', new_string: 'return 10 +' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(
      /^The file \/worktrees\/cc\/src\/b\.js has been updated \(1 replacement\)\. Here's the result of running `cat -n` on a snippet of the edited file:\n/,
    );
    expect(r.text).toContain('     2\t  return 10 +');
    expect(r.structured).toMatchObject({ filePath: `${ROOT}/src/b.js`, replacements: 1 });
    expect(r.structured!.diff).toContain('-  return 1 +\n+  return 10 +');
    expect(onDisk('src/b.js')).toBe('function f() {\n  return 10 +\n    2;\n}\n');
    await call('Edit', { file_path: 'src/a.ts', old_string: 'o', new_string: '0', replace_all: true });
    expect(onDisk('src/a.ts')).toBe('imp0rt x\nc0nst TODO = 1;\n// t0d0: l0wer\nend\n');
  });

  it('Edit refusals keep their codes and speak old_string / new_string; nothing changes', async () => {
    const { call, onDisk } = setup();
    const before = onDisk('src/b.js');
    const miss = await call('Edit', { file_path: 'src/b.js', old_string: 'return 2 +', new_string: 'x' });
    expect(miss.structured?.error.code).toBe('NO_MATCH');
    expect(miss.structured?.error.message).toMatch(/^old_string/);
    const same = await call('Edit', { file_path: 'src/b.js', old_string: 'f()', new_string: 'f()' });
    expect(same.structured?.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'new_string: is identical to old_string; nothing would change',
    });
    const cased = await call('Edit', { file_path: 'src/a.ts', old_string: 'const todo', new_string: 'const DONE' });
    expect(cased.structured?.error.code).toBe('NO_MATCH'); // the file says 'const TODO': case matters
    expect((await call('Edit', { file_path: 'src/a.ts', old_string: 'o', new_string: '0' })).structured?.error).toMatchObject({
      code: 'AMBIGUOUS_MATCH',
      message: expect.stringContaining('set replace_all'),
    });
    expect(onDisk('src/b.js')).toBe(before);
  });

  it('Edit with an empty old_string creates the file, and refuses one that exists', async () => {
    const { call, onDisk } = setup();
    const r = await call('Edit', { file_path: 'src/new.ts', old_string: '', new_string: 'export {};\n' });
    expect(r.text).toMatch(
      /^File created successfully at: \/worktrees\/cc\/src\/new\.ts\. Here's the result of running `cat -n` on the new file:\n {5}1\texport \{\};/,
    );
    expect(r.structured).toMatchObject({ created: true, replacements: 0, diff: '' });
    expect(onDisk('src/new.ts')).toBe('export {};\n');
    const again = await call('Edit', { file_path: 'src/new.ts', old_string: '', new_string: 'other' });
    expect(again.structured?.error.code).toBe('ALREADY_EXISTS');
    expect(onDisk('src/new.ts')).toBe('export {};\n');
  });

  it('MultiEdit applies its edits in order, all or nothing, naming the edit that failed', async () => {
    const { call, onDisk } = setup();
    const ok = await call('MultiEdit', {
      file_path: 'src/b.js',
      edits: [
        { old_string: 'function f', new_string: 'function g' },
        { old_string: '2;', new_string: '3;', replace_all: false },
      ],
    });
    expect(ok.structured).toMatchObject({ replacements: 2 });
    expect(onDisk('src/b.js')).toBe('function g() {\n  return 1 +\n    3;\n}\n');
    const failed = await call('MultiEdit', {
      file_path: 'src/b.js',
      edits: [
        { old_string: 'function g', new_string: 'function h' },
        { old_string: 'missing', new_string: 'x' },
      ],
    });
    expect(failed.structured?.error).toMatchObject({ code: 'NO_MATCH', message: expect.stringMatching(/^edits\[1\]\.old_string/) });
    expect(onDisk('src/b.js')).toBe('function g() {\n  return 1 +\n    3;\n}\n');
  });

  it('MultiEdit answers TOO_LARGE, writing nothing, when an edit would grow the file past 10 MiB (creating or editing)', async () => {
    const { call, onDisk } = setup();
    const before = onDisk('src/b.js');
    const grown = await call('MultiEdit', {
      file_path: 'src/b.js',
      edits: [
        { old_string: ' ', new_string: 'w'.repeat(30_000), replace_all: true }, // 10 spaces: 300 KB
        { old_string: 'w', new_string: 'v'.repeat(40), replace_all: true }, // 12 MB
      ],
    });
    expect(grown.structured?.error).toMatchObject({ code: 'TOO_LARGE', details: { edit: 1 } });
    expect(onDisk('src/b.js')).toBe(before);
    const created = await call('MultiEdit', {
      file_path: 'huge.txt',
      edits: [
        { old_string: '', new_string: 'a\n'.repeat(10_000) },
        { old_string: 'a', new_string: 'b'.repeat(2000), replace_all: true },
      ],
    });
    expect(created.structured?.error).toMatchObject({ code: 'TOO_LARGE', details: { edit: 1 } });
    expect(() => onDisk('huge.txt')).toThrow();
  });

  it('MultiEdit with an empty first old_string creates the file from the edits, in one create-only write', async () => {
    const { call, onDisk, s } = setup();
    const calls = s.log.length;
    const r = await call('MultiEdit', {
      file_path: 'gen.txt',
      edits: [
        { old_string: '', new_string: 'alpha beta\nalpha\n' },
        { old_string: 'alpha', new_string: 'gamma', replace_all: true },
      ],
    });
    expect(r.structured).toMatchObject({ created: true, replacements: 2, filePath: `${ROOT}/gen.txt` });
    expect(onDisk('gen.txt')).toBe('gamma beta\ngamma\n');
    expect(s.log.slice(calls).map((e) => [e.data.tool, e.data.outcome])).toEqual([['write', 'ok']]);
    const bad = await call('MultiEdit', {
      file_path: 'gen2.txt',
      edits: [
        { old_string: '', new_string: 'a\n' },
        { old_string: 'zzz', new_string: 'y' },
      ],
    });
    expect(bad.structured?.error).toMatchObject({ code: 'NO_MATCH', message: expect.stringMatching(/^edits\[1\]\.old_string/) });
    expect((await call('Read', { file_path: 'gen2.txt' })).structured?.error.code).toBe('NOT_FOUND');
  });

  it('a role without write gets TOOL_NOT_ALLOWED from the gate for a creating Edit', async () => {
    const { call } = setup(['read', 'grep', 'list', 'edit']);
    expect((await call('Edit', { file_path: 'x.txt', old_string: '', new_string: 'x' })).structured?.error.code).toBe('TOOL_NOT_ALLOWED');
  });
});

describe('Glob', () => {
  it('returns absolute file paths, newest first, without folders or .gitignored files', async () => {
    const { call, memory } = setup();
    const at = (name: string, iso: string) => memory.volume.utimesSync(`/${name}`, new Date(iso), new Date(iso));
    at('src/a.ts', '2020-01-01T00:00:00.000Z');
    at('src/deep/c.ts', '2025-01-01T00:00:00.000Z');
    const r = await call('Glob', { pattern: '**/*.ts' });
    expect(r.text).toBe(`${ROOT}/src/deep/c.ts\n${ROOT}/src/a.ts\n(1 entry ignored by .gitignore left out)`);
    expect(r.structured).toEqual({ filenames: [`${ROOT}/src/deep/c.ts`, `${ROOT}/src/a.ts`], numFiles: 2, truncated: false, ignored: 1 });
    expect((await call('Glob', { pattern: '*.ts', path: 'src/deep' })).structured?.filenames).toEqual([`${ROOT}/src/deep/c.ts`]);
    expect((await call('Glob', { pattern: `${ROOT}/src/*.js` })).structured?.filenames).toEqual([`${ROOT}/src/b.js`]);
    expect((await call('Glob', { pattern: '**/*.rb' })).text).toBe('No files found\n(1 entry ignored by .gitignore left out)');
  });
});

describe('Grep', () => {
  it('defaults to files_with_matches: "Found N files" and absolute paths', async () => {
    const { call } = setup();
    const r = await call('Grep', { pattern: 'TODO' });
    expect(r.text).toBe(`Found 3 files\n${ROOT}/README.md\n${ROOT}/src/a.ts\n${ROOT}/src/deep/c.ts`);
    expect(r.structured).toMatchObject({ mode: 'files_with_matches', numFiles: 3, truncated: false });
  });

  it('content mode: path:line:text with -n (the default), context lines with -C, -i, type and glob lists', async () => {
    const { call } = setup();
    const r = await call('Grep', { pattern: 'todo', output_mode: 'content', '-i': true, type: 'ts', '-C': 1 });
    expect(r.text).toBe(
      [
        `${ROOT}/src/a.ts-1-import x`,
        `${ROOT}/src/a.ts:2:const TODO = 1;`,
        `${ROOT}/src/a.ts:3:// todo: lower`,
        `${ROOT}/src/a.ts-4-end`,
        '--',
        `${ROOT}/src/deep/c.ts:1:export const c = "TODO";`,
      ].join('\n'),
    );
    expect(r.structured).toMatchObject({ mode: 'content', numFiles: 2, numLines: 6, content: r.text });
    const plain = await call('Grep', { pattern: 'return', output_mode: 'content', '-n': false, glob: '*.md,*.js' });
    expect(plain.text).toBe(`${ROOT}/src/b.js:  return 1 +`);
  });

  it('count mode: path:count and the total; head_limit and offset page; multiline lets . cross lines', async () => {
    const { call } = setup();
    const counted = await call('Grep', { pattern: 'o', output_mode: 'count', path: 'src' });
    expect(counted.text).toBe(`${ROOT}/src/a.ts:3\n${ROOT}/src/b.js:1\n${ROOT}/src/deep/c.ts:1\n\nFound 5 matching lines across 3 files.`);
    const page = await call('Grep', { pattern: 'TODO', head_limit: 1, offset: 1 });
    expect(page.text).toBe(
      `Found 1 file\n${ROOT}/src/a.ts\n\n[Showing results with pagination = limit: 1, offset: 1]\n(more results: continue with offset 2)`,
    );
    expect(page.structured).toMatchObject({ appliedLimit: 1, appliedOffset: 1, nextOffset: 2, truncated: true });
    const multi = await call('Grep', { pattern: 'return.1', multiline: true, output_mode: 'content' });
    expect(multi.structured?.numFiles).toBe(1);
    const across = await call('Grep', { pattern: '\\+.    2', multiline: true });
    expect(across.structured?.filenames).toEqual([`${ROOT}/src/b.js`]);
  });

  it('refuses what it cannot search, with the field named', async () => {
    const { call } = setup();
    expect((await call('Grep', { pattern: 'x', type: 'cobol' })).structured?.error.message).toMatch(
      /^type: unknown file type "cobol"; known types: c, cpp/,
    );
    expect((await call('Grep', { pattern: 'x', type: 'ts', glob: '*.test.*' })).structured?.error.code).toBe('INVALID_INPUT');
    expect((await call('Grep', { pattern: '(' })).structured?.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/^pattern/),
    });
    expect((await call('Grep', { pattern: 'x', output_mode: 'lines' })).structured?.error.message).toMatch(/^output_mode: expected/);
    expect((await call('Grep', { pattern: 'x', path: '../..' })).structured?.error.code).toBe('PATH_ESCAPE');
  });
});

describe('LS', () => {
  it("prints the folder's tree as Claude Code's LS, leaving out ignore globs and what they hold", async () => {
    const { call } = setup();
    const r = await call('LS', { path: 'src' });
    expect(r.text).toBe([`- ${ROOT}/src/`, '  - a.ts', '  - b.js', '  - deep/', '    - c.ts'].join('\n'));
    const ignored = await call('LS', { path: ROOT, ignore: ['deep', '*.png', 'rows.txt'] });
    expect(ignored.structured?.tree).toBe(
      [`- ${ROOT}/`, '  - .gitignore', '  - README.md', '  - src/', '    - a.ts', '    - b.js'].join('\n'),
    );
    expect(ignored.structured).toMatchObject({ path: ROOT, numEntries: 5, truncated: false, ignored: 1 });
    expect((await call('LS', { path: 'src/a.ts' })).structured?.error.code).toBe('NOT_DIRECTORY');
  });
});

describe('what the profile does not offer', () => {
  it("answers TOOL_NOT_ALLOWED for gatefs's own names of mapped tools and for unknown tools, listing its tools", async () => {
    const { call } = setup();
    for (const name of ['read', 'NotebookEdit']) {
      const r = await call(name, { path: 'README.md' });
      expect(r.structured?.error.code).toBe('TOOL_NOT_ALLOWED');
      expect(r.structured?.error.message).toContain(
        'the tools are Read, Write, Edit, MultiEdit, Glob, Grep, LS, Bash, BashOutput, KillShell',
      );
    }
    // Bash is this profile's, but this gate offers no exec: the gate refuses it.
    expect((await call('Bash', { command: 'ls' })).structured?.error.code).toBe('TOOL_NOT_ALLOWED');
  });

  it('every file access was a gate call: the run log holds one tool_call per gated call', async () => {
    const { call, s } = setup();
    await call('Read', { file_path: 'README.md' });
    await call('Grep', { pattern: 'TODO' });
    await call('LS', {});
    expect(s.log.map((e) => [e.type, e.data.tool, e.data.outcome])).toEqual([
      ['tool_call', 'read', 'ok'],
      ['tool_call', 'grep', 'ok'],
      ['tool_call', 'list', 'ok'],
    ]);
  });
});
