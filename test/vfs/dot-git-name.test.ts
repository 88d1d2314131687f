import { describe, expect, it } from 'vitest';
import { isDotGitName } from '../../vfs/dot-git-name.js';

const u200c = '\u200c';

// The names git itself refuses under core.protectNTFS / core.protectHFS: the list of
// t/t1014-read-tree-confusing.sh (backslash cases left out: the grammar refuses backslash),
// plus the NTFS variants t/t0060-path-utils.sh checks for the other dotfiles, applied to .git.
const DOT_GIT = [
  '.git',
  '.GIT',
  `${u200c}.Git`,
  `.gI${u200c}T`,
  `.GiT${u200c}`,
  'git~1',
  'GIT~1',
  '.git. ',
  '.git...:alternate-stream',
  '.git ',
  '.git.',
  '.git  ',
  '.git. ',
  '.git .',
  '.git..',
  '.Git . .',
  'GIT~1 ',
  'git~1.',
  'git~1 . ',
  '.git:$DATA',
  '.git::$INDEX_ALLOCATION',
  'git~1:stream',
  // Every other HFS-ignored code point, and several at once.
  ...[0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff].map(
    (cp) => `.g${String.fromCodePoint(cp)}it`,
  ),
  `\ufeff${u200c}.${u200c}g\u200di\u202et\u206f`,
];

const NOT_DOT_GIT = [
  '.gitignore',
  '.gitmodules',
  '.github',
  '.git x',
  '.git .x',
  ' .git',
  '..git',
  'git',
  '.gi',
  '.gitt',
  'git~2',
  'git~10',
  'git~',
  'gitx~1',
  '.g\u00efit', // ï is not ignored by HFS+ (only the listed zero-width and direction marks are)
  '.g\u0130t', // İ lower-cases to i + U+0307 outside ASCII: git clamps to ASCII, so neither do we
  `.git${u200c}x`,
  '.git\u00a0', // a no-break space is not a space to NTFS's trimming
  'src',
  '',
];

describe('isDotGitName', () => {
  it.each(DOT_GIT.map((n) => [JSON.stringify(n), n]))('%s is .git to git on NTFS or HFS+', (_shown, name) => {
    expect(isDotGitName(name)).toBe(true);
  });

  it.each(NOT_DOT_GIT.map((n) => [JSON.stringify(n), n]))('%s is an ordinary name', (_shown, name) => {
    expect(isDotGitName(name)).toBe(false);
  });

  it('agrees with git itself on every name of the list', async () => {
    // git's own verdict: `git mktree` + `git read-tree` with both protections on refuses
    // exactly the confusing names (t1014). Checked once here against the real git program.
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-dotgit-'));
    try {
      const git = (args: string[], input?: string) =>
        execFileSync('git', args, {
          cwd: dir,
          input,
          encoding: 'utf8',
          stdio: ['pipe', 'pipe', 'pipe'],
          env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir },
        });
      git(['init', '--quiet']);
      git(['config', 'core.protectNTFS', 'true']);
      git(['config', 'core.protectHFS', 'true']);
      const blob = git(['hash-object', '-w', '--stdin'], 'x\n').trim();
      const refused = (name: string) => {
        const tree = git(['mktree'], `100644 blob ${blob}\t${name}\n`).trim();
        try {
          git(['read-tree', tree]);
          return false;
        } catch {
          return true;
        }
      };
      // Names git rejects for other reasons (empty) are left out; ':' is legal in a tree entry.
      for (const name of [...DOT_GIT, ...NOT_DOT_GIT.filter((n) => n !== '')]) {
        expect({ name, refused: refused(name) }).toEqual({ name, refused: isDotGitName(name) });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('agrees with git itself over 3,000 generated look-alikes (git fsck applies is_ntfs_dotgit and is_hfs_dotgit to every tree entry)', async () => {
    const { execFileSync, spawnSync } = await import('node:child_process');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    // Seeded (mulberry32): the same corpus on every run. Characters git's checks care about
    // (case, '.', ' ', ':', '~1', the HFS-ignored code points) and near-misses (dotless i,
    // fullwidth g, no-break and zero-width spaces that HFS+ does not ignore, a combining mark).
    let seed = 0x9e3779b9;
    const rnd = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const dense = ['.', ' ', ':', '\u200c', '\ufeff', '\u206f', '\u202e', 'x', '\u00a0', '\u200b'];
    const wide = [...dense, 'g', 'G', 'i', 'I', 't', 'T', '~', '1', '2', '\u0130', '\u0131', '\uff47', '\u0300', '\u2060', '\u00ad', '\t'];
    const names = new Set<string>();
    while (names.size < 3000) {
      let name = ['.git', 'git~1', '.GIT', 'GiT~1', '.gIt'][rnd(5)];
      if (rnd(3) === 0) name = Array.from({ length: 1 + rnd(6) }, () => wide[rnd(wide.length)]).join('');
      for (let k = rnd(4); k > 0; k--) {
        const at = rnd(name.length + 1);
        const pool = rnd(2) ? dense : wide;
        name = name.slice(0, at) + pool[rnd(pool.length)] + name.slice(at);
      }
      if (name !== '.' && name !== '..') names.add(name);
    }
    const list = [...names];
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-dotgit-'));
    try {
      const git = (args: string[], input?: string) =>
        execFileSync('git', args, {
          cwd: dir,
          input,
          encoding: 'utf8',
          maxBuffer: 1 << 26,
          stdio: ['pipe', 'pipe', 'pipe'],
          env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir },
        });
      git(['init', '--quiet']);
      const blob = git(['hash-object', '-w', '--stdin'], 'x\n').trim();
      // One tree per name, written in one process; fsck then reports each tree holding a `.git`.
      const trees = git(['mktree', '-z', '--batch'], list.map((n) => `100644 blob ${blob}\t${n}\0\0`).join(''))
        .trim()
        .split('\n');
      expect(trees).toHaveLength(list.length);
      // The findings go to stderr, as warnings (or errors with --strict, which also fails the run).
      const fsck = spawnSync('git', ['fsck', '--strict', '--no-dangling', '--no-progress'], {
        cwd: dir,
        encoding: 'utf8',
        maxBuffer: 1 << 26,
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir },
      });
      const report = `${fsck.stdout}${fsck.stderr}`;
      const flagged = new Set([...report.matchAll(/tree ([0-9a-f]{40}): hasDotgit/g)].map((m) => m[1]));
      const disagree = list.filter((name, i) => flagged.has(trees[i]) !== isDotGitName(name)).map((n) => JSON.stringify(n));
      expect(disagree).toEqual([]);
      expect(flagged.size).toBeGreaterThan(100); // the corpus holds real aliases, not only misses
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
