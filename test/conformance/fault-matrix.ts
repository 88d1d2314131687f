/**
 * The fault-injection step of the conformance suite: the layer promise "a write does the whole
 * change or throws, changing nothing" must hold when a store below the stack fails.
 *
 * For each operation, a clean run counts the calls the stack makes to the stores below it
 * (./faulty-layer.ts) and records the outcome and the tree hashes after it. Then, for every
 * call index and every fault kind (`INTERNAL`, an `EIO` turned `INTERNAL`, `BUSY`), a fresh
 * stack runs the same operation with that call failing once. Each run must end one of two ways:
 * - complete: the clean outcome, and the view and every store exactly as after the clean run;
 * - failed with the injected code (never turned into `NOT_FOUND`, `ALREADY_EXISTS`, …), and
 *   the view and every store exactly as before.
 * Reads must answer what the clean run answered, or fail with the injected code. Where the
 * stack keeps durable state (the overlay's whiteout record), the stack opened again over the
 * same stores must show what the stack shows.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { isVfsError } from '../../vfs/errors.js';
import type { Layer, WritableLayer } from '../../vfs/layer.js';
import { FIXTURE_FILES, hashLayer } from './fixture.js';
import { FAULT_KINDS, FaultPlan, codeOf } from './faulty-layer.js';

/** One stack built over faulty stores. */
export interface FaultStack {
  /** The stack under test. */
  layer: WritableLayer;
  /** Hashes of every store below the stack (read without faults). */
  stores(): Promise<string[]>;
  /** The same stack opened again over the same stores, when it keeps durable state of its own. */
  reopen?(): Promise<Layer>;
}

/** A stack to put under fault injection. */
export interface FaultTarget {
  name: string;
  /** Builds a fresh stack whose stores all count on `plan` (unarmed while it is built). */
  build(plan: FaultPlan): Promise<FaultStack>;
}

interface Operation {
  name: string;
  run(layer: WritableLayer): Promise<unknown>;
}

const X = new TextEncoder().encode('changed\n');

/** The write operations run at every call index (paths chosen to cross copy-ups, whiteouts and hidden names). */
export const WRITE_OPERATIONS: readonly Operation[] = [
  { name: 'writeFile creating a file', run: (l) => l.writeFile('src/new.ts', X) },
  { name: 'writeFile creating a file in a deep folder', run: (l) => l.writeFile('src/nested/deep/new.txt', X) },
  { name: 'writeFile replacing a file', run: (l) => l.writeFile('src/a.ts', X) },
  { name: 'writeFile replacing README.md', run: (l) => l.writeFile('README.md', X) },
  { name: 'writeFile exclusive', run: (l) => l.writeFile('docs/new.md', X, { exclusive: true }) },
  { name: 'writeFile ifMatch', run: (l) => l.writeFile('src/b.ts', X, { ifMatch: FIXTURE_FILES.get('src/b.ts')! }) },
  { name: 'writeFile onto a hidden name', run: (l) => l.writeFile('src/hidden.ts', X) },
  { name: 'writeFile onto a hidden name in an allowed folder', run: (l) => l.writeFile('private/notes.md', X) },
  { name: 'mkdir', run: (l) => l.mkdir('src/made') },
  { name: 'mkdir of a hidden folder', run: (l) => l.mkdir('secret') },
  { name: 'remove a file', run: (l) => l.remove('src/a.ts') },
  { name: 'remove README.md', run: (l) => l.remove('README.md') },
  { name: 'remove an empty folder', run: (l) => l.remove('empty') },
  { name: 'remove a folder that is not empty', run: (l) => l.remove('src') },
  { name: 'remove a hidden file', run: (l) => l.remove('src/hidden.ts') },
  { name: 'remove ifMatch', run: (l) => l.remove('src/b.ts', { ifMatch: FIXTURE_FILES.get('src/b.ts')!, fileOnly: true }) },
  { name: 'remove fileOnly of a folder', run: (l) => l.remove('empty', { fileOnly: true }) },
  { name: 'rename a file', run: (l) => l.rename('src/a.ts', 'src/renamed.ts') },
  { name: 'rename a file into another folder', run: (l) => l.rename('README.md', 'docs/README.md') },
  { name: 'rename a file into a new place in a deep folder', run: (l) => l.rename('src/b.ts', 'src/nested/deep/b.ts') },
  { name: 'rename over a file (overwrite)', run: (l) => l.rename('src/a.ts', 'src/b.ts', { overwrite: true }) },
  { name: 'rename onto a hidden name', run: (l) => l.rename('src/a.ts', 'src/hidden.ts', { overwrite: true }) },
  { name: 'rename a folder of the base', run: (l) => l.rename('src/nested', 'moved') },
  { name: 'rename a folder re-created in the upper', run: (l) => l.rename('docs', 'manual') },
];

/** The reads run at every call index. */
export const READ_OPERATIONS: readonly Operation[] = [
  { name: 'stat', run: (l) => l.stat('src/a.ts') },
  { name: 'readFile', run: (l) => l.readFile('README.md') },
  { name: 'readdir', run: (l) => l.readdir('src') },
  { name: 'readdir of the root', run: (l) => l.readdir('') },
  { name: 'stat of a hidden file', run: (l) => l.stat('src/hidden.ts') },
  { name: 'stat of a hidden file in an allowed folder', run: (l) => l.stat('private/notes.md') },
  { name: 'readFile of a hidden file', run: (l) => l.readFile('secret/key.pem') },
];

/** What an operation gave, comparable across runs (bytes hashed, a stat without its time). */
async function outcomeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    const value = await run();
    if (value instanceof Uint8Array) return `bytes ${createHash('sha256').update(value).digest('hex')}`;
    if (value && typeof value === 'object' && 'mtimeMs' in value) return `ok ${JSON.stringify({ ...value, mtimeMs: 0 })}`;
    return `ok ${JSON.stringify(value ?? null)}`;
  } catch (e) {
    return isVfsError(e) ? `error ${e.code}` : `not a VfsError: ${String(e)}`;
  }
}

/** The view, the stores and (when the stack reopens) the reopened view, read without faults. */
async function stateOf(stack: FaultStack): Promise<string[]> {
  const reopened = stack.reopen ? await hashLayer(await stack.reopen()) : undefined;
  const view = await hashLayer(stack.layer);
  if (reopened !== undefined && reopened !== view) return ['the reopened stack differs from the stack', view, reopened];
  return [view, ...(await stack.stores())];
}

/** Runs `op` on a fresh stack, the call `index` failing with `kind` (index -1: no fault). */
async function runOnce(target: FaultTarget, op: Operation, index: number, kind: (typeof FAULT_KINDS)[number]) {
  const plan = new FaultPlan();
  const stack = await target.build(plan);
  if (index < 0) plan.disarm();
  else plan.arm(index, kind);
  const outcome = await outcomeOf(() => op.run(stack.layer));
  const calls = plan.calls;
  plan.disarm();
  return { outcome, calls, state: await stateOf(stack) };
}

/** Registers the fault-injection matrix of one target (one test per operation). */
export function faultMatrix(target: FaultTarget): void {
  describe(`fault injection: ${target.name}`, () => {
    for (const op of [...WRITE_OPERATIONS, ...READ_OPERATIONS]) {
      it(`${op.name}: completes or fails with the injected code, changing nothing, whichever call fails`, async () => {
        const before = await stateOf(await target.build(new FaultPlan()));
        const clean = await runOnce(target, op, -1, 'INTERNAL');
        expect(clean.state[0]).not.toBe('the reopened stack differs from the stack');
        const wrong: string[] = [];
        for (let index = 0; index < clean.calls; index++) {
          for (const kind of FAULT_KINDS) {
            const run = await runOnce(target, op, index, kind);
            const completed = run.outcome === clean.outcome && sameState(run.state, clean.state);
            const failed = run.outcome === `error ${codeOf(kind)}` && sameState(run.state, before);
            if (!completed && !failed) {
              const changed = sameState(run.state, before)
                ? 'nothing changed'
                : sameState(run.state, clean.state)
                  ? 'state as after a clean run'
                  : `changed: ${differences(run.state, before)}`;
              wrong.push(`call ${index} failing with ${kind}: ${run.outcome} (clean: ${clean.outcome}), ${changed}`);
            }
          }
        }
        expect(wrong).toEqual([]);
      });
    }
  });
}

/** Which parts of a state differ from `before` ('view', 'store 0', …), for the failure message. */
function differences(state: string[], before: string[]): string {
  if (state[0] === 'the reopened stack differs from the stack') return 'the reopened stack differs from the stack';
  return state
    .map((h, i) => (h === before[i] ? '' : i === 0 ? 'view' : `store ${i - 1}`))
    .filter(Boolean)
    .join(', ');
}

function sameState(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((h, i) => h === b[i]);
}
