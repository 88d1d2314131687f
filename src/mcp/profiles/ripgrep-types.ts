/**
 * `ripgrepTypeGlob`: the file names of a ripgrep file type (`rg --type js`, Claude Code's Grep
 * `type`) as one glob for grep's `glob`, matched against file names at any depth. The table holds
 * the common types of `rg --type-list` (extensions and a few exact names); an unknown type is
 * refused with `INVALID_INPUT` naming the known ones, never searched as "no filter".
 */
import { ToolFailure } from '../../../tools/index.js';

/** Type name → extensions (without the dot) and exact file names. */
const TYPES: Readonly<Record<string, { ext: readonly string[]; names?: readonly string[] }>> = {
  c: { ext: ['c', 'h', 'H'] },
  cpp: { ext: ['C', 'cc', 'cpp', 'cxx', 'c++', 'h', 'H', 'hh', 'hpp', 'hxx', 'h++', 'inl', 'ipp'] },
  cs: { ext: ['cs'] },
  csharp: { ext: ['cs'] },
  css: { ext: ['css', 'scss'] },
  dart: { ext: ['dart'] },
  docker: { ext: [], names: ['Dockerfile', 'dockerfile'] },
  elixir: { ext: ['ex', 'exs', 'eex', 'heex'] },
  erlang: { ext: ['erl', 'hrl'] },
  go: { ext: ['go'] },
  graphql: { ext: ['graphql', 'graphqls'] },
  haskell: { ext: ['hs', 'lhs'] },
  html: { ext: ['htm', 'html', 'ejs'] },
  java: { ext: ['java', 'jsp', 'jspx', 'properties'] },
  js: { ext: ['js', 'jsx', 'vue', 'cjs', 'mjs'] },
  json: { ext: ['json', 'jsonc', 'json5'] },
  jsonl: { ext: ['jsonl'] },
  kotlin: { ext: ['kt', 'kts'] },
  less: { ext: ['less'] },
  lua: { ext: ['lua'] },
  make: { ext: ['mak', 'mk'], names: ['Makefile', 'makefile', 'GNUmakefile'] },
  markdown: { ext: ['markdown', 'md', 'mdown', 'mdwn', 'mkd', 'mkdn', 'mdx'] },
  md: { ext: ['markdown', 'md', 'mdown', 'mdwn', 'mkd', 'mkdn', 'mdx'] },
  ocaml: { ext: ['ml', 'mli', 'mll', 'mly'] },
  perl: { ext: ['perl', 'pl', 'PL', 'plh', 'plx', 'pm', 't'] },
  php: { ext: ['php', 'php3', 'php4', 'php5', 'php7', 'php8', 'phtml'] },
  proto: { ext: ['proto'] },
  py: { ext: ['py', 'pyi'] },
  python: { ext: ['py', 'pyi'] },
  r: { ext: ['R', 'r', 'Rmd', 'rmd'] },
  rb: { ext: ['rb', 'gemspec', 'rake'], names: ['Gemfile', 'Rakefile'] },
  ruby: { ext: ['rb', 'gemspec', 'rake'], names: ['Gemfile', 'Rakefile'] },
  rust: { ext: ['rs'] },
  sass: { ext: ['sass', 'scss'] },
  scala: { ext: ['scala', 'sbt'] },
  sh: { ext: ['sh', 'bash', 'zsh', 'ksh', 'csh', 'fish'] },
  sql: { ext: ['sql', 'psql'] },
  svelte: { ext: ['svelte'] },
  swift: { ext: ['swift'] },
  tex: { ext: ['tex', 'ltx', 'cls', 'sty', 'bib'] },
  toml: { ext: ['toml'] },
  ts: { ext: ['ts', 'tsx', 'cts', 'mts'] },
  typescript: { ext: ['ts', 'tsx', 'cts', 'mts'] },
  txt: { ext: ['txt'] },
  vue: { ext: ['vue'] },
  xml: { ext: ['xml', 'xml.dist', 'dtd', 'xsl', 'xslt', 'xsd', 'svg', 'rng', 'sch', 'xhtml'] },
  yaml: { ext: ['yaml', 'yml'] },
  zig: { ext: ['zig'] },
};

/** The names `ripgrepTypeGlob` knows. */
const RIPGREP_TYPES: readonly string[] = Object.keys(TYPES);

/**
 * The glob of the ripgrep type `type` (`js` → `*.{js,jsx,vue,cjs,mjs}`), without '/': grep matches
 * it against file names at any depth. `INVALID_INPUT` on `field` for a type the table lacks.
 */
export function ripgrepTypeGlob(type: string, field = 'type'): string {
  const known = Object.hasOwn(TYPES, type) ? TYPES[type] : undefined;
  if (!known) {
    throw new ToolFailure(
      'INVALID_INPUT',
      `${field}: unknown file type ${JSON.stringify(type.slice(0, 64))}; known types: ${RIPGREP_TYPES.join(', ')} (or pass glob, e.g. '*.{ts,tsx}')`,
    );
  }
  const parts = [...known.ext.map((e) => `*.${e}`), ...(known.names ?? [])];
  return parts.length === 1 ? parts[0] : `{${parts.join(',')}}`;
}
