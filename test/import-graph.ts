/**
 * The import graph of gatefs's sources for test/architecture.test.ts: every module specifier
 * of every file, read with the TypeScript parser (so comments and strings are never taken for
 * imports), resolved to a unit, and the folder cycles of the graph.
 *
 * A unit is `vfs`, `tools`, a folder of tools/ named in `TOOLS_UNITS` (`tools/patterns`, `tools/text`), a
 * folder of src/ (`src/git`, …) or a file directly in src/ (`src/index`, `src/workspace-error`);
 * in a folder split into rooms (`ROOMED`: `src/host`), each room is a unit (`src/host/lifecycle`,
 * …). Any other folder of tools/ is part of `tools`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One import of one file: where it is, what it names, and the unit it reaches (null: a package). */
export interface Import {
  file: string;
  line: number;
  specifier: string;
  from: string;
  to: string | null;
  /** The repository path a relative specifier resolves to. */
  target?: string;
  /** How it loads: `static` at load time, `dynamic` when an `import()` runs, `type` never (erased). Unset: static. */
  form?: ImportForm;
  /** The names it takes (`import { a, b as c }`: a, b; `export { a } from`: a; a default import: default); unset when not listed (`import * as`, `import()`). */
  names?: readonly string[];
}

/**
 * Folders of src/ split into rooms: each folder inside is a unit of its own (a file directly in
 * the folder belongs to the folder's unit).
 */
export const ROOMED: readonly string[] = ['src/host'];

/** How an import loads its module (see `Import.form`). */
export type ImportForm = 'static' | 'dynamic' | 'type';

/** The folders of tools/ that are units of their own, with their own rules (test/architecture.test.ts). */
export const TOOLS_UNITS: readonly string[] = ['tools/patterns', 'tools/text'];

/** The unit of a repository path (see the file comment); null outside the scanned folders. */
export function unitOf(path: string): string | null {
  const parts = path.split('/');
  if (parts[0] === 'tools' && parts.length > 2 && TOOLS_UNITS.includes(`tools/${parts[1]}`)) return `tools/${parts[1]}`;
  if (parts[0] === 'vfs' || parts[0] === 'tools') return parts[0];
  if (parts[0] !== 'src' || parts.length < 2) return null;
  if (parts.length === 2) return `src/${parts[1].replace(/\.ts$/, '')}`;
  const unit = `src/${parts[1]}`;
  return ROOMED.includes(unit) && parts.length > 3 ? `${unit}/${parts[2]}` : unit;
}

/**
 * True for `new URL('<x>.js', import.meta.url)`: a module of this package named by URL, to be
 * started as a worker or loaded by one (vfs/worker-pool.ts and its programs): an import too.
 */
function isModuleUrl(node: ts.Node): node is ts.NewExpression {
  if (!ts.isNewExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== 'URL') return false;
  const [specifier, base] = node.arguments ?? [];
  return (
    specifier !== undefined &&
    ts.isStringLiteralLike(specifier) &&
    specifier.text.endsWith('.js') &&
    base !== undefined &&
    ts.isPropertyAccessExpression(base) &&
    ts.isMetaProperty(base.expression) &&
    base.name.text === 'url'
  );
}

/**
 * Every module specifier of a source text, with its line: what the compiled module loads or
 * names, including the modules it names by URL (`isModuleUrl`, loaded at run time: `dynamic`), with its form.
 */
export function specifiersOf(
  fileName: string,
  text: string,
): { specifier: string; line: number; form: ImportForm; names?: readonly string[] }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const found: { specifier: string; line: number; form: ImportForm; names?: readonly string[] }[] = [];
  const add = (node: ts.Node | undefined, form: ImportForm, names?: readonly string[]) => {
    if (node && ts.isStringLiteralLike(node))
      found.push({
        specifier: node.text,
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        form,
        ...(names && { names }),
      });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, isTypeOnlyImport(node) ? 'type' : 'static', importedNames(node));
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, node.isTypeOnly ? 'type' : 'static', reexportedNames(node));
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression, node.isTypeOnly ? 'type' : 'static');
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], 'dynamic');
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, 'type');
    else if (isModuleUrl(node)) add(node.arguments![0], 'dynamic');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The names an import declaration takes, or undefined for `import * as` and a bare `import '…'`. */
function importedNames(node: ts.ImportDeclaration): string[] | undefined {
  const clause = node.importClause;
  if (!clause || (clause.namedBindings && !ts.isNamedImports(clause.namedBindings))) return undefined;
  const named = clause.namedBindings?.elements.map((e) => (e.propertyName ?? e.name).text) ?? [];
  return clause.name ? ['default', ...named] : named;
}

/** The names an `export { … } from` takes from its module, or undefined for `export * from`. */
function reexportedNames(node: ts.ExportDeclaration): string[] | undefined {
  const clause = node.exportClause;
  return clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : undefined;
}

/**
 * True for `import type …` and for `import { type A, type B } from …` (every name a type, no
 * default): TypeScript erases both. An import of names used only as types but not marked so is
 * taken as loading its module, the safe side for a rule about what loads.
 */
function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    !clause.name &&
    named !== undefined &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

/**
 * Every string literal of a source text that names a program to run and matches `program`:
 * the first element of an array (an argv), the first argument of a call (`spawn('git', …)`),
 * or a value stored for later (a variable's or a property's initial value). A comparison
 * (`dialect === 'git'`) or a type (`'glob' | 'git'`) names no program and is not reported.
 */
export function programLiteralsOf(fileName: string, text: string, program: RegExp): { text: string; line: number }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const found: { text: string; line: number }[] = [];
  const runs = (node: ts.StringLiteralLike): boolean => {
    const parent = node.parent;
    if (ts.isArrayLiteralExpression(parent)) return parent.elements[0] === node;
    if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) return parent.arguments?.[0] === node;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.initializer === node;
    return false;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) && program.test(node.text) && runs(node))
      found.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Every place a source text names the global `name` (`process`): the identifier anywhere but as
 * a property's name (`x.process`, `{ process: … }`, `process?: …`), and `globalThis.<name>`. A
 * local declared with that name is reported too (it reads like the global): name it otherwise.
 */
export function globalUsesOf(fileName: string, text: string, name: string): { text: string; line: number }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const found: { text: string; line: number }[] = [];
  const isPropertyName = (node: ts.Identifier): boolean => {
    const parent = node.parent;
    if (ts.isPropertyAccessExpression(parent)) return parent.name === node && !isGlobalThis(parent.expression);
    if (ts.isBindingElement(parent) || ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) return parent.propertyName === node;
    if (ts.isQualifiedName(parent)) return parent.right === node;
    const named =
      ts.isPropertyAssignment(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isMethodSignature(parent) ||
      ts.isGetAccessorDeclaration(parent) ||
      ts.isSetAccessorDeclaration(parent) ||
      ts.isEnumMember(parent);
    return named && parent.name === node;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === name && !isPropertyName(node)) {
      const at = ts.isPropertyAccessExpression(node.parent) && node.parent.name === node ? node.parent : node;
      found.push({ text: at.getText(source), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** True for the expression `globalThis`. */
function isGlobalThis(node: ts.Expression): boolean {
  return ts.isIdentifier(node) && node.text === 'globalThis';
}

/** Every .ts file under `folders` of `root`, as repository paths. */
export function scanFiles(root: string, folders: readonly string[]): string[] {
  return folders.flatMap((top) =>
    readdirSync(join(root, top), { recursive: true, encoding: 'utf8' })
      .filter((entry) => entry.endsWith('.ts'))
      .map((entry) => `${top}/${entry.split('\\').join('/')}`),
  );
}

/** The imports of `files` (repository paths under `root`), in file order. */
export function scanImports(root: string, files: readonly string[]): Import[] {
  const imports: Import[] = [];
  for (const file of files) {
    const from = unitOf(file)!;
    for (const { specifier, line, form, names } of specifiersOf(file, readFileSync(join(root, file), 'utf8'))) {
      if (!specifier.startsWith('.')) {
        imports.push({ file, line, specifier, from, to: null, form });
        continue;
      }
      const target = relative(root, resolve(root, dirname(file), specifier))
        .split('\\')
        .join('/')
        .replace(/\.js$/, '.ts');
      imports.push({ file, line, specifier, from, to: unitOf(target) ?? target, target, form, ...(names && { names }) });
    }
  }
  return imports;
}

/** The package an import names (`@scope/name` or `name`), or the builtin itself. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * The folder cycles: for each strongly connected group of units (Tarjan), the shortest cycle
 * through each of its units, each as a path a → b → … → a, rotations dropped.
 */
export function cyclesOf(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const strong = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1) groups.push(group);
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) strong(v);
  const cycles = new Map<string, string[]>();
  for (const group of groups) {
    for (const unit of group.sort()) {
      const cycle = pathThrough(unit, group, edges);
      const first = cycle.indexOf([...cycle].sort()[0]);
      const rotated = [...cycle.slice(first, -1), ...cycle.slice(0, first), cycle[first]];
      cycles.set(rotated.join(' → '), rotated);
    }
  }
  return [...cycles.values()];
}

/** The shortest cycle from `start` back to it inside one strongly connected group (breadth-first). */
function pathThrough(start: string, group: string[], edges: Map<string, Set<string>>): string[] {
  const came = new Map<string, string>();
  const queue = [start];
  for (let v = queue.shift(); v !== undefined; v = queue.shift()) {
    for (const w of [...(edges.get(v) ?? [])].sort()) {
      if (!group.includes(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at: string | undefined = v; at !== start && at !== undefined; at = came.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!came.has(w)) {
        came.set(w, v);
        queue.push(w);
      }
    }
  }
  return group;
}

/** The files `entries` load at once: the entries and every file reached from them by static imports (not `import()`, not types). */
export function staticClosure(imports: readonly Import[], entries: readonly string[]): Set<string> {
  const reached = new Set(entries);
  const queue = [...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const i of imports) {
      if (i.file !== file || i.target === undefined || (i.form ?? 'static') !== 'static' || reached.has(i.target)) continue;
      reached.add(i.target);
      queue.push(i.target);
    }
  }
  return reached;
}

/**
 * The names a module exports by `export { … }` (re-exports included: a door's entries) and by
 * `export` on a declaration; `export *` is not listed (a door names what it lets through).
 */
export function exportedNamesOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  return source.statements.flatMap((node) => {
    if (ts.isExportDeclaration(node)) {
      const clause = node.exportClause;
      return clause && ts.isNamedExports(clause) ? clause.elements.map((e) => e.name.text) : [];
    }
    const exported = ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) return [];
    if (ts.isVariableStatement(node))
      return node.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
    const name = (node as ts.DeclarationStatement).name;
    return name && ts.isIdentifier(name) ? [name.text] : [];
  });
}
