/**
 * Plants symbolic links into a memfs volume for the conformance suite: the targets are a
 * sentinel tree at `/outside` in the same volume, beside (never inside) the layer's root.
 */
import { createHash } from 'node:crypto';
import type { Volume } from 'memfs';
import { SENTINEL } from './fixture.js';
import type { SymlinkPlanter } from './layer-suite.js';

type Vol = InstanceType<typeof Volume>;

/** A `SymlinkPlanter` for the memfs volume `volume`, planting links under its folder `root`. */
export function memorySymlinks(volume: Vol, root: string): SymlinkPlanter {
  volume.mkdirSync('/outside/dir', { recursive: true });
  volume.writeFileSync('/outside/secret.txt', SENTINEL);
  volume.writeFileSync('/outside/dir/secret.txt', SENTINEL);
  return {
    async fileLink(rel) {
      volume.symlinkSync('/outside/secret.txt', `${root}/${rel}`);
    },
    async dirLink(rel) {
      volume.symlinkSync('/outside/dir', `${root}/${rel}`);
    },
    async innerLink(rel, target) {
      volume.symlinkSync(target, `${root}/${rel}`);
    },
    async outsideHash() {
      const h = createHash('sha256');
      for (const p of ['/outside/secret.txt', '/outside/dir/secret.txt']) h.update(p).update(volume.readFileSync(p) as Buffer);
      h.update(JSON.stringify(volume.readdirSync('/outside/dir')));
      return h.digest('hex');
    },
  };
}
