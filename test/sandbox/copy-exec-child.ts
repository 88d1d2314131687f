/**
 * Child of copy-exec.test.ts: runs a host over the repository (or plain folder) in argv[2] with a
 * `copy` role, calls the tools listed in argv[3] (`[tool, args]` pairs) on conversation `c1` in
 * order, and prints one JSON line per answer. Run as an ordinary user by the test.
 */
import { createHost } from '../../src/host/composition/create-host.js';

const [repo, stepsJson] = process.argv.slice(2) as [string, string];
const steps = JSON.parse(stepsJson) as [string, unknown][];
const host = await createHost({
  repo,
  manifest: {
    roles: [{ name: 'agent', tools: ['read', 'write', 'list', 'delete', 'exec'], workspace: { backend: 'copy' }, exec: { timeout: 30 } }],
  },
});
try {
  await host.prepare({ conversation: 'c1' });
  for (const [tool, args] of steps) process.stdout.write(`${JSON.stringify(await host.gate.call('c1', tool, args))}\n`);
} finally {
  await host.close();
}
