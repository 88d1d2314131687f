/**
 * Test support: a host in a child process. The test runs this file (test/host/child-process.ts)
 * with one JSON argument: `{ repo, stateDir?, manifest?, steps }`. Each step's outcome is
 * printed as one JSON line; a thrown error prints `{ error: code }` and goes on. `acquire`
 * occupies a conversation as this process; `hang` prints its line and then waits forever (for
 * the test to kill the process while it holds what it took). `land` runs the lander once; with
 * `crashAt` (a lander save point) the process kills itself with SIGKILL the `crashAfter`-th
 * time (default 1st) the lander reaches that point. With `holdExec`, the first command whose
 * argv holds that word prints `{ op: 'exec-held' }` and never ends (for the test to kill the
 * process in the middle of it).
 */
import { createHost } from '../../src/host/composition/create-host.js';
import { ExecCheckRunner } from '../../src/ports/check-runner.js';
import type { ExecRequest, ExecResult, HostExec } from '../../src/ports/host-exec.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';

interface Step {
  op: 'prepare' | 'call' | 'status' | 'release' | 'acquire' | 'hang' | 'land';
  conversation?: string;
  role?: string;
  tool?: string;
  args?: unknown;
  holder?: string;
  discard?: boolean;
}

const input = JSON.parse(process.argv[2] ?? '{}') as {
  repo: string;
  stateDir?: string;
  manifest?: object;
  settings?: object;
  crashAt?: string;
  crashAfter?: number;
  holdExec?: string;
  /** True: the lander's checks run unconfined (the test's checks act outside the candidate on purpose). */
  unconfinedChecks?: boolean;
  steps: Step[];
};
const real = new NodeHostExec();
const holding: HostExec = {
  run(request: ExecRequest): Promise<ExecResult> {
    if (input.holdExec && request.argv.includes(input.holdExec)) {
      process.stdout.write(`${JSON.stringify({ op: 'exec-held' })}\n`);
      return new Promise(() => undefined);
    }
    return real.run(request);
  },
};
let passages = 0;
const savePoint = (point: string) => {
  if (point === input.crashAt && ++passages === (input.crashAfter ?? 1)) process.kill(process.pid, 'SIGKILL');
};
const host = await createHost({
  repo: input.repo,
  stateDir: input.stateDir,
  manifest: input.manifest,
  ...(input.settings ? { settings: input.settings } : {}),
  ...(input.holdExec ? { exec: holding } : {}),
  ...(input.unconfinedChecks ? { checks: new ExecCheckRunner(real) } : {}),
  savePoint,
});
for (const step of input.steps) {
  try {
    let out: unknown;
    if (step.op === 'prepare') out = await host.prepare({ conversation: step.conversation!, role: step.role });
    else if (step.op === 'call')
      out = await host.gate.call(step.conversation!, step.tool!, step.args, step.holder ? { holder: step.holder } : {});
    else if (step.op === 'release') out = await host.release(step.conversation!, step.discard ? { discard: true } : {});
    else if (step.op === 'acquire') out = host.acquire(step.conversation!, step.holder!);
    else if (step.op === 'land') out = await host.lander.run();
    else if (step.op === 'hang') {
      process.stdout.write(`${JSON.stringify({ op: 'hang' })}\n`);
      setInterval(() => undefined, 1 << 30); // keeps the process alive until it is killed
      await new Promise(() => undefined);
    } else out = host.status();
    process.stdout.write(`${JSON.stringify({ op: step.op, out })}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ op: step.op, error: (e as { code?: string }).code ?? String(e) })}\n`);
  }
}
await host.close();
