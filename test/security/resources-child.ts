/**
 * Test support: a real host in a child process, for the descriptor tests (the test starts it
 * under `prlimit --nofile=N`, or lets it use up its descriptors itself). Run from its source by
 * resources.test.ts (test/run-typescript.ts) with one JSON argument:
 * `{ repo, manifest, steps }`. Each step prints one JSON line `{ op, out }` or `{ op, error }`.
 *
 * Steps: `prepare` (conversation), `chain` (makes a deep chain in the conversation's worktree:
 * `depth`, `sideEvery`, `bottom`), `call` (tool, args), `parallel` (several calls at once),
 * `hog` (opens /dev/null until EMFILE, then closes `leave` of them: a real descriptor
 * shortage), `unhog`, `fds` (how many descriptors are open now).
 */
import { closeSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHost } from '../../src/host/composition/create-host.js';
import { makeChain, type ChainOptions } from './deep-chain.js';

interface Step extends Partial<ChainOptions> {
  op: 'prepare' | 'chain' | 'call' | 'parallel' | 'hog' | 'unhog' | 'fds';
  conversation?: string;
  tool?: string;
  args?: unknown;
  calls?: { tool: string; args: unknown }[];
  leave?: number;
  role?: string;
}

const input = JSON.parse(process.argv[2] ?? '{}') as { repo: string; manifest?: object; steps: Step[] };
const host = await createHost({ repo: input.repo, manifest: input.manifest });
const hogged: number[] = [];
const brief = (r: { ok: boolean; value?: unknown; error?: { code: string } }) =>
  r.ok ? { ok: true, value: r.value } : { ok: false, code: r.error!.code };

for (const step of input.steps) {
  try {
    let out: unknown;
    switch (step.op) {
      case 'prepare':
        out = await host.prepare({ conversation: step.conversation!, role: step.role });
        break;
      case 'chain':
        out = makeChain(join(input.repo, '.gatefs/worktrees', step.conversation!), step as ChainOptions);
        break;
      case 'call':
        out = brief(await host.gate.call(step.conversation!, step.tool!, step.args));
        break;
      case 'parallel':
        out = (await Promise.all(step.calls!.map((c) => host.gate.call(step.conversation!, c.tool, c.args)))).map(brief);
        break;
      case 'hog':
        try {
          for (;;) hogged.push(openSync('/dev/null', 'r'));
        } catch (e) {
          if ((e as { code?: string }).code !== 'EMFILE') throw e;
        }
        for (let i = 0; i < (step.leave ?? 0); i++) closeSync(hogged.pop()!);
        out = { hogged: hogged.length };
        break;
      case 'unhog':
        for (const fd of hogged.splice(0)) closeSync(fd);
        out = {};
        break;
      case 'fds':
        out = readdirSync('/proc/self/fd').length;
        break;
    }
    process.stdout.write(`${JSON.stringify({ op: step.op, out })}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ op: step.op, error: (e as { code?: string }).code ?? String(e) })}\n`);
  }
}
for (const fd of hogged.splice(0)) closeSync(fd);
await host.close();
