/**
 * Dependencies point inward (issue 10): the import graph of vfs/, tools/ and src/, read with the
 * TypeScript parser (static `import … from`, `import type`, `export … from`, `import()` calls
 * and `import('…')` types), checked against the rules below. The rules are data: change them
 * here, in review, never by an exception in the code that checks them.
 *
 * The same parser finds where a program is named to be run (`PROGRAMS_ONLY_IN`): git only in
 * the neutral runner (issue 19).
 *
 * A unit is `vfs`, `tools`, a folder of tools/ that is a unit of its own (`tools/patterns`, `tools/text`), a
 * folder of src/ (`src/host`, …) or a file directly in src/ (`src/index`, `src/workspace-error`);
 * test/import-graph.ts reads the graph.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf, packageOf, programLiteralsOf, scanFiles, scanImports, unitOf, type Import } from './import-graph.js';

/**
 * Innermost first. A unit imports its own files and units of earlier tiers only, so nothing
 * inner knows what is built on it and folders cannot form a cycle.
 */
const TIERS: readonly (readonly string[])[] = [
  ['vfs'], // layers, the namespace, paths, errors, and the ports a layer needs (git objects)
  ['tools/patterns', 'tools/text'], // the glob and .gitignore engine; the text utilities: both self-contained (SELF_CONTAINED)
  ['tools', 'src/ports', 'src/workspace-error'], // tools over the namespace; effects (clock, ids, exec, locks); the host's error
  ['src/git', 'src/manifest', 'src/gate'], // git implements vfs's object reader; the manifest; the gate runs tools
  ['src/state'], // the state store (records roles' backends from the manifest)
  ['src/disclosure'], // progressive disclosure: manifest policy, state, git, implements the tools' port
  ['src/lander'], // the lander: submissions in the state store, git's landing port, checks; implements submit for the tools' port
  ['src/host'], // assembles everything into a Host
  ['src/mcp'], // serves a Host over MCP
  ['src/index'], // the package entry point
  ['src/cli'], // the binary
];

/** The rules issue 10 names, checked on their own so a failure says which one broke. */
const ONLY_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  vfs: ['vfs'],
  tools: ['vfs', 'tools', 'tools/patterns', 'tools/text'],
};

/**
 * Units that import nothing of gatefs but the files named, and no builtin but those named (and,
 * having no PACKAGES entry, no package). The pattern engine knows no tool, layer or host, as
 * ripgrep's globset and ignore crates know nothing of ripgrep: only the error base every gatefs
 * error extends (`PatternError` is a `CodedError`). The text utilities (bytes to text and lines,
 * numbered lines, text safe for a terminal) are plain functions over strings and bytes.
 */
const SELF_CONTAINED: Readonly<Record<string, { files: readonly string[]; builtins: readonly string[] }>> = {
  'tools/patterns': { files: ['vfs/coded-error.ts'], builtins: [] },
  'tools/text': { files: [], builtins: ['node:crypto'] }, // sha256Hex
};

/** Packages (not node: builtins) each unit may import; each must be a runtime dependency. */
const PACKAGES: Readonly<Record<string, readonly string[]>> = {
  vfs: ['memfs'],
  // tree-sitter parses in-process (WASM, no effects): the syntax report of edit and write.
  tools: ['@sinclair/typebox', '@vscode/tree-sitter-wasm'],
  'src/ports': ['better-sqlite3'],
  'src/git': ['isomorphic-git', 'memfs'],
  'src/manifest': ['@sinclair/typebox', 'yaml'],
  'src/state': ['better-sqlite3'],
  'src/host': ['isomorphic-git', 'memfs', 'p-queue'],
  'src/mcp': ['@modelcontextprotocol/sdk', '@sinclair/typebox'], // typebox: the tool profiles' own schemas (src/mcp/profiles/)
};

/** Builtins that reach past the process: only the host ports' implementations use them (STYLE.md "Effects are ports"). */
const BUILTINS_ONLY_IN: Readonly<Record<string, readonly string[]>> = {
  'node:child_process': ['src/ports'],
};

/** File names that say what a file is, and the one unit such a file lives in. */
const NAMES_ONLY_IN: readonly { suffix: string; unit: string; why: string }[] = [
  { suffix: '-layer.ts', unit: 'vfs', why: 'a layer lives in vfs/ with the suite that checks it' },
];

/**
 * Programs that only the named files may run (a literal naming the program where a program is
 * run: `argv: ['git', …]`, `spawn('git')`, `const GIT = 'git'`; test/import-graph.ts
 * `programLiteralsOf`). Matched against the literal's whole text, paths included (`/usr/bin/git`).
 */
const PROGRAMS_ONLY_IN: readonly { program: RegExp; files: readonly string[]; why: string }[] = [
  {
    program: /^(?:.*\/)?git$/,
    files: ['src/git/neutral-git-runner.ts'],
    why: 'every git command runs through NeutralGitRunner, with what the repository could make git execute neutralised (issue 19)',
  },
];

/** Each literal in `files` that runs a program outside the files `PROGRAMS_ONLY_IN` allows, as messages. */
function programViolationsOf(sources: readonly { file: string; text: string }[]): string[] {
  return sources.flatMap(({ file, text }) =>
    PROGRAMS_ONLY_IN.filter((rule) => !rule.files.includes(file)).flatMap((rule) =>
      programLiteralsOf(file, text, rule.program).map(
        (p) => `${file}:${p.line} runs '${p.text}': only ${rule.files.join(', ')} may (${rule.why})`,
      ),
    ),
  );
}

const ROOT = join(import.meta.dirname, '..');

/** `a`, `a and b`, `a, b and c`. */
function inWords(list: readonly string[]): string {
  return list.length < 2 ? list.join('') : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
}

/** Why an import breaks a rule, naming the file, the import and the rule. */
function say(i: Import, rule: string): string {
  return `${i.file}:${i.line} imports '${i.specifier}'${i.to && i.to !== i.specifier ? ` (${i.to})` : ''}: ${rule}`;
}

/** Every rule broken by `imports`, as messages (see `say`). */
function violationsOf(imports: readonly Import[], dependencies: ReadonlySet<string>): string[] {
  const tierOf = new Map(TIERS.flatMap((units, tier) => units.map((u) => [u, tier] as const)));
  const found: string[] = [];
  const edges = new Map<string, Set<string>>();
  for (const i of imports) {
    const contained = SELF_CONTAINED[i.from];
    if (i.to === null) {
      const name = packageOf(i.specifier);
      const only = BUILTINS_ONLY_IN[i.specifier];
      if (contained && name.startsWith('node:') && !contained.builtins.includes(name))
        found.push(say(i, `${i.from} imports no builtin${contained.builtins.length ? ` but ${inWords(contained.builtins)}` : ''}`));
      else if (only && !only.includes(i.from)) found.push(say(i, `${i.specifier} only in ${only.join(', ')}`));
      else if (!name.startsWith('node:') && !(PACKAGES[i.from] ?? []).includes(name))
        found.push(say(i, `package ${name} is not on ${i.from}'s allow list (PACKAGES)`));
      else if (!name.startsWith('node:') && !dependencies.has(name))
        found.push(say(i, `package ${name} is not a runtime dependency in package.json`));
      continue;
    }
    if (i.target !== undefined && !existsSync(join(ROOT, i.target))) found.push(say(i, `resolves to no file (${i.target})`));
    if (i.to === i.from) continue;
    if (contained && !contained.files.includes(i.target ?? i.specifier))
      found.push(say(i, `${i.from} imports nothing of gatefs${contained.files.length ? ` but ${inWords(contained.files)}` : ''}`));
    if (!edges.has(i.from)) edges.set(i.from, new Set());
    edges.get(i.from)!.add(i.to);
    const only = ONLY_IMPORTS[i.from];
    if (only && !only.includes(i.to)) found.push(say(i, `${i.from} imports only ${inWords(only)}`));
    const [mine, theirs] = [tierOf.get(i.from), tierOf.get(i.to)];
    if (mine === undefined) found.push(say(i, `${i.from} is in no tier of TIERS`));
    else if (theirs === undefined) found.push(say(i, `${i.to} is in no tier of TIERS`));
    else if (theirs >= mine)
      found.push(say(i, `${i.from} (tier ${mine}) imports only units of earlier tiers, and ${i.to} is tier ${theirs}`));
  }
  for (const cycle of cyclesOf(edges)) {
    const example = (a: string, b: string) => imports.find((i) => i.from === a && i.to === b)!;
    const steps = cycle.slice(1).map((b, k) => say(example(cycle[k], b), `step ${k + 1}`));
    found.push(`folder cycle ${cycle.join(' → ')}:\n  ${steps.join('\n  ')}`);
  }
  return found;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const DEPENDENCIES = new Set(Object.keys(pkg.dependencies));

describe('architecture: dependencies point inward', () => {
  const files = scanFiles(ROOT, ['vfs', 'tools', 'src']);
  const imports = scanImports(ROOT, files);

  it('reads every kind of import: static, type-only, re-export, dynamic, import types', () => {
    const seen = (file: string, specifier: string) => imports.some((i) => i.file === file && i.specifier === specifier);
    expect(files.length).toBeGreaterThan(150);
    expect(new Set(imports.map((i) => i.file)).size).toBeGreaterThan(150);
    expect(seen('src/cli/serve.ts', '../mcp/http-server.js')).toBe(true); // await import('…')
    expect(seen('src/index.ts', './host/create-host.js')).toBe(true); // export { … } from
    expect(seen('src/cli/open-host.ts', '../index.js')).toBe(true); // typeof import('…')
    expect(seen('vfs/memory-layer.ts', 'memfs')).toBe(true);
    expect(seen('src/index.ts', 'gatefs')).toBe(false); // a comment is not an import
  });

  it('every unit, rule and package named in the rules exists', () => {
    const units = new Set(files.map((f) => unitOf(f)!));
    expect([...units].filter((u) => !TIERS.flat().includes(u))).toEqual([]);
    expect(TIERS.flat().filter((u) => !units.has(u))).toEqual([]);
    expect(
      Object.values(PACKAGES)
        .flat()
        .filter((p) => !DEPENDENCIES.has(p)),
    ).toEqual([]);
  });

  it('vfs imports only vfs; tools/patterns only the error base; tools/text nothing; tools only vfs, tools/patterns, tools/text and tools; inner tiers never import outer ones; no folder cycles; packages on the allow list', () => {
    expect(violationsOf(imports, DEPENDENCIES)).toEqual([]);
  });

  it('every layer file lives in vfs/', () => {
    const misplaced = files.flatMap((f) =>
      NAMES_ONLY_IN.filter((n) => f.endsWith(n.suffix) && unitOf(f) !== n.unit).map((n) => `${f}: ${n.why}`),
    );
    expect(misplaced).toEqual([]);
  });

  it('git runs only through the neutral runner: no argv, spawn or stored program name elsewhere names it', () => {
    const sources = files.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
    expect(programViolationsOf(sources)).toEqual([]);
    // The runner itself is seen (the rule reads what it should), and allowed.
    const runner = sources.find((s) => s.file === 'src/git/neutral-git-runner.ts')!;
    expect(programLiteralsOf(runner.file, runner.text, PROGRAMS_ONLY_IN[0]!.program).length).toBeGreaterThan(0);
  });

  it('finds git run as an argv, a spawn, a stored name or a path, and not a comparison or a type', () => {
    const text = [
      "exec.run({ argv: ['git', 'status'], cwd });",
      "spawn('/usr/bin/git', ['log']);",
      'const GIT = `git`;',
      "const request = { program: 'git' };",
      "if (dialect === 'git') x();",
      "type Dialect = 'glob' | 'git';",
      "run(['gitk']); run(['sh', 'git']);",
    ].join('\n');
    expect(programViolationsOf([{ file: 'src/host/f.ts', text }])).toEqual(
      [1, 2, 3, 4].map((line) =>
        expect.stringMatching(new RegExp(`^src/host/f\\.ts:${line} runs '(/usr/bin/)?git': only src/git/neutral-git-runner\\.ts may`)),
      ),
    );
  });

  it('names the file, the import and the rule of each violation, and finds a cycle', () => {
    const at = (file: string, specifier: string, to: string | null, target?: string): Import => ({
      file,
      line: 1,
      specifier,
      from: unitOf(file)!,
      to,
      ...(target ? { target } : {}),
    });
    const found = violationsOf(
      [
        at('vfs/a.ts', '../src/git/b.js', 'src/git'),
        at('src/git/b.ts', '../../vfs/a.js', 'vfs'),
        at('tools/c.ts', '../src/gate/d.js', 'src/gate'),
        at('vfs/e.ts', 'left-pad', null),
        at('src/host/f.ts', 'node:child_process', null),
        at('tools/patterns/g.ts', '../../vfs/coded-error.js', 'vfs', 'vfs/coded-error.ts'),
        at('tools/patterns/g.ts', '../../vfs/layer.js', 'vfs', 'vfs/layer.ts'),
        at('tools/patterns/g.ts', 'node:fs', null),
        at('tools/text/h.ts', '../result.js', 'tools', 'tools/result.ts'),
      ],
      DEPENDENCIES,
    );
    expect(found).toEqual([
      "vfs/a.ts:1 imports '../src/git/b.js' (src/git): vfs imports only vfs",
      "vfs/a.ts:1 imports '../src/git/b.js' (src/git): vfs (tier 0) imports only units of earlier tiers, and src/git is tier 3",
      "tools/c.ts:1 imports '../src/gate/d.js' (src/gate): tools imports only vfs, tools, tools/patterns and tools/text",
      "tools/c.ts:1 imports '../src/gate/d.js' (src/gate): tools (tier 2) imports only units of earlier tiers, and src/gate is tier 3",
      "vfs/e.ts:1 imports 'left-pad': package left-pad is not on vfs's allow list (PACKAGES)",
      "src/host/f.ts:1 imports 'node:child_process': node:child_process only in src/ports",
      "tools/patterns/g.ts:1 imports '../../vfs/layer.js' (vfs): tools/patterns imports nothing of gatefs but vfs/coded-error.ts",
      "tools/patterns/g.ts:1 imports 'node:fs': tools/patterns imports no builtin",
      "tools/text/h.ts:1 imports '../result.js' (tools): tools/text imports nothing of gatefs",
      "tools/text/h.ts:1 imports '../result.js' (tools): tools/text (tier 1) imports only units of earlier tiers, and tools is tier 2",
      "folder cycle src/git → vfs → src/git:\n  src/git/b.ts:1 imports '../../vfs/a.js' (vfs): step 1\n  vfs/a.ts:1 imports '../src/git/b.js' (src/git): step 2",
    ]);
  });
});
