/**
 * The agent home suite (agent-home-suite.ts) on the disk host: `<stateDir>/homes/<agent>` on the
 * real disk under a temporary repository, a worktree role, links made with symlink(2).
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../../src/host/composition/create-host.js';
import { agentHomeSuite, homeManifest } from './agent-home-suite.js';
import { makeTempRepo } from './temp-repo.js';

const OUTSIDE = 'outside secret 7f3a\n';

agentHomeSuite('disk host', async () => {
  const repo = makeTempRepo({ 'README.md': '# r\n' });
  const outside = mkdtempSync(join(tmpdir(), 'gatefs-home-outside-'));
  writeFileSync(join(outside, 'secret.txt'), OUTSIDE);
  const host = await createHost({ repo: repo.dir, manifest: homeManifest('worktree') });
  const stateDir = join(repo.dir, '.gatefs');
  return {
    host,
    homeOf: (agent) => join(stateDir, 'homes', agent),
    readText: (path) => readFileSync(path, 'utf8'),
    writeText: (path, text) => writeFileSync(path, text),
    exists: (path) => {
      try {
        lstatSync(path);
        return true;
      } catch {
        return false;
      }
    },
    entries: (path) => readdirSync(path).sort(),
    mkdir: (path) => mkdirSync(path, { recursive: true }),
    remove: (path) => rmSync(path, { recursive: true }),
    symlink: (target, path) => symlinkSync(target, path),
    outside: { file: join(outside, 'secret.txt'), folder: outside, text: OUTSIDE },
    close: async () => {
      await host.close();
      repo.cleanup();
      if (existsSync(outside)) rmSync(outside, { recursive: true });
    },
  };
});
