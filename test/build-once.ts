/**
 * Vitest global setup: builds `dist/` once before the CLI and MCP tests spawn the real binary,
 * only when `dist/src/cli/main.js` is missing or older than a source file. Skipped when the run
 * is filtered to other folders. A build that reports type errors in files still being written
 * elsewhere is tolerated as long as the CLI entry was emitted (tsc emits despite errors).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const entry = join(root, 'dist/src/cli/main.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts') || e.name.endsWith('.js')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function isStale(): boolean {
  if (!existsSync(entry)) return true;
  const built = statSync(entry).mtimeMs;
  return ['src', 'vfs', 'tools'].some((d) => existsSync(join(root, d)) && newestSource(join(root, d)) > built);
}

function wantsBinary(): boolean {
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-') && a !== 'run' && !a.includes('vitest'));
  return filters.length === 0 || filters.some((f) => /cli|mcp/.test(f));
}

/** Builds when needed; a lock folder keeps two concurrent test runs from building at once. */
export default async function setup(): Promise<void> {
  if (!wantsBinary() || !isStale()) return;
  const lock = join(root, 'dist/.build-lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (let i = 0; i < 240; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 180_000) rmdirSync(lock); // a crashed run's lock
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (!isStale()) return;
    try {
      execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
    } catch (e) {
      const out = String((e as { stdout?: Buffer }).stdout ?? '');
      if (!existsSync(entry)) throw new Error(`the build failed and emitted no CLI:\n${out.slice(0, 4000)}`);
      console.warn(`build-once: tsc reported errors (tolerated, the CLI was emitted):\n${out.split('\n').slice(0, 10).join('\n')}`);
    }
    execFileSync(process.execPath, ['scripts/postbuild.mjs'], { cwd: root, stdio: 'pipe' });
  } finally {
    try {
      rmdirSync(lock);
    } catch {
      // already gone
    }
  }
}
