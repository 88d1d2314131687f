/**
 * Test support: one snapshot or restore in a real child process, which kills itself with SIGKILL
 * the first time the host reaches save point `crashAt` (src/host/snapshots/snapshot-parts.ts
 * `SNAPSHOT_SAVE_POINTS`). Prints `{ out }` or `{ error: code }` as one JSON line when it gets
 * that far.
 */
import { createHost } from '../../src/host/composition/create-host.js';

const input = JSON.parse(process.argv[2] ?? '{}') as {
  repo: string;
  manifest: object;
  conversation: string;
  op: 'snapshot' | 'restore';
  snapshotId?: string;
  crashAt?: string;
  /** Wall-clock ms to wait for once the host is open (children started together then snapshot at one instant). */
  startAt?: number;
};
const host = await createHost({
  repo: input.repo,
  manifest: input.manifest,
  snapshotSavePoint: (point) => {
    if (point === input.crashAt) process.kill(process.pid, 'SIGKILL');
  },
});
if (input.startAt) await new Promise((r) => setTimeout(r, Math.max(0, input.startAt! - Date.now())));
try {
  const out = input.op === 'snapshot' ? await host.snapshot(input.conversation) : await host.restore(input.conversation, input.snapshotId!);
  process.stdout.write(`${JSON.stringify({ out })}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ error: (e as { code?: string }).code ?? String(e) })}\n`);
}
await host.close();
