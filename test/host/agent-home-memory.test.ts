/**
 * The agent home suite (agent-home-suite.ts) on the memory host: the memfs volume's state
 * directory `/state/homes/<agent>`, a worktree role.
 */
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { agentHomeSuite, homeManifest } from './agent-home-suite.js';

const OUTSIDE = 'outside secret 7f3a\n';

agentHomeSuite('memory host', async () => {
  const host = await createMemoryHost({
    files: { 'README.md': '# r\n' },
    manifest: homeManifest('worktree'),
    folders: { '/outside': { 'secret.txt': OUTSIDE } },
  });
  const v = host.volume;
  return {
    host,
    homeOf: (agent) => `/state/homes/${agent}`,
    readText: (path) => String(v.readFileSync(path, 'utf8')),
    writeText: (path, text) => v.writeFileSync(path, text),
    exists: (path) => {
      try {
        v.lstatSync(path);
        return true;
      } catch {
        return false;
      }
    },
    entries: (path) => (v.readdirSync(path) as unknown[]).map(String).sort(),
    mkdir: (path) => v.mkdirSync(path, { recursive: true }),
    remove: (path) => v.rmSync(path, { recursive: true }),
    symlink: (target, path) => v.symlinkSync(target, path),
    outside: { file: '/outside/secret.txt', folder: '/outside', text: OUTSIDE },
    close: () => host.close(),
  };
});
