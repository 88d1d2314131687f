/**
 * `WorkspaceError`'s declared reasons (`data.reason`, src/workspace-error.ts): each documented in
 * one line under the code it refines, each written somewhere in the source (the type system
 * refuses a `reason` that is not declared), and a few produced by a real host.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../src/host/memory/create-memory-host.js';
import { WORKSPACE_ERROR_REASON_DOCS, isWorkspaceError, type WorkspaceErrorReason } from '../src/workspace-error.js';
import { scanFiles } from './import-graph.js';

const ROOT = join(import.meta.dirname, '..');
const REASONS = Object.keys(WORKSPACE_ERROR_REASON_DOCS) as WorkspaceErrorReason[];

/** The error `fn` throws (fails the test when it throws none). */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('WorkspaceError reasons', () => {
  it('each is documented in one line that starts with the code it refines', () => {
    expect(REASONS.length).toBeGreaterThan(20);
    for (const reason of REASONS) {
      const doc = WORKSPACE_ERROR_REASON_DOCS[reason];
      expect(doc, reason).toMatch(/^[A-Z_]+: .{20,}$/);
      expect(doc, reason).not.toContain('\n');
    }
  });

  it('each is written somewhere in the source outside the declaration', () => {
    const text = scanFiles(ROOT, ['src'])
      .filter((f) => f !== 'src/workspace-error.ts')
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n');
    expect(REASONS.filter((r) => !text.includes(`'${r}'`))).toEqual([]);
  });

  it('a bad conversation id, a role that differs from the prepared one and a closed host say which', async () => {
    const host = await createMemoryHost({
      files: { 'a.txt': 'a\n' },
      manifest: {
        roles: [
          { name: 'one', tools: ['read'], workspace: { backend: 'copy' } },
          { name: 'two', tools: ['read'], workspace: { backend: 'copy' } },
        ],
      },
    });
    const reasonOf = async (fn: () => Promise<unknown>) => {
      const e = await thrown(fn);
      return isWorkspaceError(e) ? [e.code, e.data.reason] : e;
    };
    expect(await reasonOf(() => host.prepare({ conversation: '../x' }))).toEqual(['PREPARATION_FAILED', 'BAD_CONVERSATION_ID']);
    await host.prepare({ conversation: 'c', role: 'one' });
    expect(await reasonOf(() => host.prepare({ conversation: 'c', role: 'two' }))).toEqual(['PREPARATION_FAILED', 'ROLE_MISMATCH']);
    await host.close();
    expect(await reasonOf(() => host.prepare({ conversation: 'd' }))).toEqual(['BUSY', 'CLOSED']);
  });
});
