/**
 * Test support: runs an ES module script in a child `node` and reports which npm packages it
 * loaded. A module-resolution hook (`module.register`) writes every URL the loader resolves
 * to a log file; a package is loaded when a URL inside its `node_modules/<name>` folder was.
 * Only the import graph is seen (a CommonJS package's own `require` calls are not), which is
 * what tells whether a package is loaded at all.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(log, r.url + '\\n');
  return r;
}
`;

const REGISTER = `import { register } from 'node:module';
register('./hooks.mjs', import.meta.url, { data: { log: process.env.GATEFS_MODULE_LOG } });
`;

/** The package a `file:` URL lies in (`@scope/name` or `name`), or null outside `node_modules`. */
export function packageOfUrl(url: string): string | null {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return null;
  const parts = url.slice(at + '/node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/**
 * Runs `source` (an ES module) as `script.mjs` in `dir` (default: a temp folder; bare imports
 * resolve from there), with `args`. Result: its stdout and the packages it loaded, sorted.
 * Throws when the script fails.
 */
export function runLoggingPackages(source: string, args: readonly string[] = [], dir?: string): { stdout: string; packages: string[] } {
  const hooks = mkdtempSync(join(tmpdir(), 'gatefs-loaded-'));
  try {
    const log = join(hooks, 'resolved.log');
    writeFileSync(log, '');
    writeFileSync(join(hooks, 'hooks.mjs'), HOOKS);
    writeFileSync(join(hooks, 'register.mjs'), REGISTER);
    const script = join(dir ?? hooks, 'gatefs-loaded-script.mjs');
    writeFileSync(script, source);
    try {
      const stdout = execFileSync(process.execPath, ['--import', join(hooks, 'register.mjs'), script, ...args], {
        encoding: 'utf8',
        env: { ...process.env, GATEFS_MODULE_LOG: log, GATEFS_DEBUG: '' },
        timeout: 120_000,
      });
      const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      const packages = [...new Set(urls.map(packageOfUrl).filter((p): p is string => p !== null))].sort();
      return { stdout, packages };
    } finally {
      if (dir) rmSync(script, { force: true });
    }
  } finally {
    rmSync(hooks, { recursive: true, force: true });
  }
}
