// `node scripts/export-usage.mjs [--list]`: counts the exports of vfs/, tools/ and src/ and who
// imports them (issue 20: "units with front doors"), read with the TypeScript checker over the
// whole project (sources, tests, benchmarks). An export is a declaration a file exports (a
// re-export is counted apart, as a door's or barrel's entry); it is used where any file names
// it, through however many re-exports. Units are test/import-graph.ts's (`unitOf`).
//
// Prints: exports; exports used across units (named by a source file of another unit); exports
// used only by the public package API (src/index.ts, src/testing.ts); exports never imported
// (by source, tests or benchmarks); re-exports nobody names. `--list` lists the last two.
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = /^(vfs|tools|src)\//;
const PUBLIC = new Set(['src/index.ts', 'src/testing.ts']);
const TOOLS_UNITS = ['tools/patterns', 'tools/text'];
const ROOMED = ['src/host'];

/** test/import-graph.ts `unitOf`, repeated here so this script runs without a build. */
function unitOf(path) {
  const parts = path.split('/');
  if (parts[0] === 'tools' && parts.length > 2 && TOOLS_UNITS.includes(`tools/${parts[1]}`)) return `tools/${parts[1]}`;
  if (parts[0] === 'vfs' || parts[0] === 'tools') return parts[0];
  if (parts[0] !== 'src' || parts.length < 2) return null;
  if (parts.length === 2) return `src/${parts[1].replace(/\.ts$/, '')}`;
  const unit = `src/${parts[1]}`;
  return ROOMED.includes(unit) && parts.length > 3 ? `${unit}/${parts[2]}` : unit;
}

const config = ts.getParsedCommandLineOfConfigFile(
  join(ROOT, 'tsconfig.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic() {} },
);
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();
const pathOf = (sf) => relative(ROOT, sf.fileName).split('\\').join('/');
const files = program.getSourceFiles().filter((sf) => !sf.isDeclarationFile && !pathOf(sf).startsWith('node_modules'));

/** The symbol an alias finally names (itself when it is none). */
const finalOf = (s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);

/** The symbol an alias names next, or undefined (a namespace import, a `export =`: no next step). */
function nextOf(s) {
  try {
    return checker.getImmediateAliasedSymbol(s);
  } catch {
    return undefined;
  }
}

// Every export of every source file: declarations (keyed by their final symbol) and re-exports.
const declared = new Map(); // final symbol -> { file, name }
const reexports = []; // { file, name, final }
for (const sf of files) {
  const file = pathOf(sf);
  if (!SOURCE.test(file)) continue;
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  if (!moduleSymbol) continue;
  for (const s of checker.getExportsOfModule(moduleSymbol)) {
    const final = finalOf(s);
    const home = final.declarations?.[0]?.getSourceFile();
    if (s.flags & ts.SymbolFlags.Alias || home !== sf) reexports.push({ file, name: s.name, final, symbol: s });
    else declared.set(final, { file, name: s.name });
  }
}

/**
 * The symbol an identifier names; for a name taken apart from an object (`const { a } = await
 * import('…')`), the property it takes: a module's export when the object is a module.
 */
function symbolNamedBy(node) {
  const parent = node.parent;
  if (ts.isBindingElement(parent) && ts.isObjectBindingPattern(parent.parent) && (parent.propertyName ?? parent.name) === node) {
    const key = parent.propertyName && ts.isIdentifier(parent.propertyName) ? parent.propertyName.text : node.text;
    return checker.getTypeAtLocation(parent.parent).getProperty(key);
  }
  return checker.getSymbolAtLocation(node);
}

// Who names each final symbol: every identifier of every file, resolved through aliases, where
// the symbol is declared in another file. A re-export (`export … from`) is not a use.
const users = new Map(); // final symbol -> Set of files
const namedAliases = new Set(); // alias symbols named somewhere other than an export-from
for (const sf of files) {
  const file = pathOf(sf);
  const visit = (node) => {
    if (ts.isExportDeclaration(node) && node.moduleSpecifier) return;
    if (ts.isIdentifier(node)) {
      const s = symbolNamedBy(node);
      if (s) {
        const final = finalOf(s);
        const home = final.declarations?.[0]?.getSourceFile();
        if (home && home !== sf) {
          if (!users.has(final)) users.set(final, new Set());
          users.get(final).add(file);
        }
        // the name as imported, and each alias on the way (a door's entry is used when named through it)
        for (let a = s; a && a.flags & ts.SymbolFlags.Alias; a = nextOf(a)) namedAliases.add(a);
      }
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sf, visit);
}

const report = { exports: declared.size, usedAcrossUnits: 0, publicOnly: [], neverImported: [], unusedReexports: [] };
for (const [final, { file, name }] of declared) {
  const by = [...(users.get(final) ?? [])];
  const unit = unitOf(file);
  if (by.some((f) => SOURCE.test(f) && !PUBLIC.has(f) && unitOf(f) !== unit)) report.usedAcrossUnits++;
  const named = by.filter((f) => !PUBLIC.has(f));
  const isPublic = reexports.some((r) => PUBLIC.has(r.file) && r.final === final);
  if (named.length === 0 && isPublic) report.publicOnly.push(`${file} ${name}`);
  else if (named.length === 0) report.neverImported.push(`${file} ${name}`);
}
for (const r of reexports) {
  if (PUBLIC.has(r.file)) continue;
  const viaThis = [...namedAliases].some((a) => a === r.symbol || (a.flags & ts.SymbolFlags.Alias && nextOf(a) === r.symbol));
  if (!viaThis) report.unusedReexports.push(`${r.file} ${r.name}`);
}
console.log(`exports: ${report.exports}`);
console.log(`used across units: ${report.usedAcrossUnits}`);
console.log(`used only by the public API (src/index.ts, src/testing.ts): ${report.publicOnly.length}`);
console.log(`never imported: ${report.neverImported.length}`);
console.log(`re-exports: ${reexports.filter((r) => !PUBLIC.has(r.file)).length}, never named through: ${report.unusedReexports.length}`);
if (process.argv.includes('--list')) {
  console.log('\n# never imported');
  for (const x of report.neverImported.sort()) console.log(x);
  console.log('\n# re-exports never named through');
  for (const x of report.unusedReexports.sort()) console.log(x);
}
