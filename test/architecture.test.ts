/**
 * Dependencies point inward (issue 10): the import graph of vfs/, tools/ and src/, read with the
 * TypeScript parser (static `import … from`, `import type`, `export … from`, `import()` calls,
 * `import('…')` types, and `new URL('./x.js', import.meta.url)`: a module started by URL, a worker
 * pool's program), checked against the rules below. The rules are data: change them
 * here, in review, never by an exception in the code that checks them.
 *
 * The same parser finds where a program is named to be run (`PROGRAMS_ONLY_IN`): git only in
 * the neutral runner (issue 19); and where the global `process` is named (`GLOBALS_ONLY_IN`):
 * only in src/ports. With the files that may reach the disk by path (`DISK_BY_PATH`), that makes
 * ambient authority greppable, as cap-std does (issue 20).
 *
 * A unit is `vfs`, `tools`, a folder of tools/ that is a unit of its own (`tools/patterns`, `tools/text`), a
 * folder of src/ (`src/git`, …), a file directly in src/ (`src/index`, `src/workspace-error`), or
 * a room of a folder split into rooms (`src/host/…`, test/import-graph.ts `ROOMED`);
 * test/import-graph.ts reads the graph.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cyclesOf,
  exportedNamesOf,
  globalUsesOf,
  packageOf,
  programLiteralsOf,
  scanFiles,
  scanImports,
  specifiersOf,
  staticClosure,
  unitOf,
  type Import,
} from './import-graph.js';

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
  // src/host, room by room: what differs between disk and memory, and who holds a workspace, first;
  // the trust of the state directory; the views and the way home for work built on them; the
  // lower folders of copies; the lifecycle using all of those; subagents on top of the lifecycle;
  // the composition into a Host; the memory host, a composition of its own.
  ['src/host/platform', 'src/host/occupancy'], // the HostPlatform port and the disk platform; occupancy, calls in flight, window claims
  ['src/host/state-trust'], // the state directory's proof of origin, its names, its read-only opening
  ['src/host/views', 'src/host/work', 'src/host/commands'], // a workspace's namespace over its folders; diff, commit, submit and the host's lander; agents' commands in their sandbox
  ['src/host/lower'], // the lower folders of copy workspaces
  ['src/host/lifecycle'], // prepare, release, recover, rollback, registration
  ['src/host/snapshots'], // per-conversation snapshots of a workspace and restore
  ['src/host/subagents', 'src/host/apply', 'src/host/artifacts', 'src/host/agents'], // child conversations landing onto their parent's branch; a copy's changes applied to its source folder; handoffs and their artifacts
  ['src/host/composition'], // assembles the rooms into a Host; the disk host's factory
  ['src/host/memory'], // the memory host: memfs, isomorphic-git, the same composition
  ['src/mcp'], // serves a Host over MCP
  ['src/testing'], // the package's `gatefs/testing` entry: the memory host and its test ports
  ['src/index'], // the package entry point (its createMemoryHost loads src/testing when called)
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
  'src/host/composition': ['p-queue'],
  'src/host/memory': ['isomorphic-git', 'memfs'],
  'src/mcp': ['@modelcontextprotocol/sdk', '@sinclair/typebox'], // typebox: the tool profiles' own schemas (src/mcp/profiles/)
};

/**
 * Runtime dependencies the source never names in an import, each with why it ships. Every other
 * runtime dependency must be imported by vfs/, tools/ or src/: a package only tests and
 * benchmarks use (the reference matchers `picomatch` and `ignore`) is a dev dependency.
 */
const SHIPPED_WITHOUT_IMPORT: Readonly<Record<string, string>> = {
  zod: "the MCP SDK's peer dependency: its server validates with it",
  'tree-sitter-json': "only its .wasm grammar is read (tools/syntax-grammars.ts resolves the file's path)",
};

/**
 * Builtins that reach past the process: only the host ports' implementations use them
 * (docs/ARCHITECTURE.md § Ports and determinism).
 */
const BUILTINS_ONLY_IN: Readonly<Record<string, readonly string[]>> = {
  'node:child_process': ['src/ports'],
  'node:process': ['src/ports'], // the global's module (GLOBALS_ONLY_IN)
};

/**
 * Globals only the files under the named folders may name (test/import-graph.ts `globalUsesOf`):
 * the process's streams, arguments, environment, working folder, exit, signals and ids are ports
 * (STYLE.md 4), read in src/ports and handed on as values, so a grep for `process` finds every
 * place gatefs reaches past itself.
 */
const GLOBALS_ONLY_IN: readonly { global: string; folders: readonly string[]; why: string }[] = [
  {
    global: 'process',
    folders: ['src/ports'],
    why: 'the process is reached through src/ports (process-io.ts, process-signals.ts, own-process.ts) and handed on',
  },
];

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

/**
 * Units split into rooms (issue 20): a room is a folder of its unit with one front door, its
 * `index.ts`. A file outside a room imports it only through that door; a room imports its own
 * files and the doors of rooms of earlier tiers only (innermost first); every file of the unit
 * lies in a room named here.
 */
const ROOMS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  'src/mcp': [
    // what initialize says (the CLI loads it first); result and failure text (the CLI's too); the HTTP request checks
    ['initialize', 'text', 'guard'],
    // the tools' names and shapes per profile; the status page behind the guard
    ['profiles', 'status-page'],
    // MCP servers over the gate, sessions and readiness; the message limits, derived from the profiles' schemas
    ['protocol', 'message-limits'],
    // the two transports
    ['stdio', 'http'],
  ],
};

/**
 * What must not load when the CLI starts (before it serves): a package the CLI's entry files
 * reach by static imports only. The MCP SDK takes about 0.2 s to load; `gatefs serve` loads it
 * through `import()` (or the HTTP door's `serveHttp`) once it serves.
 */
const NOT_AT_START: readonly { entries: readonly string[]; packages: readonly string[]; why: string }[] = [
  {
    entries: ['src/cli/main.ts', 'src/cli/run-cli.ts'],
    packages: ['@modelcontextprotocol/sdk'],
    why: 'every gatefs command would load the MCP SDK; import a light door, or load the server with import()',
  },
  {
    entries: ['src/cli/main.ts', 'src/cli/run-cli.ts'],
    packages: ['better-sqlite3', 'yaml'],
    why: 'every gatefs command would load the state store or the manifest parser; a heavy file is a SIDE_DOORS entry, or loaded with import()',
  },
];

/**
 * Every unit has one front door (issue 20): a folder's `index.ts`, or the file itself for a
 * unit that is one file (`src/index`, `src/testing`, `src/workspace-error`). A source file of
 * another unit imports a unit only through its door, types included (`export type` entries
 * load nothing); a unit's own files import each other directly, never through their door (an
 * ESM cycle through a door can leave a name unset at load). The door re-exports exactly what
 * other units import from it: an entry no other unit names is refused. src/mcp is entered
 * through its rooms' doors instead (`ROOMS`). Tests, benchmarks and scripts may import
 * internals. A door loads everything it re-exports, so a file whose load others must not pay
 * is entered by its own path, by the units named only (`SIDE_DOORS`), and no door loads the
 * packages of `NOT_THROUGH_DOORS`.
 */
const DOORS_BY_ROOMS: readonly string[] = ['src/mcp'];

/** Files entered by their own path, not their unit's door, by the units named, and why. */
const SIDE_DOORS: Readonly<Record<string, { importers: readonly string[]; why: string }>> = {
  'vfs/memory-layer.ts': { importers: ['src/host/memory'], why: 'it loads memfs, which a disk host never loads' },
  'vfs/coded-error.ts': {
    importers: ['tools/patterns'],
    why: 'the pattern engine imports nothing of gatefs but the error base (SELF_CONTAINED)',
  },
  'src/ports/lock-file-dir.ts': {
    importers: ['src/host/composition'],
    why: 'it loads better-sqlite3; the ports door is loaded by the CLI at start',
  },
  'src/ports/write-door-dir.ts': {
    importers: ['src/host/composition'],
    why: 'it loads better-sqlite3; the ports door is loaded by the CLI at start',
  },
  'src/manifest/manifest-error.ts': {
    importers: ['src/mcp'],
    why: 'the failure text the CLI loads at start names ManifestError; the manifest door loads yaml and the schemas',
  },
  'src/git/memory-git.ts': { importers: ['src/host/memory'], why: 'the in-memory git loads isomorphic-git and memfs' },
  'src/git/memory-landing-git.ts': { importers: ['src/host/memory'], why: 'the in-memory git loads isomorphic-git and memfs' },
  'src/git/memory-snapshot-git.ts': { importers: ['src/host/memory'], why: 'the in-memory git loads isomorphic-git and memfs' },
  'src/git/memory-remote.ts': { importers: ['src/host/memory', 'src/testing'], why: 'the in-memory git loads isomorphic-git and memfs' },
};

/**
 * Units whose static imports may name another unit's file directly, and why: the door rule holds
 * for their type imports and `import()` only. The CLI's command table loads on every `gatefs`
 * command; through the doors it would load 235 files, better-sqlite3 and yaml instead of 75.
 */
const DIRECT_IMPORTERS: Readonly<Record<string, string>> = {
  'src/cli': 'its start loads only what its commands need to parse and print (NOT_AT_START)',
};

/** Packages no door loads (by static imports), but the doors named: what a disk host never loads. */
const NOT_THROUGH_DOORS: { packages: readonly string[]; except: readonly string[]; why: string } = {
  packages: ['memfs', 'isomorphic-git'],
  except: ['src/host/memory/index.ts', 'src/testing.ts'],
  why: 'a disk host opened through gatefs loads neither (the memory host lives in gatefs/testing); enter the file by a SIDE_DOORS entry',
};

/** The front door of a unit: `<unit>/index.ts`, the unit's file for a one-file unit, null for a unit entered by its rooms. */
function doorOf(unit: string, files: readonly string[]): string | null {
  if (DOORS_BY_ROOMS.includes(unit)) return null;
  return files.includes(`${unit}.ts`) ? `${unit}.ts` : `${unit}/index.ts`;
}

/** Every door rule broken by `imports` of `files`, as messages (see `say`). */
function doorViolationsOf(files: readonly string[], imports: readonly Import[]): string[] {
  const found: string[] = [];
  for (const i of imports) {
    if (i.to === null || i.target === undefined || unitOf(i.target) === null) continue;
    const door = doorOf(i.to, files);
    if (door === null) continue;
    if (i.to === i.from) {
      if (i.target === door && i.file !== door) found.push(say(i, `${i.from}'s own files import each other directly, not through ${door}`));
    } else if (DIRECT_IMPORTERS[i.from] !== undefined && (i.form ?? 'static') === 'static') continue;
    else if (i.target !== door && !SIDE_DOORS[i.target]?.importers.includes(i.from))
      found.push(
        say(
          i,
          `${i.to} is entered through ${door} only${SIDE_DOORS[i.target] ? ` (${i.target} only by ${inWords(SIDE_DOORS[i.target]!.importers)})` : ''}`,
        ),
      );
  }
  return found;
}

/**
 * Each door entry no file of another unit names, as messages: the names an importer takes
 * (`Import.names`), or, where it does not list them (`import()`), the identifiers of its text.
 */
function unusedDoorEntriesOf(
  doors: readonly { door: string; entries: readonly string[] }[],
  imports: readonly Import[],
  textOf: (file: string) => string,
): string[] {
  return doors.flatMap(({ door, entries }) => {
    const users = imports.filter((i) => i.target === door && i.to !== i.from);
    const named = (name: string) =>
      users.some((i) => (i.names ? i.names.includes(name) : new RegExp(`\\b${name}\\b`).test(textOf(i.file))));
    return entries.filter((name) => !named(name)).map((name) => `${door} re-exports ${name}, which no other unit imports`);
  });
}

/** Each door that loads a package of `NOT_THROUGH_DOORS` by static imports, as messages naming the file that imports it. */
function doorLoadViolationsOf(doors: readonly string[], imports: readonly Import[]): string[] {
  return doors
    .filter((door) => !NOT_THROUGH_DOORS.except.includes(door))
    .flatMap((door) => {
      const loaded = staticClosure(imports, [door]);
      return imports
        .filter((i) => i.to === null && (i.form ?? 'static') === 'static' && loaded.has(i.file))
        .filter((i) => NOT_THROUGH_DOORS.packages.includes(packageOf(i.specifier)))
        .map((i) => say(i, `loaded through ${door}: ${NOT_THROUGH_DOORS.why}`));
    });
}

/** The room of a repository path: `unit/room` for a file in a room of a unit with rooms, '' for a loose file there, null elsewhere. */
function roomOf(path: string): string | null {
  const unit = Object.keys(ROOMS).find((u) => path.startsWith(`${u}/`));
  if (unit === undefined) return null;
  const rest = path.slice(unit.length + 1).split('/');
  return rest.length > 1 ? `${unit}/${rest[0]}` : '';
}

/** Every room rule broken by `imports` of `files`, as messages (see `say`). */
function roomViolationsOf(files: readonly string[], imports: readonly Import[]): string[] {
  const tierOf = new Map<string, number>(
    Object.entries(ROOMS).flatMap(([unit, tiers]) => tiers.flatMap((rooms, tier) => rooms.map((r) => [`${unit}/${r}`, tier] as const))),
  );
  const found = files.filter((f) => roomOf(f) !== null && !tierOf.has(roomOf(f)!)).map((f) => `${f}: in no room of ROOMS`);
  for (const i of imports) {
    const to = i.target === undefined ? null : roomOf(i.target);
    const from = roomOf(i.file);
    if (!to || to === from) continue;
    if (i.target !== `${to}/index.ts`) found.push(say(i, `${to} is entered through ${to}/index.ts only`));
    const [mine, theirs] = [tierOf.get(from ?? ''), tierOf.get(to)];
    if (mine !== undefined && theirs !== undefined && theirs >= mine)
      found.push(say(i, `${from} (room tier ${mine}) imports only rooms of earlier tiers, and ${to} is tier ${theirs}`));
  }
  return found;
}

/** Each package of `NOT_AT_START` that the CLI's start loads, as messages naming the file that imports it. */
function startViolationsOf(imports: readonly Import[]): string[] {
  return NOT_AT_START.flatMap((rule) => {
    const loaded = staticClosure(imports, rule.entries);
    return imports
      .filter((i) => i.to === null && (i.form ?? 'static') === 'static' && loaded.has(i.file))
      .filter((i) => rule.packages.includes(packageOf(i.specifier)))
      .map((i) => say(i, `loaded when the CLI starts (from ${rule.entries.join(', ')}): ${rule.why}`));
  });
}

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

/** Each use of a global of `GLOBALS_ONLY_IN` in `sources` outside its folders, as messages naming the file and line. */
function globalViolationsOf(sources: readonly { file: string; text: string }[]): string[] {
  return sources.flatMap(({ file, text }) =>
    GLOBALS_ONLY_IN.filter((rule) => !rule.folders.some((f) => file.startsWith(`${f}/`))).flatMap((rule) =>
      globalUsesOf(file, text, rule.global).map(
        (u) => `${file}:${u.line} names '${u.text}': only files under ${rule.folders.join(', ')} may (${rule.why})`,
      ),
    ),
  );
}

/**
 * The files that may reach the disk by path: the only ones importing `node:fs` or
 * `node:fs/promises` (statically, with `import()`, or re-exported; a type-only import loads
 * nothing and is not counted). As cap-std names what reaches the host, each entry says what it
 * does with the disk and what it does not guard against. `match` is a repository path; `*`
 * stands for any part of one name, and a path ending in `/` covers the folder. Everything else
 * reaches files through a held folder (a host layer) or a port. Add a file here in review, with
 * its reason; an entry that matches no such file fails too.
 */
const DISK_BY_PATH: readonly { match: string; why: string }[] = [
  {
    match: 'vfs/host-*.ts',
    why: 'the confined host layer: opens beneath held folder handles (/proc/self/fd or lstat checks); the lstat fallback narrows, but cannot close, a swap race',
  },
  {
    match: 'src/ports/',
    why: 'host ports: lock and door files under <stateDir>/locks, /proc reads for liveness and the client window; trust the state dir they are given',
  },
  {
    match: 'src/ports/disk-folder-image.ts',
    why: 'snapshots read and restore workspace folders beneath held handles (/proc/self/fd, O_NOFOLLOW at every level); the root path itself is trusted up to its last component',
  },
  {
    match: 'src/ports/content-store-dir.ts',
    why: 'snapshot blobs at <stateDir>/snapshots/objects (temp + fsync + rename, the object opened O_NOFOLLOW); trusts the state dir it is given',
  },
  {
    match: 'src/host/state-trust/state-trust.ts',
    why: 'lstats and lists the state directory to prove it is a real folder of this user; a change after the check is caught by the origin check, not here',
  },
  {
    match: 'src/host/state-trust/untrusted-state.ts',
    why: 'lstat of one name in the state directory for a refusal; follows nothing, guards nothing itself',
  },
  {
    match: 'src/host/state-trust/state-origin-check.ts',
    why: 'reads and writes gatefs.origin (O_NOFOLLOW, temp + rename) and lstats the state dir and database; a same-user process may still rewrite both',
  },
  {
    match: 'src/host/state-trust/state-dir.ts',
    why: 'makes the state directory and appends it to info/exclude (O_NOFOLLOW, O_APPEND); the exclude path comes from git, trusted as the repository is',
  },
  {
    match: 'src/host/state-trust/state-reader.ts',
    why: "gatefs log's composition root: stat and realpath of the repository and state dir, fs handed to CliGit; opens nothing before the trust checks",
  },
  {
    match: 'src/host/composition/create-host.ts',
    why: "the disk host's composition root: realpath of the repository and state dir, fs handed to CliGit; follows the links the user named",
  },
  {
    match: 'src/host/composition/repository-folder.ts',
    why: 'stat of the repository folder before anything else; a folder swapped afterwards is not seen',
  },
  {
    match: 'src/host/composition/authority-files.ts',
    why: 'realpath, lstat and readlink of the manifest and settings paths, so every name of them is protected; a link made later is not followed',
  },
  {
    match: 'src/host/platform/disk-platform.ts',
    why: 'the disk platform: stat, lstat, mkdir and listing of paths under the repository and state dir; paths come from records of ids, not from agents',
  },
  {
    match: 'src/host/platform/confined-removal.ts',
    why: 'removes <stateDir>/<area>/<id> through held handles (O_NOFOLLOW at every level); without procfs, a swap between lstat and unlink is narrowed, not closed',
  },
  {
    match: 'src/host/platform/project-memory-file.ts',
    why: 'appends to <stateDir>/memory/project.md (O_NOFOLLOW, a link refused); a same-user process may still write it',
  },
  {
    match: 'src/host/lower/check-out-lower.ts',
    why: "makes, flushes and renames a lower folder under <stateDir>/lowers; paths come from the conversation id, the checkout's content through a host layer",
  },
  {
    match: 'src/git/cli-git.ts',
    why: "appends to a worktree's info/sparse-checkout at the path git names, checked to lie in the repository's worktrees/ folder",
  },
  {
    match: 'src/git/cli-landing-git.ts',
    why: 'a temp folder for a diff index, and lstat, readdir, realpath and stat in worktrees the landing made; trusts the repository git reports',
  },
  {
    match: 'src/git/cli-checkout-safety.ts',
    why: 'lstat of checked-out paths one folder at a time from the top, following no link; a swap after the look is not seen',
  },
  {
    match: 'src/manifest/authority-file-text.ts',
    why: 'reads the manifest or settings file the user named, following links, with no size bound',
  },
  {
    match: 'src/mcp/http/serve-token.ts',
    why: 'reads or creates the HTTP token file (O_NOFOLLOW on create, owner and mode 0600 checked on read); a same-user process may still read it',
  },
  {
    match: 'src/mcp/initialize/version.ts',
    why: "reads gatefs's own package.json next to the code for the version; no user path",
  },
  {
    match: 'src/cli/global-flags.ts',
    why: 'existsSync of <repo>/gatefs.yaml to pick the default manifest; a file appearing later is not seen',
  },
  {
    match: 'src/cli/repo-folder-check.ts',
    why: 'looks at names (.git, gatefs.origin) above the repository folder to refuse a workspace as a repository; never follows a .git file',
  },
  {
    match: 'src/cli/state-presence.ts',
    why: 'stat of the repository and lstat of the state dir path, so a read-only command creates nothing; a race with a prepare only shows stale news',
  },
  {
    match: 'src/cli/init.ts',
    why: 'writes a starter gatefs.yaml (O_EXCL: never over a file) where the user points; follows links on the way',
  },
  {
    match: 'src/cli/demo.ts',
    why: "gatefs demo: makes and removes its own temp folder and reads a file of the demo's repository",
  },
  {
    match: 'src/cli/demo-repo.ts',
    why: "copies fixtures/sample-repo into the demo's temp folder; no user path",
  },
];

/** True when repository path `file` is one `match` of `DISK_BY_PATH` names (see there). */
function isMatchedBy(file: string, match: string): boolean {
  if (match.endsWith('/')) return file.startsWith(match);
  const name = new RegExp(
    `^${match
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );
  return name.test(file);
}

/** The imports of node:fs and node:fs/promises that load the module (`fs` too, as Node reads it). */
function diskImportsOf(imports: readonly Import[]): Import[] {
  return imports.filter((i) => i.to === null && /^(?:node:)?fs(?:\/promises)?$/.test(i.specifier) && i.form !== 'type');
}

/** Each disk import of a file `DISK_BY_PATH` does not name, as messages naming the file. */
function diskViolationsOf(imports: readonly Import[]): string[] {
  return diskImportsOf(imports)
    .filter((i) => !DISK_BY_PATH.some((entry) => isMatchedBy(i.file, entry.match)))
    .map((i) =>
      say(
        i,
        'reaches the disk by path, and the file is not on DISK_BY_PATH: use a host layer or a port, or add the file there saying what it does and does not guard against',
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

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
// Runtime packages: optional ones too (tree-sitter: the code says what it does where they are absent).
const DEPENDENCIES = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})]);

describe('architecture: dependencies point inward', () => {
  const files = scanFiles(ROOT, ['vfs', 'tools', 'src']);
  const imports = scanImports(ROOT, files);
  const sources = files.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

  it('reads every kind of import: static, type-only, re-export, dynamic, import types, modules named by URL', () => {
    const seen = (file: string, specifier: string) => imports.some((i) => i.file === file && i.specifier === specifier);
    expect(files.length).toBeGreaterThan(150);
    expect(new Set(imports.map((i) => i.file)).size).toBeGreaterThan(150);
    expect(seen('src/cli/serve-stdio.ts', '../mcp/stdio/index.js')).toBe(true); // await import('…')
    expect(seen('src/index.ts', './host/composition/index.js')).toBe(true); // export { … } from
    expect(seen('src/cli/open-host.ts', '../index.js')).toBe(true); // typeof import('…')
    expect(seen('vfs/memory-layer.ts', 'memfs')).toBe(true);
    expect(seen('vfs/worker-pool.ts', './pool-worker.js')).toBe(true); // new URL('…', import.meta.url)
    expect(seen('tools/grep/regex-worker-pool.ts', './regex-search-program.js')).toBe(true);
    const named = specifiersOf(
      'vfs/x.ts',
      "new URL('../tools/p.js', import.meta.url); new URL(rel, import.meta.url); new URL('./a.json', import.meta.url); new URL('./b.js', base);",
    );
    expect(named.map((n) => n.specifier)).toEqual(['../tools/p.js']); // a module by URL; not a variable, data or another base
    expect(seen('src/index.ts', 'gatefs')).toBe(false); // a comment is not an import
  });

  it('each room of src/host is a unit; any other folder of src/ is one unit, its sub-folders included', () => {
    expect(unitOf('src/host/lifecycle/prepare-workspace.ts')).toBe('src/host/lifecycle');
    expect(unitOf('src/host/index.ts')).toBe('src/host');
    expect(unitOf('src/mcp/profiles/claude-code.ts')).toBe('src/mcp');
    expect(unitOf('src/index.ts')).toBe('src/index');
    const rooms = new Set(files.filter((f) => f.startsWith('src/host/')).map((f) => unitOf(f)));
    expect([...rooms].sort()).toEqual(
      TIERS.flat()
        .filter((u) => u.startsWith('src/host/'))
        .sort(),
    );
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

  it('every runtime dependency is imported by the shipped source (or says why it ships); test-only packages are dev dependencies', () => {
    const imported = new Set(imports.filter((i) => i.to === null).map((i) => packageOf(i.specifier)));
    const unused = [...DEPENDENCIES].filter((d) => !imported.has(d) && !(d in SHIPPED_WITHOUT_IMPORT)).sort();
    expect(unused).toEqual([]);
    expect(Object.keys(SHIPPED_WITHOUT_IMPORT).filter((d) => !DEPENDENCIES.has(d) || imported.has(d))).toEqual([]);
  });

  it('every layer file lives in vfs/', () => {
    const misplaced = files.flatMap((f) =>
      NAMES_ONLY_IN.filter((n) => f.endsWith(n.suffix) && unitOf(f) !== n.unit).map((n) => `${f}: ${n.why}`),
    );
    expect(misplaced).toEqual([]);
  });

  it('git runs only through the neutral runner: no argv, spawn or stored program name elsewhere names it', () => {
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

  it('the global process is named only in src/ports', () => {
    expect(globalViolationsOf(sources)).toEqual([]);
    // The rule reads what it should: the ports name it, and src/ports is where they live.
    const io = sources.find((s) => s.file === 'src/ports/process-io.ts')!;
    expect(globalUsesOf(io.file, io.text, 'process').length).toBeGreaterThan(0);
  });

  it('finds process as a value, through globalThis and as a local, and not as a property name; names the file and line', () => {
    const text = [
      'const home = process.env.HOME;',
      'const p = { process: 1 }.process; type T = { process?: number };',
      'const q = globalThis.process;',
      'function f(process: number) { return process; }',
      'const { process: r } = holder; const s = `process`;',
      'write(process);',
    ].join('\n');
    expect(
      globalViolationsOf([
        { file: 'src/cli/x.ts', text },
        { file: 'src/ports/y.ts', text },
      ]),
    ).toEqual(
      [
        [1, 'process'],
        [3, 'globalThis.process'],
        [4, 'process'],
        [4, 'process'],
        [6, 'process'],
      ].map(([line, named]) => `src/cli/x.ts:${line} names '${named}': only files under src/ports may (${GLOBALS_ONLY_IN[0]!.why})`),
    );
  });

  it('only the files of DISK_BY_PATH reach the disk by path, and every entry names such a file', () => {
    expect(diskViolationsOf(imports)).toEqual([]);
    const reaching = new Set(diskImportsOf(imports).map((i) => i.file));
    expect(DISK_BY_PATH.filter((entry) => ![...reaching].some((f) => isMatchedBy(f, entry.match))).map((e) => e.match)).toEqual([]);
    expect(reaching.has('vfs/host-walk.ts')).toBe(true); // the rule reads what it should
  });

  it('names a file reaching the disk off the list, by static, dynamic or re-exporting import; a type-only import is not one', () => {
    const at = (file: string, specifier: string, form: Import['form']): Import => ({
      file,
      line: 1,
      specifier,
      from: unitOf(file)!,
      to: null,
      form,
    });
    const found = diskViolationsOf([
      at('tools/x.ts', 'node:fs', 'static'),
      at('src/cli/y.ts', 'node:fs/promises', 'dynamic'),
      at('src/lander/z.ts', 'fs', 'static'),
      at('src/gate/t.ts', 'node:fs', 'type'),
      at('vfs/host-walk.ts', 'node:fs', 'static'),
      at('vfs/hostile.ts', 'node:fs', 'static'),
      at('src/ports/lock-file-dir.ts', 'node:fs', 'static'),
      at('src/git/cli-git.ts', 'node:fs/promises', 'static'),
      at('src/git/cli-git-extra.ts', 'node:fs/promises', 'static'),
    ]);
    expect(found.map((m) => m.split(':')[0])).toEqual([
      'tools/x.ts',
      'src/cli/y.ts',
      'src/lander/z.ts',
      'vfs/hostile.ts',
      'src/git/cli-git-extra.ts',
    ]);
    expect(found[0]).toMatch(/^tools\/x\.ts:1 imports 'node:fs': reaches the disk by path, and the file is not on DISK_BY_PATH/);
  });

  it("src/mcp is entered through its rooms' front doors, and its rooms import only rooms of earlier tiers", () => {
    expect(roomViolationsOf(files, imports)).toEqual([]);
    const rooms = Object.entries(ROOMS).flatMap(([unit, tiers]) => tiers.flat().map((r) => `${unit}/${r}`));
    expect(rooms.filter((r) => !files.includes(`${r}/index.ts`))).toEqual([]);
  });

  it('names a door bypassed, a room importing an outer one, and a file in no room', () => {
    const at = (file: string, specifier: string): Import => {
      const target = join(file, '..', specifier).replace(/\.js$/, '.ts');
      return { file, line: 1, specifier, from: unitOf(file)!, to: unitOf(target), target };
    };
    const found = roomViolationsOf(
      ['src/mcp/loose.ts', 'src/mcp/attic/old.ts', 'src/mcp/http/index.ts'],
      [
        at('src/cli/serve.ts', '../mcp/http/serve-token.js'),
        at('src/mcp/guard/request-guard.ts', '../http/index.js'),
        at('src/mcp/stdio/stdio.ts', '../http/index.js'),
        at('src/mcp/http/http-server.ts', './http-sessions.js'),
        at('src/mcp/http/http-server.ts', '../status-page/index.js'),
      ],
    );
    expect(found).toEqual([
      'src/mcp/loose.ts: in no room of ROOMS',
      'src/mcp/attic/old.ts: in no room of ROOMS',
      "src/cli/serve.ts:1 imports '../mcp/http/serve-token.js' (src/mcp): src/mcp/http is entered through src/mcp/http/index.ts only",
      "src/mcp/guard/request-guard.ts:1 imports '../http/index.js' (src/mcp): src/mcp/guard (room tier 0) imports only rooms of earlier tiers, and src/mcp/http is tier 3",
      "src/mcp/stdio/stdio.ts:1 imports '../http/index.js' (src/mcp): src/mcp/stdio (room tier 3) imports only rooms of earlier tiers, and src/mcp/http is tier 3",
    ]);
  });

  it('every unit is entered through its front door, which re-exports exactly what other units import and loads no memory-host package', () => {
    expect(doorViolationsOf(files, imports)).toEqual([]);
    // A unit no other unit imports (src/cli, the binary) needs no door.
    const units = [...new Set(imports.filter((i) => i.to !== null && i.to !== i.from && unitOf(i.to) !== null).map((i) => i.to!))];
    const doors = units.map((u) => doorOf(u, files)).filter((d): d is string => d !== null);
    expect(doors.filter((d) => !files.includes(d))).toEqual([]);
    expect(Object.keys(SIDE_DOORS).filter((f) => !files.includes(f))).toEqual([]);
    // A one-file unit's exports are its own (src/index and src/testing: the package's API); a folder's door is checked entry by entry.
    const folderDoors = units.filter((u) => !files.includes(`${u}.ts`) && doorOf(u, files) !== null).map((u) => `${u}/index.ts`);
    const entries = folderDoors.map((door) => ({ door, entries: exportedNamesOf(door, readFileSync(join(ROOT, door), 'utf8')) }));
    const roomDoors = Object.entries(ROOMS).flatMap(([unit, tiers]) => tiers.flat().map((r) => `${unit}/${r}/index.ts`));
    expect(folderDoors.length + roomDoors.length).toBeGreaterThan(25);
    expect(unusedDoorEntriesOf(entries, imports, (f) => readFileSync(join(ROOT, f), 'utf8'))).toEqual([]);
    expect(doorLoadViolationsOf([...doors, ...roomDoors], imports)).toEqual([]);
  });

  it('names a door bypassed, a door used from inside, a side door used by another unit, an unused entry, and a door loading memfs', () => {
    const at = (file: string, specifier: string, names?: string[]): Import => {
      const target = join(file, '..', specifier).replace(/\.js$/, '.ts');
      return { file, line: 1, specifier, from: unitOf(file)!, to: unitOf(target), target, ...(names && { names }) };
    };
    const files = ['src/git/index.ts', 'src/git/git-port.ts', 'src/index.ts', 'vfs/index.ts', 'vfs/memory-layer.ts'];
    expect(
      doorViolationsOf(files, [
        at('src/host/lower/lower-folders.ts', '../../git/git-port.js'),
        at('src/git/cli-git.ts', './index.js'),
        at('src/lander/lander.ts', '../../vfs/memory-layer.js'),
        at('src/host/memory/memory-platform.ts', '../../../vfs/memory-layer.js'),
        at('src/cli/open-host.ts', '../index.js'),
        at('src/host/lower/lower-folders.ts', '../../git/index.js'),
      ]),
    ).toEqual([
      "src/host/lower/lower-folders.ts:1 imports '../../git/git-port.js' (src/git): src/git is entered through src/git/index.ts only",
      "src/git/cli-git.ts:1 imports './index.js' (src/git): src/git's own files import each other directly, not through src/git/index.ts",
      "src/lander/lander.ts:1 imports '../../vfs/memory-layer.js' (vfs): vfs is entered through vfs/index.ts only (vfs/memory-layer.ts only by src/host/memory)",
    ]);
    const users = [at('src/host/lower/lower-folders.ts', '../../git/index.js', ['GitError']), at('src/cli/x.ts', '../git/index.js')];
    expect(
      unusedDoorEntriesOf([{ door: 'src/git/index.ts', entries: ['GitError', 'CliGit', 'isGitError'] }], users, (f) =>
        f === 'src/cli/x.ts' ? 'const { CliGit } = await import(…)' : '',
      ),
    ).toEqual(['src/git/index.ts re-exports isGitError, which no other unit imports']);
    const loading: Import[] = [
      at('src/git/index.ts', './memory-git.js'),
      { file: 'src/git/memory-git.ts', line: 3, specifier: 'isomorphic-git', from: 'src/git', to: null },
    ];
    expect(doorLoadViolationsOf(['src/git/index.ts'], loading)).toEqual([
      `src/git/memory-git.ts:3 imports 'isomorphic-git': loaded through src/git/index.ts: ${NOT_THROUGH_DOORS.why}`,
    ]);
  });

  it('the CLI starts without the MCP SDK, which is reached once it serves', () => {
    expect(startViolationsOf(imports)).toEqual([]);
    // The rule sees the SDK where it loads: the HTTP server, reached from the CLI only through the door's import().
    const server = staticClosure(imports, ['src/mcp/http/http-server.ts']);
    expect(imports.some((i) => server.has(i.file) && i.form === 'static' && packageOf(i.specifier) === '@modelcontextprotocol/sdk')).toBe(
      true,
    );
    expect(staticClosure(imports, NOT_AT_START[0]!.entries).has('src/mcp/http/index.ts')).toBe(true);
    expect(staticClosure(imports, NOT_AT_START[0]!.entries).has('src/mcp/http/http-server.ts')).toBe(false);
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
        at('src/cli/i.ts', 'node:process', null),
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
      "src/cli/i.ts:1 imports 'node:process': node:process only in src/ports",
      "folder cycle src/git → vfs → src/git:\n  src/git/b.ts:1 imports '../../vfs/a.js' (vfs): step 1\n  vfs/a.ts:1 imports '../src/git/b.js' (src/git): step 2",
    ]);
  });
});
