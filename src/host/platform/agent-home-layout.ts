/**
 * The layout of an agent's home (`/home` in its conversations' namespaces, the host folder
 * `<stateDir>/homes/<agent>`): what the host makes there on the agent's first preparation and
 * makes again, when missing, on every later one (never overwriting), and the default agent
 * identity of a role. docs/ARCHITECTURE.md § Agent model.
 */
import { createHash } from 'node:crypto';
import { isConversationId } from '../../../vfs/index.js';

/** The namespace anchor of the agent's home in every conversation's namespace. */
export const HOME_ANCHOR = '/home';

/** The runtime-owned folder of a home: readable by tools, `PROTECTED_PATH` to every change, read-only to commands. */
export const HOME_RUNTIME_FOLDER = '.gatefs';

/** The folder of a home the host may empty at any time (`host.cleanHomeTmp`). */
export const HOME_TMP_FOLDER = 'tmp';

/** One part of the layout: a folder, or a file with the text it starts with. */
export type HomePart = { path: string; kind: 'folder' } | { path: string; kind: 'file'; text: (agent: string) => string };

const GUIDE = (agent: string) => `# Your home (agent ${agent})

This folder is yours: it is at /home in every conversation of agent ${agent}, and it stays when a
conversation's workspace is released. Another conversation of ${agent} may be using it at the same time.

- memory/self.md: what you want to remember about yourself and how you work best.
- memory/operator.md: what you learned about the person you work for (preferences, conventions).
- notes/: notes worth keeping across conversations (findings, decisions, how-tos of this project).
- work-items/: one file per piece of work you track beyond this conversation.
- skills/: reusable procedures and scripts you wrote for yourself.
- tmp/: scratch space. The host may empty it at any time: keep nothing there you need later.
- .gatefs/: the runtime's own files. You can read them; nothing can change them.

Relative paths in your tools still resolve in your workspace: name files here as /home/notes/x.md.
`;

/** The layout, parents before children (see the file comment). `.gatefs/agent.json` records the agent's name. */
export const HOME_LAYOUT: readonly HomePart[] = [
  { path: 'AGENTS.md', kind: 'file', text: GUIDE },
  { path: 'memory', kind: 'folder' },
  { path: 'memory/self.md', kind: 'file', text: () => '# About me\n\n' },
  { path: 'memory/operator.md', kind: 'file', text: () => '# About the operator\n\n' },
  { path: 'notes', kind: 'folder' },
  { path: 'work-items', kind: 'folder' },
  { path: 'skills', kind: 'folder' },
  { path: HOME_TMP_FOLDER, kind: 'folder' },
  { path: HOME_RUNTIME_FOLDER, kind: 'folder' },
  { path: `${HOME_RUNTIME_FOLDER}/agent.json`, kind: 'file', text: (agent) => `${JSON.stringify({ agent, layout: 1 })}\n` },
];

/** Characters of a role name kept in a derived agent name (room left for `-` and a 6-digit hash). */
const NAME_CHARS = 55;

/**
 * The agent identity of a conversation prepared without one: its role's name when that is in
 * the conversation grammar (`reviewer`), else a name derived from it — lowercased, other
 * characters as `-`, and a short hash of the role name so two roles never share a home
 * (`Code Reviewer` → `code-reviewer-1a2b3c`).
 */
export function defaultAgentOf(role: string): string {
  if (isConversationId(role)) return role;
  const name =
    String(role)
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^[-_]+|[-_]+$/g, '')
      .slice(0, NAME_CHARS)
      .replace(/[-_]+$/, '') || 'agent';
  return `${name}-${createHash('sha256').update(role).digest('hex').slice(0, 6)}`;
}
