/**
 * The memory host's promise under random scenarios: the same sequence of calls, releases and
 * preparations gives byte-identical answers and a byte-identical run log, every time — and
 * concurrent calls issued together resolve to the same answers and the same records as well,
 * though not always in the same order among themselves (`inBurstOrder`: a clean-clone CI run,
 * machine otherwise idle, once ordered a copy's `read` and a shared checkout's `edit` of one burst
 * the other way round in the second play of a scenario; the source of real I/O was not found).
 *
 * Once its grammars are loaded: the syntax check's first use of a grammar reads and compiles a
 * wasm file (tools/syntax-grammars.ts), real I/O outside the memory host's ports, whose end can
 * fall anywhere among the calls of a burst and so reorder their run-log records (a burst of a
 * read and a `.ts` write, replayed 60 times in a fresh process: the first play alone ordered them
 * otherwise). The grammars of the files the scenarios write are loaded before the property;
 * after that a check settles in microtasks like the rest of the memory host. So are the modules
 * the tools load on first use: one play of every tool in every workspace comes first (`warmUp`;
 * without it, a burst of a copy's `list` and `edit` came out in either order under load, the
 * first play of the scenario alone).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/state/index.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { ScriptedSandbox } from '../../src/ports/scripted-sandbox.js';
import { installedGrammars, languageOf } from '../../tools/syntax-grammars.js';

const files = {
  'README.md': '# m\nalpha\n',
  'src/a.ts': 'export const a = 1; // alpha\n',
  '.gitignore': 'tmp/\n',
  '.campaign/p.md': 'plan\n',
};
const mounts = [
  { path: '.campaign', writable: false },
  { path: '/data/out', writable: true },
  { path: '/data/ref', writable: false },
];
const tools = ['read', 'grep', 'list', 'edit', 'write', 'exec', 'exec_output'];
const manifest = {
  roles: [
    { name: 'wt', tools, workspace: { backend: 'worktree', mounts } },
    { name: 'cp', tools, workspace: { backend: 'copy', mounts } },
    { name: 'sh', tools, workspace: { backend: 'shared', mounts } },
  ],
};
const folders = { '/data/out': { 'o.txt': 'out alpha\n' }, '/data/ref': { 'r.txt': 'ref\n' } };
const roles = { m1: 'wt', m2: 'cp', m3: 'sh' } as const;
type Conv = keyof typeof roles;

type Step =
  | { op: 'call'; c: Conv; tool: string; args: Record<string, unknown> }
  | { op: 'burst'; calls: { c: Conv; tool: string; args: Record<string, unknown> }[] }
  | { op: 'release'; c: Conv; discard: boolean }
  | { op: 'prepare'; c: Conv };

const conv = fc.constantFrom<Conv>('m1', 'm2', 'm3');
const paths = fc.constantFrom(
  'README.md',
  'src/a.ts',
  'src/new.ts',
  'tmp/x.txt',
  '.campaign/p.md',
  '/data/out/o.txt',
  '/data/ref/r.txt',
  '../m2/README.md',
  '.git/config',
  'gatefs.yaml',
);
const toolCall = fc.oneof(
  fc.record({ tool: fc.constant('read'), args: fc.record({ path: paths }) }),
  fc.record({ tool: fc.constant('write'), args: fc.record({ path: paths, content: fc.constantFrom('alpha\n', 'beta\n', 'x') }) }),
  fc.record({
    tool: fc.constant('edit'),
    args: fc.record({ path: paths, oldString: fc.constantFrom('alpha', 'a', 'zzz'), newString: fc.constantFrom('beta', 'q') }),
  }),
  fc.record({ tool: fc.constant('list'), args: fc.record({ pattern: fc.constantFrom('**', '*.md', 'src/*') }) }),
  fc.record({
    tool: fc.constant('grep'),
    args: fc.record({ pattern: fc.constantFrom('alpha', 'beta', 'a.'), output: fc.constantFrom('files', 'content', 'count') }),
  }),
  fc.record({
    tool: fc.constant('exec'),
    args: fc.record({
      command: fc.constantFrom('true', 'npm test', 'exit 3'),
      cwd: fc.constantFrom('.', 'src', '/data/out'),
      background: fc.boolean(),
    }),
  }),
  fc.record({ tool: fc.constant('exec_output'), args: fc.record({ runId: fc.constantFrom('run-1', 'run-2', 'run-9') }) }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(conv, toolCall).map(([c, t]) => ({ op: 'call' as const, c, ...t })) },
  {
    weight: 1,
    arbitrary: fc
      .array(
        fc.tuple(conv, toolCall).map(([c, t]) => ({ c, ...t })),
        { minLength: 2, maxLength: 6 },
      )
      .map((calls) => ({ op: 'burst' as const, calls })),
  },
  { weight: 1, arbitrary: fc.tuple(conv, fc.boolean()).map(([c, discard]) => ({ op: 'release' as const, c, discard })) },
  { weight: 1, arbitrary: conv.map((c) => ({ op: 'prepare' as const, c })) },
);

/** The scripted commands (the memory host runs no process): every other command exits 0 with no output. */
function sandbox(): ScriptedSandbox {
  const s = new ScriptedSandbox();
  for (let i = 0; i < 50; i++) {
    s.script('npm test', { exitCode: 1, stdout: 'FAIL src/a.test.ts\n', changed: ['/worktrees/m1/coverage/lcov.info'] });
    s.script('exit 3', { exitCode: 3 });
  }
  return s;
}

async function play(steps: Step[]): Promise<string> {
  const host = await createMemoryHost({ files, manifest, folders, sandbox: sandbox() });
  const answers: unknown[] = [];
  /** The run-log records each burst added: [first seq, last seq]. */
  const bursts: [number, number][] = [];
  const lastSeq = () => host.events({ last: 1 })[0]?.seq ?? 0;
  try {
    for (const c of Object.keys(roles) as Conv[]) await host.prepare({ conversation: c, role: roles[c] });
    for (const s of steps) {
      if (s.op === 'call') answers.push(await host.gate.call(s.c, s.tool, s.args));
      else if (s.op === 'burst') {
        const from = lastSeq() + 1;
        answers.push(await Promise.all(s.calls.map((x) => host.gate.call(x.c, x.tool, x.args))));
        bursts.push([from, lastSeq()]);
      } else if (s.op === 'release')
        answers.push(await host.release(s.c, { discard: s.discard } as never).catch((e: { code?: string }) => e.code));
      else
        answers.push(
          await host.prepare({ conversation: s.c, role: roles[s.c] }).then(
            (st) => st.state,
            (e: { code?: string }) => e.code,
          ),
        );
    }
    return JSON.stringify({ answers, events: inBurstOrder(host.events(), bursts), status: host.status() });
  } finally {
    await host.close();
  }
}

/**
 * The run log with the records of each burst's calls in one fixed order (sorted by their text,
 * their `seq` numbers kept in place): calls issued together may finish in either order when one
 * of them meets real I/O, so the order of their records is no promise, while every record, every
 * answer and every step's records outside a burst are.
 */
function inBurstOrder(events: RunEvent[], bursts: readonly [number, number][]): RunEvent[] {
  const out = [...events];
  for (const [from, to] of bursts) {
    const at = out.findIndex((e) => e.seq === from);
    if (at < 0 || to < from) continue;
    const slice = out.slice(at, at + (to - from + 1));
    const texts = slice.map(({ seq: _seq, ...rest }) => JSON.stringify(rest)).sort();
    texts.forEach((text, i) => (out[at + i] = { seq: slice[i]!.seq, ...(JSON.parse(text) as Omit<RunEvent, 'seq'>) } as RunEvent));
  }
  return out;
}

/** Every grammar the scenarios' files need, loaded once (absent tree-sitter: nothing to load). */
async function loadGrammars(): Promise<void> {
  const names = new Set([...Object.keys(files), 'src/new.ts', 'tmp/x.txt', '/data/out/o.txt'].map(languageOf));
  for (const name of names) {
    if (name === undefined) continue;
    const parser = await installedGrammars.parserFor(name).catch(() => undefined);
    parser?.delete();
  }
}

/**
 * One play of every tool in every workspace, before the property: a module or grammar a tool
 * loads on its first use (a dynamic import, a wasm file) is real I/O whose end can fall anywhere
 * among a burst's calls, as the grammars' can (see the file comment).
 */
async function warmUp(): Promise<void> {
  const everything: Step[] = (Object.keys(roles) as Conv[]).map((c) => ({
    op: 'burst' as const,
    calls: [
      { c, tool: 'list', args: { pattern: '**' } },
      { c, tool: 'grep', args: { pattern: 'alpha', output: 'content' } },
      { c, tool: 'read', args: { path: 'README.md' } },
      { c, tool: 'edit', args: { path: 'README.md', oldString: 'alpha', newString: 'q' } },
      { c, tool: 'write', args: { path: 'src/new.ts', content: 'x' } },
      { c, tool: 'exec', args: { command: 'npm test', cwd: 'src', background: true } },
      { c, tool: 'exec_output', args: { runId: 'run-1' } },
    ],
  }));
  await play(everything);
}

describe('memory host determinism under random scenarios', () => {
  beforeAll(async () => {
    await loadGrammars();
    await warmUp();
  });

  it('the same scenario gives byte-identical answers, status and run log', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), async (steps) => {
        const one = await play(steps);
        const two = await play(steps);
        expect(two).toBe(one);
      }),
      { seed: 20261201, numRuns: Number(process.env.GATEFS_FUZZ_RUNS ?? 25) },
    );
  });
});
