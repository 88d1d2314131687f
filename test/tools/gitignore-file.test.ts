import { describe, expect, it } from 'vitest';
import { GitignoreFile } from '../../tools/gitignore-file.js';
import { MatchMeter } from '../../tools/match-work.js';

/** The paths (a trailing '/' marks a folder) a `.gitignore` with `text` ignores, as git would say. */
async function ignoredBy(text: string, paths: string[]): Promise<string[]> {
  const meter = new MatchMeter();
  const file = await GitignoreFile.parse(text, meter);
  return paths.filter((p) => {
    const isDir = p.endsWith('/');
    const rel = isDir ? p.slice(0, -1) : p;
    return file.verdict(rel, 0, rel.slice(rel.lastIndexOf('/') + 1), isDir, meter) === 'ignored';
  });
}

describe('.gitignore rules (git 2.39 semantics; the differential test checks them against git itself)', () => {
  it('matches base names at any depth, anchors rules with a slash, and keeps `dir/` rules for folders', async () => {
    expect(await ignoredBy('*.log\nbuild/\n/top\ndocs/*.md\n', ['a.log', 'x/b.log', 'build/', 'x/build/', 'build', 'top', 'x/top', 'docs/a.md', 'docs/x/a.md', 'x/docs/a.md'])).toEqual([
      'a.log', 'x/b.log', 'build/', 'x/build/', 'top', 'docs/a.md',
    ]);
  });

  it('reads `**` as git does: leading, middle (zero folders too), trailing (at least one)', async () => {
    expect(await ignoredBy('**/cache\na/**/z\nout/**\n', ['cache', 'x/y/cache', 'a/z', 'a/b/c/z', 'out', 'out/f', 'out/d/', 'b/a/z'])).toEqual([
      'cache', 'x/y/cache', 'a/z', 'a/b/c/z', 'out/f', 'out/d/',
    ]);
    // git's literal-prefix quirk: a `**` right after the prefix starts wildmatch's pattern.
    expect(await ignoredBy('ab**/c\n', ['abc', 'ab/c', 'abx/y/c', 'abd'])).toEqual(['abc', 'ab/c', 'abx/y/c']);
  });

  it('lets the last matching rule decide, so `!` re-includes', async () => {
    expect(await ignoredBy('*.gen.ts\n!keep.gen.ts\n', ['a.gen.ts', 'keep.gen.ts'])).toEqual(['a.gen.ts']);
    expect(await ignoredBy('!keep.gen.ts\n*.gen.ts\n', ['a.gen.ts', 'keep.gen.ts'])).toEqual(['a.gen.ts', 'keep.gen.ts']);
  });

  it('handles comments, escapes, trailing spaces, CRLF and a BOM like git', async () => {
    const text = '\ufeff# comment\r\n\\#hash\r\n\\!bang\r\ntrail   \r\nkept\\ \r\n[ab]x\r\n[!a]y\r\nbad[\r\nlone\\\r\n';
    expect(await ignoredBy(text, ['# comment', '#hash', '!bang', 'trail', 'trail   ', 'kept ', 'kept', 'ax', 'bx', 'ay', 'by', 'bad[', 'lone\\', 'lone'])).toEqual([
      '#hash', '!bang', 'trail', 'kept ', 'ax', 'bx', 'by',
    ]);
  });

  it('parses a 1 MiB file in slices, yielding to the event loop, and looks up literal rules in one step each', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `name-${i}.tmp`);
    const text = `${lines.join('\n')}\n`.padEnd(1024 * 1024, '#');
    const meter = new MatchMeter();
    let yields = 0;
    const original = meter.yieldNow.bind(meter);
    meter.yieldNow = async () => {
      yields++;
      await original();
    };
    const file = await GitignoreFile.parse(text, meter);
    expect(yields).toBeGreaterThan(0);
    const counter = { steps: 0 };
    expect(file.verdict('x/name-99999.tmp', 0, 'name-99999.tmp', false, counter)).toBe('ignored');
    expect(file.verdict('x/other.tmp', 0, 'other.tmp', false, counter)).toBeUndefined();
    expect(counter.steps).toBeLessThan(20);
  });
});
