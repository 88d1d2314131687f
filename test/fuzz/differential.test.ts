/**
 * The differential fuzzer (issue 9, item 9): random sequences of tool calls, link swaps, renames,
 * releases and restarts across three conversations (two worktrees, one copy) and three mounts,
 * run against the real disk host and checked against the model in `model.ts`.
 *
 * CI runs a fixed seed and a few short sequences; `npm run fuzz` runs many longer ones
 * (`GATEFS_FUZZ_RUNS`, `GATEFS_FUZZ_COMMANDS`, `GATEFS_FUZZ_SEED` — a number, or `random`;
 * `GATEFS_FUZZ_SKIP=ConcurrentEdits,Release` leaves command kinds out to look past a known divergence).
 * A failure prints fast-check's shrunk counterexample and the seed/path to replay it.
 */
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { checkInvariants, commandArbitraries, type Real } from './commands.js';
import { initialModel, type Model } from './model.js';
import { makeWorld, SLOTS_PER_CONVERSATION, CONVERSATION_IDS, type World } from './world.js';

const runs = Number(process.env.GATEFS_FUZZ_RUNS ?? 8);
const maxCommands = Number(process.env.GATEFS_FUZZ_COMMANDS ?? 30);
const seedSetting = process.env.GATEFS_FUZZ_SEED ?? '20261201';
const skip = (process.env.GATEFS_FUZZ_SKIP ?? '').split(',').filter(Boolean);
const seed = seedSetting === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(seedSetting);

const totals = new Map<string, number>();
let sequences = 0;

afterAll(() => {
  const ops = [...totals.values()].reduce((a, b) => a + b, 0);
  const detail = [...totals]
    .sort()
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  console.log(`fuzz: seed ${seed}, ${sequences} sequences, ${ops} operations (${detail})`);
});

describe('differential fuzzer: the real host agrees with the model', () => {
  it(
    'random calls, link swaps, renames, releases and restarts never let a conversation see or change what it may not',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commandArbitraries(skip), { maxCommands, size: 'max' }), async (cmds) => {
          const world: World = await makeWorld();
          try {
            const real: Real = {
              world,
              hashes: { outside: world.treeHash(world.outside), ro: world.treeHash(world.ro), repo: world.treeHash(world.repo) },
            };
            const slots = CONVERSATION_IDS.flatMap((c) => Array.from({ length: SLOTS_PER_CONVERSATION }, (_, i) => `slot-${c}-${i}`));
            const model: Model = initialModel({ 's.txt': 'shared start\n', 'counter.txt': `${slots.join('\n')}\n` });
            await fc.asyncModelRun(() => ({ model, real }), cmds);
            checkInvariants(real);
            sequences++;
            for (const [k, v] of model.counts) totals.set(k, (totals.get(k) ?? 0) + v);
          } finally {
            await world.close();
          }
        }),
        { seed, numRuns: runs },
      );
    },
    Math.max(120_000, runs * maxCommands * 2_000),
  );
});
