/**
 * `introducedSyntaxErrors`: after an edit or a write of a source file, the syntax errors the
 * change introduced — those present after it and not before — so an agent learns at once that
 * it broke the file (SWE-agent's finding: an edit tool with a syntax check resolves more tasks).
 * It never refuses anything: the write has happened (or, for a dry run, would happen) and this
 * only reports.
 *
 * Parsing is tree-sitter in WebAssembly, in-process (tools/syntax-grammars.ts), never a spawned
 * compiler. An error is an `ERROR` node (the outermost one) or a `MISSING` node of the tree.
 * "Not before" compares errors by what they are and where in the text they sit (the node's kind,
 * its text and its line's text, as a multiset), not by line number, so lines moving because of
 * the edit do not make old errors look new.
 *
 * Time: the parser runs in slices of `SLICE_STEPS` progress callbacks (a millisecond or two
 * each), yielding to the event loop between slices and resuming where it stopped, and the error
 * nodes are gathered from the tree in slices of `COLLECT_SLICE_NODES` nodes, so no call blocks
 * the loop for long whatever the file. The work is bounded by counting those callbacks
 * (`PARSE_BUDGET_STEPS`, deterministic for the same text: no clock), and files over
 * `SYNTAX_MAX_CHARS` are not parsed; both answer `checked: false` with the reason. The file
 * before the change is parsed only when the file after it has errors. Measured on a 100 KB JSON
 * file with an error: ~30 ms of CPU for both parses and the report; the first check of a
 * process also loads the runtime (~30–50 ms to evaluate its module, ~20 ms to instantiate it).
 *
 * Availability: tree-sitter's packages are optional dependencies (tools/syntax-grammars.ts);
 * where they are not installed the report says so (`checked: false`, the reason naming the
 * package) and the edit or write stands.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';
import { type Grammars, SyntaxCheckUnavailable, installedGrammars, languageOf } from './syntax-grammars.js';
import { lineStarts } from './text/index.js';

/** One syntax error: its place (1-based line and column, in characters) and what it is. */
interface SyntaxProblem {
  line: number;
  column: number;
  message: string;
}

/** What the syntax check found for one change of a source file. */
export interface SyntaxReport {
  /** The grammar the file was parsed with ('typescript', 'python', …). */
  language: string;
  /** False when the file was not parsed; `reason` says why. */
  checked: boolean;
  reason?: string;
  /** The errors present after the change and not before, in file order (the first `MAX_REPORTED`). */
  introduced: SyntaxProblem[];
  /** How many errors the change introduced in all. */
  introducedCount: number;
}

/** The JSON Schema of a `SyntaxReport`, for the output schemas of edit and write. */
export const SyntaxReportSchema = Type.Object({
  language: Type.String(),
  checked: Type.Boolean(),
  reason: Type.Optional(Type.String()),
  introduced: Type.Array(Type.Object({ line: Type.Integer(), column: Type.Integer(), message: Type.String() })),
  introducedCount: Type.Integer(),
});

/** Largest text parsed, in characters. */
const SYNTAX_MAX_CHARS = 1024 * 1024;
/** Progress callbacks of the parser per slice between two yields to the event loop. */
const SLICE_STEPS = 20;
/** Tree nodes looked at per slice while the errors are gathered. */
const COLLECT_SLICE_NODES = 2000;
/** Progress callbacks one parse may take in all before the check gives up. */
const PARSE_BUDGET_STEPS = 6000;
const MAX_REPORTED = 20;
const MAX_COLLECTED = 500;

/**
 * The syntax errors `after` has and `before` had not, for the file at `path`; undefined when
 * the file is not a source file tree-sitter knows here (by extension). `before` undefined: the
 * file is new, every error is introduced. `grammars`: where tree-sitter comes from (the installed
 * packages; a test passes absent ones). Never rejects.
 */
export async function introducedSyntaxErrors(
  path: string,
  before: string | undefined,
  after: string,
  grammars: Grammars = installedGrammars,
): Promise<SyntaxReport | undefined> {
  const language = languageOf(path);
  if (language === undefined) return undefined;
  const skipped = (reason: string): SyntaxReport => ({ language, checked: false, reason, introduced: [], introducedCount: 0 });
  if (after.length > SYNTAX_MAX_CHARS) return skipped(`the file is over ${SYNTAX_MAX_CHARS} characters; not parsed`);
  let parser: TreeSitter.Parser;
  try {
    parser = await grammars.parserFor(language);
  } catch (e) {
    return skipped(e instanceof SyntaxCheckUnavailable ? e.message : `the ${language} grammar could not be loaded`);
  }
  try {
    const afterErrors = await errorsOf(parser, after);
    if (afterErrors === undefined) return skipped('parsing took more than its work budget; not checked');
    if (afterErrors.length === 0) return { language, checked: true, introduced: [], introducedCount: 0 };
    let beforeErrors: Located[] = [];
    if (before !== undefined) {
      const found = before.length > SYNTAX_MAX_CHARS ? undefined : await errorsOf(parser, before);
      if (found === undefined) return skipped('the file before the change could not be parsed within the limits; not compared');
      beforeErrors = found;
    }
    const seen = new Map<string, number>();
    for (const e of beforeErrors) seen.set(e.key, (seen.get(e.key) ?? 0) + 1);
    const introduced: SyntaxProblem[] = [];
    let count = 0;
    for (const e of afterErrors) {
      const left = seen.get(e.key) ?? 0;
      if (left > 0) {
        seen.set(e.key, left - 1);
        continue;
      }
      count++;
      if (introduced.length < MAX_REPORTED) introduced.push(e.problem);
    }
    return { language, checked: true, introduced, introducedCount: count };
  } catch {
    return skipped('the parser failed');
  } finally {
    parser.delete();
  }
}

interface Located {
  key: string;
  problem: SyntaxProblem;
}

/** The errors of `text` in order, or undefined past the work budget. */
async function errorsOf(parser: TreeSitter.Parser, text: string): Promise<Located[] | undefined> {
  const tree = await slicedParse(parser, text);
  if (tree === undefined) return undefined;
  try {
    if (!tree.rootNode.hasError) return [];
    return await collect(tree.rootNode, text, lineStarts(text));
  } finally {
    tree.delete();
  }
}

/** Parses in slices, yielding between them; undefined once `PARSE_BUDGET_STEPS` are spent. */
async function slicedParse(parser: TreeSitter.Parser, text: string): Promise<TreeSitter.Tree | undefined> {
  parser.reset();
  let total = 0;
  for (;;) {
    let steps = 0;
    // The runtime cancels the parse when the callback returns true (its typings say void).
    const progressCallback = (() => {
      steps++;
      return steps >= SLICE_STEPS || total + steps >= PARSE_BUDGET_STEPS;
    }) as unknown as () => void;
    const tree = parser.parse(text, null, { progressCallback });
    if (tree) return tree;
    total += steps;
    if (total >= PARSE_BUDGET_STEPS) {
      parser.reset();
      return undefined;
    }
    await yieldToLoop();
  }
}

/**
 * The outermost ERROR nodes and every MISSING node under `root`, in order (the first
 * `MAX_COLLECTED`): a depth-first walk of the nodes that hold an error, with a stack of its own,
 * taking children one at a time (`node.children` builds them all at once: the 100,000 elements
 * of a large JSON array) and yielding every `COLLECT_SLICE_NODES` nodes.
 */
async function collect(root: TreeSitter.Node, text: string, starts: readonly number[]): Promise<Located[]> {
  const out: Located[] = [];
  const stack: { node: TreeSitter.Node; next: number }[] = [{ node: root, next: -1 }];
  let looked = 0;
  while (stack.length > 0 && out.length < MAX_COLLECTED) {
    const top = stack[stack.length - 1];
    if (top.next === -1) {
      top.next = 0;
      const { node } = top;
      if (node.isMissing || node.isError) out.push(locate(node, text, starts));
      if (node.isError || !node.hasError) stack.pop();
      continue;
    }
    if (top.next >= top.node.childCount) {
      stack.pop();
      continue;
    }
    const child = top.node.child(top.next++);
    if (child) stack.push({ node: child, next: -1 });
    if (++looked % COLLECT_SLICE_NODES === 0) await yieldToLoop();
  }
  return out;
}

function locate(node: TreeSitter.Node, text: string, starts: readonly number[]): Located {
  const at = node.startIndex;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  const lineStart = starts.length === 0 ? 0 : starts[lo];
  const nl = text.indexOf('\n', lineStart);
  const lineText = text
    .slice(lineStart, nl === -1 ? text.length : nl)
    .trim()
    .slice(0, 160);
  const own = node.text;
  const nlOwn = own.indexOf('\n');
  const firstLine = (nlOwn === -1 ? own : own.slice(0, nlOwn)).trim();
  const shown = firstLine.length > 40 ? `${firstLine.slice(0, 40)}…` : firstLine;
  const message = node.isMissing
    ? `missing ${JSON.stringify(node.type)}`
    : shown === ''
      ? 'syntax error'
      : `unexpected ${JSON.stringify(shown)}`;
  return {
    key: `${node.isMissing ? 'missing' : 'error'}|${node.type}|${own.slice(0, 80)}|${lineText}`,
    problem: { line: lo + 1, column: at - lineStart + 1, message },
  };
}
