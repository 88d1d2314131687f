/**
 * `monorepoFixture`: a large git repository built from real sources, for the search benches: every
 * top-level package of the project's `node_modules` copied `COPIES` times as
 * `packages/<name>-<copy>/` (a scoped `@a/b` becomes `a-b`), a `README.md` and a `package.json`
 * at the root, committed once. With this project's dependencies that is about 29,000 files in
 * about 630 packages, the shape of a JavaScript monorepo (`packages/*\/src/**\/*.ts` finds the
 * packages that ship their sources).
 *
 * Built once under the OS temp folder and reused by later runs (a `complete` marker is written
 * last); undefined when `node_modules` is absent. `node_modules/.bin` is left out; links inside
 * packages are copied as links (neither server descends them).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Copies of each package. */
const COPIES = 3;
const modules = fileURLToPath(new URL('../../node_modules', import.meta.url));

/** The repository's folder (a git work tree with one commit), or undefined without `node_modules`. */
export function monorepoFixture(): string | undefined {
  if (!existsSync(modules)) return undefined;
  const root = join(tmpdir(), `gatefs-bench-monorepo-${COPIES}-v1`);
  const repo = join(root, 'repo');
  if (existsSync(join(root, 'complete'))) return repo;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(repo, 'packages'), { recursive: true });
  for (const pkg of packagesIn(modules)) {
    for (let copy = 0; copy < COPIES; copy++) {
      cpSync(join(modules, pkg), join(repo, 'packages', `${pkg.replace('@', '').replace('/', '-')}-${copy}`), {
        recursive: true,
        verbatimSymlinks: true,
      });
    }
  }
  writeFileSync(join(repo, 'README.md'), '# bench monorepo\n\nCopies of real packages, for search benchmarks.\n');
  writeFileSync(join(repo, 'package.json'), '{ "name": "bench-monorepo", "private": true, "workspaces": ["packages/*"] }\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'gc.auto', '0');
  git('config', 'user.name', 'gatefs bench');
  git('config', 'user.email', 'bench@gatefs.invalid');
  // Packages ship their own .gitignore files; commit everything anyway (-f): the tree is the data.
  git('add', '-A', '-f');
  git('commit', '--quiet', '--no-verify', '-m', 'monorepo fixture');
  writeFileSync(join(root, 'complete'), '');
  return repo;
}

/** The package folders of a node_modules folder (`name` or `@scope/name`), dot-folders left out. */
function packagesIn(dir: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    if (!d.isDirectory() || d.name.startsWith('.')) continue;
    if (d.name.startsWith('@')) {
      for (const s of readdirSync(join(dir, d.name), { withFileTypes: true })) if (s.isDirectory()) out.push(`${d.name}/${s.name}`);
    } else out.push(d.name);
  }
  return out.sort();
}
