/**
 * The tree-sitter grammars the syntax check knows, by file name, and their loading: the
 * tree-sitter runtime and the grammars are WebAssembly files shipped inside npm packages
 * (`@vscode/tree-sitter-wasm`: the runtime and most grammars; `tree-sitter-json`: JSON), read
 * from `node_modules` on first use and kept for the life of the process. Nothing is downloaded,
 * nothing is spawned, no native addon is built.
 *
 * Limits: C has no grammar here (the C++ one would misread C), nor YAML, TOML or Markdown.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';

const require = createRequire(import.meta.url);

/** A grammar: its name (as reported to the agent) and the wasm file it loads from. */
interface Grammar {
  name: string;
  wasm: () => string;
}

const vscodeWasm = (file: string) => () => join(dirname(require.resolve('@vscode/tree-sitter-wasm')), file);

const GRAMMARS: Readonly<Record<string, Grammar>> = {
  typescript: { name: 'typescript', wasm: vscodeWasm('tree-sitter-typescript.wasm') },
  tsx: { name: 'tsx', wasm: vscodeWasm('tree-sitter-tsx.wasm') },
  javascript: { name: 'javascript', wasm: vscodeWasm('tree-sitter-javascript.wasm') },
  json: { name: 'json', wasm: () => require.resolve('tree-sitter-json/tree-sitter-json.wasm') },
  python: { name: 'python', wasm: vscodeWasm('tree-sitter-python.wasm') },
  go: { name: 'go', wasm: vscodeWasm('tree-sitter-go.wasm') },
  rust: { name: 'rust', wasm: vscodeWasm('tree-sitter-rust.wasm') },
  java: { name: 'java', wasm: vscodeWasm('tree-sitter-java.wasm') },
  cpp: { name: 'cpp', wasm: vscodeWasm('tree-sitter-cpp.wasm') },
  csharp: { name: 'csharp', wasm: vscodeWasm('tree-sitter-c-sharp.wasm') },
  bash: { name: 'bash', wasm: vscodeWasm('tree-sitter-bash.wasm') },
  css: { name: 'css', wasm: vscodeWasm('tree-sitter-css.wasm') },
  php: { name: 'php', wasm: vscodeWasm('tree-sitter-php.wasm') },
  ruby: { name: 'ruby', wasm: vscodeWasm('tree-sitter-ruby.wasm') },
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
let runtime: Promise<Runtime> | undefined;
const languages = new Map<string, Promise<TreeSitter.Language>>();

/** The tree-sitter runtime, initialised once. */
function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    const module = require('@vscode/tree-sitter-wasm') as Runtime;
    await module.Parser.init();
    return module;
  })();
  return runtime;
}

/**
 * A parser set to the grammar `name` (from `languageOf`), loaded on first use. The caller
 * deletes the parser when done. Rejects when the wasm file cannot be loaded (a broken install).
 */
export async function parserFor(name: string): Promise<TreeSitter.Parser> {
  const ts = await loadRuntime();
  let language = languages.get(name);
  if (!language) {
    const grammar = GRAMMARS[name];
    if (!grammar) throw new Error(`no grammar named ${name}`);
    language = ts.Language.load(grammar.wasm());
    language.catch(() => languages.delete(name));
    languages.set(name, language);
  }
  const parser = new ts.Parser();
  parser.setLanguage(await language);
  return parser;
}
