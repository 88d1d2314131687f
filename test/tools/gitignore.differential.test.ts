/**
 * Differential test: the files grep searches (through the real gate over a host folder) against
 * what real git says is not ignored (`git check-ignore --no-index`), on generated `.gitignore`
 * files (anchoring, trailing '/', `**`, negation, escapes, classes, trailing spaces, CRLF,
 * comments, malformed rules) with nested `.gitignore` files and generated trees. Each run
 * holds several independent cases, one per top-level folder, so one git process judges them all.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { openHostLayer } from '../../vfs/host-layer.js';
import { addWorkspace, setupGate, valueOf } from './workspace-fixture.js';

const MARK = 'MARK';
// One repository for every run: each run writes its cases below its own folder, and the
// repository root has no .gitignore, so runs cannot influence each other.
const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-gitignore-diff-'));
execFileSync('git', ['init', '-q'], { cwd: repo });
afterAll(() => fs.rmSync(repo, { recursive: true, force: true }));

const nameChar = fc.constantFrom('a', 'b', '.', '#', '!', ' ');
const name = fc
  .array(nameChar, { minLength: 1, maxLength: 3 })
  .map((cs) => cs.join(''))
  .filter((n) => n !== '.' && n !== '..' && n !== '.git' && n !== '.gitignore');
const filePath = fc.array(name, { minLength: 1, maxLength: 4 }).map((segs) => segs.join('/'));

const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', '.') },
  { weight: 1, arbitrary: fc.constantFrom('#', '!', ' ') },
  { weight: 3, arbitrary: fc.constant('*') },
  { weight: 2, arbitrary: fc.constant('?') },
  { weight: 2, arbitrary: fc.constantFrom('[ab]', '[!a]', '[^b]', '[a-b]', '[[:alpha:]]', '[]a]', '[.-]', '[a') },
  { weight: 1, arbitrary: fc.constantFrom('\\a', '\\*', '\\ ', '\\#', '\\!', '\\[a]', '[[:nope:]]') },
);
const segment = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('**', '***') },
  { weight: 5, arbitrary: fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join('')) },
);
const rule = fc
  .record({
    bang: fc.boolean(),
    lead: fc.constantFrom('', '', '/'),
    segs: fc.array(segment, { minLength: 1, maxLength: 3 }),
    trail: fc.constantFrom('', '', '', '/', ' ', '  ', '\\ ', '\r', '/\r'),
  })
  .map(({ bang, lead, segs, trail }) => `${bang ? '!' : ''}${lead}${segs.join('/')}${trail}`);
const line = fc.oneof(
  { weight: 8, arbitrary: rule },
  { weight: 1, arbitrary: fc.constantFrom('', '# a comment', '\\#a', '\\!a', 'a\\', '*', '!*', 'a/**', '**/a') },
);

const caseArb = fc.record({
  rules: fc.array(line, { minLength: 1, maxLength: 6 }),
  files: fc.uniqueArray(filePath, { minLength: 1, maxLength: 10 }),
  nested: fc.option(fc.record({ at: fc.nat(), rules: fc.array(line, { minLength: 1, maxLength: 4 }) }), { nil: undefined }),
});

type Case = { rules: string[]; files: string[]; nested?: { at: number; rules: string[] } };

let run = 0;

/** Writes the cases below a fresh folder of the repository; returns it and every data file's path. */
function materialize(cases: Case[]) {
  const folder = `r${run++}`;
  const all: string[] = [];
  cases.forEach((c, i) => {
    const top = `${folder}/c${i}`;
    // A name that is a file in one path and a folder in another: keep the first use.
    const kinds = new Map<string, 'file' | 'dir'>();
    const files = c.files.filter((f) => {
      const segs = f.split('/');
      for (let k = 1; k <= segs.length; k++) {
        const p = segs.slice(0, k).join('/');
        const want = k === segs.length ? 'file' : 'dir';
        if (kinds.get(p) && kinds.get(p) !== want) return false;
      }
      for (let k = 1; k <= segs.length; k++) kinds.set(segs.slice(0, k).join('/'), k === segs.length ? 'file' : 'dir');
      return true;
    });
    for (const f of files) {
      const abs = path.join(repo, top, f);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, `${MARK}\n`);
      all.push(`${top}/${f}`);
    }
    fs.mkdirSync(path.join(repo, top), { recursive: true });
    fs.writeFileSync(path.join(repo, top, '.gitignore'), c.rules.join('\n'));
    const dirs = [...kinds].filter(([, k]) => k === 'dir').map(([p]) => p);
    if (c.nested && dirs.length > 0)
      fs.writeFileSync(path.join(repo, top, dirs[c.nested.at % dirs.length], '.gitignore'), c.nested.rules.join('\n'));
  });
  return { folder, all };
}

function gitIgnored(paths: string[]): Set<string> {
  let out = '';
  try {
    out = execFileSync('git', ['-c', 'core.excludesFile=', 'check-ignore', '--no-index', '--stdin', '-z'], {
      cwd: repo,
      input: paths.join('\0'),
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: repo },
    });
  } catch (e) {
    const err = e as { status?: number; stdout?: string };
    if (err.status !== 1) throw e; // 1: nothing ignored
    out = err.stdout ?? '';
  }
  return new Set(out.split('\0').filter(Boolean));
}

const seen = { ignored: 0, searched: 0 };

describe('.gitignore rules vs git check-ignore', () => {
  it('grep searches exactly the files git does not ignore', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: 8 }), async (cases) => {
        const { folder, all } = materialize(cases);
        const ignored = gitIgnored(all);
        const expected = all.filter((p) => !ignored.has(p)).sort();
        seen.ignored += ignored.size;
        seen.searched += expected.length;
        const s = setupGate();
        const layer = openHostLayer(path.join(repo, folder));
        try {
          addWorkspace(s, 'a', { layer });
          const v = valueOf(await s.gate.call('a', 'grep', { pattern: MARK, maxResults: 10_000 }));
          const rules = cases.map((c, i) => `c${i}/.gitignore: ${JSON.stringify(c.rules)}`);
          const files = v.files.map((f: string) => `${folder}/${f}`).sort();
          expect({ rules, files }).toEqual({ rules, files: expected });
        } finally {
          layer.close();
          fs.rmSync(path.join(repo, folder), { recursive: true, force: true });
        }
      }),
      { numRuns: 60, seed: 2039 },
    );
    // The generated cases exercise both outcomes (a test that cannot fail is a defect).
    expect(seen.ignored).toBeGreaterThan(200);
    expect(seen.searched).toBeGreaterThan(200);
  });
});
