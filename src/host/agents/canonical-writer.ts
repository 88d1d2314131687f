/**
 * `canonicalWriterBlocking`: the gate's write check for the source checkout
 * (docs/ARCHITECTURE.md § Agent model). A `shared` conversation writes the checkout without a
 * binding (guarantee `none`), but while another conversation holds `canonical` exclusive-write its
 * writes answer `OCCUPIED`. One indexed read per write (`writerOf`); the conversation's backend is
 * read only when a writer holds the checkout.
 */
import { CANONICAL_WORKSPACE, type StateStore } from '../../state/index.js';

/** The conversation holding `canonical` exclusive-write when it blocks `conversation`'s writes, else undefined. */
export function canonicalWriterBlocking(store: Pick<StateStore, 'bindings' | 'workspaces'>, conversation: string): string | undefined {
  const writer = store.bindings.writerOf(CANONICAL_WORKSPACE);
  if (writer === null || writer === conversation) return undefined;
  return store.workspaces.get(conversation)?.backend === 'shared' ? writer : undefined;
}
