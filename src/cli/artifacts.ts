/**
 * `gatefs artifacts <run>`: the artifacts of a run's handoffs — collected ones with their host
 * store paths (`<stateDir>/artifacts/<run>/<role>-v<visit>/<path>`: this is the operator's tool,
 * host paths are fine here), the rejected ones with code and reason — and the run's auto-patches,
 * as tables or, with `--json`, `{ run, artifacts, patches }`. A read-only look. An unknown run is
 * `UNKNOWN_RUN` (exit 1).
 */
import type { Command } from './command.js';
import { readRun } from './run-read.js';
import { formatArtifacts } from './run-text.js';

/** The `artifacts` command. */
export const artifactsCommand: Command = {
  name: 'artifacts',
  summary: "list a run's collected artifacts with their store paths, the rejected ones and the auto-patches",
  usage: 'gatefs artifacts <run> [--json]',
  positionals: ['run'],
  options: {},
  optionHelp: [],
  details: [
    'Collected files are hard links to content-addressed objects (<stateDir>/artifacts/objects/<sha256>,',
    'read-only); a receiver of the role handed to sees them read-only at artifacts/<role>-v<visit>/ in',
    'its workspace. Auto-patches are objects of the same store: apply one yourself with git apply.',
    'Nothing is cleaned automatically.',
    'Examples:',
    '  gatefs artifacts default',
    '  gatefs artifacts feature-42 --json',
  ].join('\n'),
  async run({ globals, args, out }) {
    const read = await readRun(globals, args[0]!, 'artifacts');
    if (globals.json) out.json({ run: read.status.run.run, artifacts: read.artifacts, patches: read.status.patches });
    else out.print(formatArtifacts(read.status.run.run, read.artifacts, read.status.patches));
    return 0;
  },
};
