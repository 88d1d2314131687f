/**
 * The file-reference suite (resolve-reference-suite.ts) on the disk host: a real repository, the
 * default state directory `<repo>/.gatefs` inside it (so every workspace folder is inside the
 * `canonical` root too), links made with symlink(2).
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createHost } from '../../src/host/composition/create-host.js';
import { REFERENCE_FILES, REFERENCE_MANIFEST, resolveReferenceSuite } from './resolve-reference-suite.js';
import { makeTempRepo } from './temp-repo.js';

resolveReferenceSuite('disk host', async () => {
  const repo = makeTempRepo(REFERENCE_FILES);
  const host = await createHost({ repo: repo.dir, manifest: REFERENCE_MANIFEST });
  return {
    host,
    repo: repo.dir,
    stateDir: join(repo.dir, '.gatefs'),
    stateInRepo: true,
    writeText: (path, text) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    },
    mkdir: (path) => mkdirSync(path, { recursive: true }),
    symlink: (target, path) => symlinkSync(target, path),
    close: async () => {
      await host.close();
      repo.cleanup();
    },
  };
});
