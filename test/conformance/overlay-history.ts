/**
 * Gives an overlay a history before the conformance suite runs: the lower is first changed
 * away from the fixture (a stale README, an extra file, an extra folder, a stale folder
 * content), then the overlay's own writes, deletes and a re-created folder bring the merged
 * view back to exactly the fixture. Every merged read then crosses copy-ups and whiteouts.
 */
import type { WritableLayer } from '../../vfs/layer.js';
import type { OverlayLayer } from '../../vfs/overlay-layer.js';
import { FIXTURE_FILES } from './fixture.js';

/** `lowerStore` is the lower's writable backing store (the overlay only sees it read-only). */
export async function withHistory(layer: OverlayLayer, lowerStore: WritableLayer): Promise<OverlayLayer> {
  const enc = (s: string) => new TextEncoder().encode(s);
  await lowerStore.writeFile('README.md', enc('stale readme from the lower\n'));
  await lowerStore.writeFile('src/old.ts', enc('deleted through the overlay\n'));
  await lowerStore.mkdir('gone');
  await lowerStore.writeFile('gone/inside.txt', enc('a deleted folder\n'));
  await lowerStore.writeFile('docs/stale.md', enc('hidden by an opaque folder\n'));

  await layer.writeFile('README.md', FIXTURE_FILES.get('README.md')!);
  await layer.remove('src/old.ts');
  await layer.remove('gone/inside.txt');
  await layer.remove('gone');
  // docs/ is removed and re-created: opaque, so docs/stale.md stays hidden beneath it.
  await layer.remove('docs/stale.md');
  await layer.remove('docs/guide.md');
  await layer.remove('docs');
  await layer.mkdir('docs');
  await layer.writeFile('docs/guide.md', FIXTURE_FILES.get('docs/guide.md')!);
  return layer;
}
