/**
 * The tree-sitter grammars the syntax check knows, by file name, and their loading: the
 * tree-sitter runtime and the grammars are WebAssembly files shipped inside npm packages
 * (`@vscode/tree-sitter-wasm`: the runtime and most grammars; `tree-sitter-json`: JSON). Both
 * are optional dependencies: nothing of them loads until the first syntax check of a process
 * (a dynamic `import()` of the runtime, then each grammar's wasm on its first use, kept for the
 * life of the process), and where npm left them out (`--omit=optional`) the check answers that
 * it is unavailable (`SyntaxCheckUnavailable`) instead of failing the edit. Nothing is
 * downloaded, nothing is spawned, no native addon is built.
 *
 * Limits: C has no grammar here (the C++ one would misread C), nor YAML, TOML or Markdown.
 */
import { createRequire } from 'node:module';
import { CodedError, foreignCodeOf } from '../vfs/index.js';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';

const require = createRequire(import.meta.url);

/** The package of the tree-sitter runtime (and of most grammars). */
export const RUNTIME_PACKAGE = '@vscode/tree-sitter-wasm';

/** A grammar: the package that ships it and its wasm file there. */
interface Grammar {
  package: string;
  file: string;
}

const vscode = (file: string): Grammar => ({ package: RUNTIME_PACKAGE, file: `wasm/${file}` });

const GRAMMARS: Readonly<Record<string, Grammar>> = {
  typescript: vscode('tree-sitter-typescript.wasm'),
  tsx: vscode('tree-sitter-tsx.wasm'),
  javascript: vscode('tree-sitter-javascript.wasm'),
  json: { package: 'tree-sitter-json', file: 'tree-sitter-json.wasm' },
  python: vscode('tree-sitter-python.wasm'),
  go: vscode('tree-sitter-go.wasm'),
  rust: vscode('tree-sitter-rust.wasm'),
  java: vscode('tree-sitter-java.wasm'),
  cpp: vscode('tree-sitter-cpp.wasm'),
  csharp: vscode('tree-sitter-c-sharp.wasm'),
  bash: vscode('tree-sitter-bash.wasm'),
  css: vscode('tree-sitter-css.wasm'),
  php: vscode('tree-sitter-php.wasm'),
  ruby: vscode('tree-sitter-ruby.wasm'),
};

const BY_EXTENSION: Readonly<Record<string, string>> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  json: 'json',
  jsonc: 'json',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  hxx: 'cpp',
  cs: 'csharp',
  sh: 'bash',
  bash: 'bash',
  css: 'css',
  php: 'php',
  rb: 'ruby',
};

/** The grammar name for a file path (by its extension, case-insensitive), or undefined. */
export function languageOf(path: string): string | undefined {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return BY_EXTENSION[base.slice(dot + 1).toLowerCase()];
}

type Runtime = typeof TreeSitter;

/**
 * The syntax check cannot run here: a package it needs is not installed (both are optional
 * dependencies). `message` is the reason the syntax report gives.
 */
export class SyntaxCheckUnavailable extends CodedError<'SYNTAX_CHECK_UNAVAILABLE'> {
  override readonly name = 'SyntaxCheckUnavailable';

  constructor(message: string, options?: { cause?: unknown }) {
    super('SYNTAX_CHECK_UNAVAILABLE', message, {}, options);
  }
}

/** Where a `Grammars` finds tree-sitter; the defaults are the installed packages. */
interface TreeSitterSource {
  /** The module specifier of the runtime (default `RUNTIME_PACKAGE`), loaded with `import()`. */
  runtimeModule?: string;
  /** The file of a grammar's wasm from `package/file` (default: `require.resolve` from here). */
  resolveWasm?(specifier: string): string;
}

/** True for the error Node gives when a package or a file in it is not installed. */
function isNotInstalled(e: unknown): boolean {
  const code = foreignCodeOf(e);
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/**
 * The tree-sitter runtime and grammars of one source, each loaded on first use and kept (see
 * the file comment). The process shares `installedGrammars`; a test makes one over a source
 * whose packages are absent.
 */
export class Grammars {
  #runtime: Promise<Runtime> | undefined;
  readonly #languages = new Map<string, Promise<TreeSitter.Language>>();
  readonly #runtimeModule: string;
  readonly #resolveWasm: (specifier: string) => string;

  constructor(source: TreeSitterSource = {}) {
    this.#runtimeModule = source.runtimeModule ?? RUNTIME_PACKAGE;
    this.#resolveWasm = source.resolveWasm ?? ((specifier) => require.resolve(specifier));
  }

  /**
   * A parser set to the grammar `name` (from `languageOf`), loaded on first use; the caller
   * deletes it when done. Rejects with `SyntaxCheckUnavailable` when the runtime or the
   * grammar's package is not installed, with the load error when a wasm file will not load (a
   * broken install).
   */
  async parserFor(name: string): Promise<TreeSitter.Parser> {
    const ts = await this.#loadRuntime();
    let language = this.#languages.get(name);
    if (!language) {
      language = this.#loadLanguage(ts, name);
      language.catch(() => this.#languages.delete(name));
      this.#languages.set(name, language);
    }
    const parser = new ts.Parser();
    parser.setLanguage(await language);
    return parser;
  }

  /** The runtime, imported and initialised once (a failure is kept too: the packages do not appear mid-process). */
  #loadRuntime(): Promise<Runtime> {
    this.#runtime ??= (async () => {
      let loaded: { default?: Runtime } & Partial<Runtime>;
      try {
        loaded = (await import(this.#runtimeModule)) as { default?: Runtime } & Partial<Runtime>;
      } catch (e) {
        if (!isNotInstalled(e)) throw e;
        throw new SyntaxCheckUnavailable(
          `the syntax check is unavailable: tree-sitter is not installed here (${RUNTIME_PACKAGE}, an optional dependency)`,
        );
      }
      // A CommonJS (UMD) module: import() gives its exports as the default export.
      const runtime = (loaded.default ?? loaded) as Runtime;
      await runtime.Parser.init();
      return runtime;
    })();
    return this.#runtime;
  }

  async #loadLanguage(ts: Runtime, name: string): Promise<TreeSitter.Language> {
    const grammar = GRAMMARS[name];
    if (!grammar) throw new Error(`no grammar named ${name}`);
    let file: string;
    try {
      file = this.#resolveWasm(`${grammar.package}/${grammar.file}`);
    } catch (e) {
      if (!isNotInstalled(e)) throw e;
      throw new SyntaxCheckUnavailable(`the ${name} grammar is not installed here (${grammar.package}, an optional dependency)`);
    }
    return ts.Language.load(file);
  }
}

/** The grammars of the installed packages, shared by the process. */
export const installedGrammars = new Grammars();
