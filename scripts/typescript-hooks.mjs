// Node module hooks that run this project's TypeScript sources directly, without a build: a
// relative `.js` import that names no file resolves to the `.ts` file beside it (the NodeNext
// convention the sources are written in), and a `.ts` file outside node_modules is loaded with its
// types stripped (oxc, through rolldown's `transformSync`; no type checking: tsc does that).
//
// Registered by scripts/run-typescript.mjs (`node --import ./scripts/run-typescript.mjs x.ts`).
// The tests run with it (vitest.config.ts `execArgv`), so that a worker thread the code starts by
// URL (`new Worker(new URL('./pool-worker.js', import.meta.url))`, vfs/worker-pool.ts) runs the
// sources under test as the built package runs dist/: worker threads inherit the process's
// `execArgv`, so they load these hooks too. The built package never uses them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** @type {typeof import('rolldown/utils').transformSync | undefined} */
let transformSync;

/** True for a file: URL of a project source (not a dependency's file). */
function isProjectFile(url) {
  return url.startsWith('file:') && !url.includes('/node_modules/');
}

/** A missing `x.js` of the project resolves to `x.ts` when that exists. */
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (e) {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !specifier.endsWith('.js')) throw e;
    const url = new URL(specifier, context.parentURL);
    if (!isProjectFile(url.href)) throw e;
    try {
      return await nextResolve(url.href.replace(/\.js$/, '.ts'), context);
    } catch {
      throw e;
    }
  }
}

/** A project `.ts` file is loaded as an ES module with its types stripped. */
export async function load(url, context, nextLoad) {
  if (!isProjectFile(url) || !new URL(url).pathname.endsWith('.ts')) return nextLoad(url, context);
  transformSync ??= (await import('rolldown/utils')).transformSync;
  const path = fileURLToPath(url);
  const result = transformSync(path, readFileSync(path, 'utf8'), { lang: 'ts', sourceType: 'module' });
  if (result.errors.length > 0) throw new SyntaxError(`${path}: ${result.errors.map((e) => e.message).join('; ')}`);
  return { format: 'module', source: result.code, shortCircuit: true };
}
