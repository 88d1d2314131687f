/**
 * The run log's catalogue (src/state/run-log-events.ts) against the source: every event type it
 * lists is emitted somewhere, and every event the source emits is listed. The type system makes
 * `runLog.append` refuse a type the catalogue lacks; this test reads the source with the
 * TypeScript parser so that the list and the code also agree the other way, and fail together
 * when someone adds an event without listing it (or lists one nothing emits).
 *
 * An emitted event is an object literal of `type` (a string literal), `data` and optionally
 * `conversation`, and nothing else: the shape of a draft (`{ type, conversation, data }`) and of
 * an event body (`{ type, data }`, the lander's and the lower folders' steps). Every emitter in
 * vfs/, tools/ and src/ writes its events in that shape.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { RUN_EVENT_DOCS, RUN_EVENT_TYPES } from '../../src/state/run-log-events.js';
import { FAILURE_EVENT_TYPES, isFailureEvent } from '../../src/state/run-log-failures.js';
import { summarizeEvent } from '../../src/state/event-summary.js';
import { scanFiles } from '../import-graph.js';

const ROOT = join(import.meta.dirname, '../..');
const CATALOGUE = 'src/state/run-log-events.ts';

/** Each event literal in `text` (see the file comment): its type and line. */
function emittedIn(fileName: string, text: string): { type: string; line: number }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { type: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const event = eventOf(node);
      if (event !== null) found.push({ type: event, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The event type of `node` when it is an event literal, else null. */
function eventOf(node: ts.ObjectLiteralExpression): string | null {
  const names = node.properties.map((p) => (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p) ? p.name.getText() : null));
  if (!names.includes('type') || !names.includes('data')) return null;
  if (!names.every((n) => n === 'type' || n === 'data' || n === 'conversation')) return null;
  const type = node.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === 'type');
  return type && ts.isStringLiteralLike(type.initializer) ? type.initializer.text : null;
}

const files = scanFiles(ROOT, ['vfs', 'tools', 'src']).filter((f) => f !== CATALOGUE);
const emitted = files.flatMap((file) => emittedIn(file, readFileSync(join(ROOT, file), 'utf8')).map((e) => ({ ...e, file })));

describe('the run-log catalogue', () => {
  it('finds event literals in drafts and bodies, and not in other objects with a type and data', () => {
    const text = [
      "store.runLog.append({ type: 'work.commit', conversation, data: { sha, files: 1 } });",
      "this.record(sub, { state: 'merging' }, { type: 'lander.merging', data: { submission: sub.id, attempt } });",
      "return { type: 'tool_call', conversation, data: { tool, outcome, durationMs } };",
      "const image = { type: 'image', data: value.data, mimeType: value.mimeType };",
      "const entry = { type: 'blob', path, oid };",
      'const moved = { type, conversation, data };',
    ].join('\n');
    expect(emittedIn('src/x.ts', text)).toEqual([
      { type: 'work.commit', line: 1 },
      { type: 'lander.merging', line: 2 },
      { type: 'tool_call', line: 3 },
    ]);
  });

  it('every type emitted in the source is listed', () => {
    const listed = new Set<string>(RUN_EVENT_TYPES);
    expect(
      emitted.filter((e) => !listed.has(e.type)).map((e) => `${e.file}:${e.line} emits '${e.type}', which the catalogue does not list`),
    ).toEqual([]);
    expect(emitted.length).toBeGreaterThan(RUN_EVENT_TYPES.length);
  });

  it('every type listed is emitted somewhere in the source', () => {
    const seen = new Set(emitted.map((e) => e.type));
    expect(RUN_EVENT_TYPES.filter((t) => !seen.has(t))).toEqual([]);
  });

  it("is linked from the README's section on the run log", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Watch what happens'), readme.indexOf('## Use it as a library'));
    expect(section).toContain(`](${CATALOGUE})`);
  });

  it('documents every type in one line', () => {
    expect(RUN_EVENT_TYPES.length).toBeGreaterThan(40);
    for (const type of RUN_EVENT_TYPES) {
      expect(RUN_EVENT_DOCS[type].length, type).toBeGreaterThan(30);
      expect(RUN_EVENT_DOCS[type], type).not.toContain('\n');
    }
  });
});

describe('which records are failures (gatefs log --failed)', () => {
  const exec = (data: Record<string, unknown>) => ({
    type: 'exec',
    data: { tag: 'prepare', argv: ['git'], exitCode: 0, signal: null, timedOut: false, ...data },
  });

  it('names only types of the catalogue, and every type whose name says it failed, was refused or undone', () => {
    for (const type of FAILURE_EVENT_TYPES) expect(RUN_EVENT_TYPES, type).toContain(type);
    const named = RUN_EVENT_TYPES.filter((t) =>
      /failed|refused|aborted|undone|unavailable|unusable|blocked|unreachable|rolled_back/.test(t),
    );
    expect(named.filter((t) => !FAILURE_EVENT_TYPES.has(t))).toEqual([]);
    for (const type of ['prepare.ready', 'lander.landed', 'release', 'host.start', 'occupancy.acquire', 'progressive_disclosure'])
      expect(isFailureEvent({ type, data: {} }), type).toBe(false);
  });

  it('a tool call is a failure when its outcome is not ok', () => {
    expect(isFailureEvent({ type: 'tool_call', data: { tool: 'read', outcome: 'ok' } })).toBe(false);
    expect(isFailureEvent({ type: 'tool_call', data: { tool: 'read', outcome: 'NOT_FOUND' } })).toBe(true);
  });

  it("a sandboxed command fails on any non-zero exit; gatefs's own git only when killed, timed out or not run", () => {
    expect(isFailureEvent(exec({ sandboxed: true, exitCode: 0 }))).toBe(false);
    expect(isFailureEvent(exec({ sandboxed: true, exitCode: 1 }))).toBe(true);
    expect(isFailureEvent(exec({ sandboxed: true, exitCode: null, limit: 'memory' }))).toBe(true);
    expect(isFailureEvent(exec({ exitCode: 1 }))).toBe(false);
    expect(isFailureEvent(exec({ exitCode: null, signal: 'SIGKILL' }))).toBe(true);
    expect(isFailureEvent(exec({ exitCode: null, timedOut: true }))).toBe(true);
    expect(isFailureEvent(exec({ exitCode: null, error: 'ENOENT' }))).toBe(true);
  });
});

describe('the one-line summary (the status page, gatefs log --tail)', () => {
  it("shows which git command ran: gatefs's safety settings folded, the subcommand within the cut", () => {
    const argv = ['git', '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.splitIndex=false'];
    const line = summarizeEvent({ tag: 'prepare', argv: [...argv, 'worktree', 'add', '-b', 'gatefs/c', 'x'], exitCode: 0 }, 160);
    expect(line).toBe('tag=prepare argv="git [3 -c settings] worktree add -b gatefs/c x" exitCode=0');
    expect(summarizeEvent({ argv: ['/bin/sh', '-c', 'npm test'] })).toBe('argv="/bin/sh -c npm test"');
  });
});
