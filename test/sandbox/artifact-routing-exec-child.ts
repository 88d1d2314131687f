/**
 * Child of artifact-routing-exec.test.ts: runs a host over the repository in argv[2] with a
 * `planner` and a `coder` worktree role (both hand off and run commands), prepares `p1`
 * (planner) and `c1` (coder) in run `r1`, calls the steps in argv[3] (`[conversation, tool, args]`)
 * in order, and prints one JSON line per answer. Run as an ordinary user by the test.
 */
import { createHost } from '../../src/host/composition/create-host.js';

const [repo, stepsJson] = process.argv.slice(2) as [string, string];
const steps = JSON.parse(stepsJson) as [string, string, unknown][];
const tools = ['read', 'write', 'list', 'exec', 'handoff'];
const host = await createHost({
  repo,
  manifest: {
    roles: [
      { name: 'planner', tools, workspace: { backend: 'worktree' }, exec: { timeout: 30 } },
      { name: 'coder', tools, workspace: { backend: 'worktree' }, exec: { timeout: 30 } },
    ],
  },
});
try {
  await host.prepare({ conversation: 'p1', role: 'planner', run: 'r1' });
  await host.prepare({ conversation: 'c1', role: 'coder', run: 'r1' });
  for (const [conversation, tool, args] of steps) {
    process.stdout.write(`${JSON.stringify(await host.gate.call(conversation, tool, args))}\n`);
  }
} finally {
  await host.close();
}
