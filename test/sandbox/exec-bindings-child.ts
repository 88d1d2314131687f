/**
 * Child of exec-bindings.test.ts: runs a host over the repository in argv[2] with a `coder`
 * worktree role that runs commands, prepares `c1` and `c2`, runs the steps in argv[3] in order —
 * `[conversation, tool, args]` (a tool call), `['@attach', holder, workspace, mode]` and
 * `['@switch', holder, workspace]` (bindings through the host API) — and prints one JSON line per
 * step. Run as an ordinary user by the test.
 */
import { createHost } from '../../src/host/composition/create-host.js';
import type { BindingMode } from '../../src/state/index.js';

const [repo, stepsJson] = process.argv.slice(2) as [string, string];
const steps = JSON.parse(stepsJson) as [string, ...unknown[]][];
const tools = ['read', 'write', 'list', 'exec', 'exec_output'];
const host = await createHost({
  repo,
  manifest: { roles: [{ name: 'coder', tools, workspace: { backend: 'worktree' }, exec: { timeout: 30 } }] },
});
try {
  await host.prepare({ conversation: 'c1', role: 'coder' });
  await host.prepare({ conversation: 'c2', role: 'coder' });
  for (const [first, ...rest] of steps) {
    if (first === '@attach') host.attach(rest[0] as string, rest[1] as string, rest[2] as BindingMode);
    else if (first === '@switch') host.switch(rest[0] as string, rest[1] as string);
    const answer = first.startsWith('@') ? { ok: true } : await host.gate.call(first, rest[0] as string, rest[1]);
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
} finally {
  await host.close();
}
