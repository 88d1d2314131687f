/**
 * Test support: one handoff in a real child process, which kills itself with SIGKILL the first
 * time the host reaches save point `crashAt` (src/host/artifacts/artifact-types.ts
 * `ARTIFACT_SAVE_POINTS`). Prints `{ out }` or `{ error: code }` as one JSON line when it gets
 * that far.
 */
import { createHost } from '../../src/host/composition/create-host.js';

const input = JSON.parse(process.argv[2] ?? '{}') as {
  repo: string;
  manifest: object;
  conversation: string;
  to: string;
  files: string[];
  crashAt?: string;
};
const host = await createHost({
  repo: input.repo,
  manifest: input.manifest,
  artifactSavePoint: (point) => {
    if (point === input.crashAt) process.kill(process.pid, 'SIGKILL');
  },
});
try {
  const out = await host.runs.handoff(input.conversation, { to: input.to, files: input.files });
  process.stdout.write(`${JSON.stringify({ out })}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ error: (e as { code?: string }).code ?? String(e) })}\n`);
}
await host.close();
