/**
 * The `lineage` table: which conversation started which (subagents). A conversation without a
 * row is a root. Its chain (parents first, ending with itself) is what every command run for it
 * carries into the run log, and its root is where its landings are tallied.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/index.js';

/** One conversation's place in its lineage. */
interface Lineage {
  conversation: string;
  /** The conversation that started it, or null for a root. */
  parent: string | null;
  root: string;
  /** Parents first, ending with `conversation`. */
  chain: string[];
}

interface Row {
  conversation: string;
  parent: string;
  root: string;
  chain: string;
}

/** Prepared statements over `lineage`. Construct once per connection. */
export class LineageTable {
  private readonly insert: Statement;
  private readonly byConversation: Statement;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.insert = db.prepare(
      `INSERT INTO lineage (conversation, parent, root, chain, created_at) VALUES (@conversation, @parent, @root, @chain, @at)
       ON CONFLICT (conversation) DO UPDATE SET parent = excluded.parent, root = excluded.root, chain = excluded.chain`,
    );
    this.byConversation = db.prepare('SELECT * FROM lineage WHERE conversation = ?');
  }

  /** Records that `parent` started `conversation` (its chain is the parent's chain plus itself). Result: the lineage. */
  record(conversation: string, parent: string): Lineage {
    const above = this.of(parent);
    const lineage = { conversation, parent, root: above.root, chain: [...above.chain, conversation] };
    this.insert.run({ conversation, parent, root: lineage.root, chain: JSON.stringify(lineage.chain), at: this.clock.now() });
    return lineage;
  }

  /** The lineage of `conversation` (a root when nothing is recorded). */
  of(conversation: string): Lineage {
    const row = this.byConversation.get(conversation) as Row | undefined;
    if (!row) return { conversation, parent: null, root: conversation, chain: [conversation] };
    return { conversation, parent: row.parent, root: row.root, chain: JSON.parse(row.chain) as string[] };
  }
}
