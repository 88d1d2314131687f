/**
 * Test support for progressive disclosure: a small repository, a manifest with a disclosure
 * role (read-write), a read-only disclosure role and an ordinary worktree role, and helpers
 * to read the run log's `progressive_disclosure` records.
 */
import type { RunEvent } from '../../src/state/event-log.js';

export const files: Record<string, string> = {
  'README.md': '# demo\n',
  'package.json': '{"name":"demo"}\n',
  'src/schema/card.ts': 'export type Card = { id: string };\n',
  'src/schema/deck.ts': 'export type Deck = Card[];\n',
  'src/schema/nested/deep.ts': 'export const deep = true;\n',
  'src/schemas/other.ts': 'export const sibling = 1;\n',
  'src/secret.ts': 'export const password = "hunter2";\n',
  'tests/schema/card.test.ts': 'test("card", () => {});\n',
  'docs/guide.md': 'the guide\n',
  'docs/api.md': 'the api\n',
};

const policy = { initial_paths: ['src/schema/card.ts', 'README.md'], allowed_paths: ['src/schema', 'tests/schema'] };

export const manifest = {
  roles: [
    {
      name: 'implementer',
      tools: ['read', 'grep', 'list', 'edit', 'write', 'request_files'],
      workspace: { backend: 'worktree', progressive_disclosure: policy },
    },
    {
      name: 'reviewer',
      tools: ['read', 'grep', 'list', 'request_files'],
      workspace: { backend: 'worktree', progressive_disclosure: policy },
    },
    {
      name: 'docs',
      tools: ['read', 'list', 'request_files'],
      workspace: { backend: 'worktree', progressive_disclosure: { initial_paths: ['docs'], allowed_paths: ['src'] } },
    },
    { name: 'worker', tools: ['read', 'grep', 'list', 'edit', 'write'], workspace: { backend: 'worktree' } },
  ],
};

/** The `progressive_disclosure` records of the run log, data only. */
export function disclosureRecords(events: RunEvent[]): Record<string, unknown>[] {
  return events.filter((e) => e.type === 'progressive_disclosure').map((e) => e.data);
}
