/**
 * Test support: one `host.apply` in a child process (test/host/apply-crash.test.ts). One JSON
 * argument: `{ repo, conversation, crashAt?, crashAfter? }`; with `crashAt` (an apply save point)
 * the process kills itself with SIGKILL the `crashAfter`-th time (default 1st) the apply reaches
 * it. Prints the report as one JSON line when it finishes.
 */
import { createHost } from '../../src/host/composition/create-host.js';
import { APPLY_MANIFEST } from './apply-manifest.js';

const input = JSON.parse(process.argv[2] ?? '{}') as { repo: string; conversation: string; crashAt?: string; crashAfter?: number };
let passages = 0;
const host = await createHost({ repo: input.repo, manifest: APPLY_MANIFEST });
const report = await host.apply(input.conversation, {
  savePoint: (point) => {
    if (point === input.crashAt && ++passages === (input.crashAfter ?? 1)) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write(`${JSON.stringify(report)}\n`);
await host.close();
