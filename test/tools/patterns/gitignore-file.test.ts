import { describe, expect, it } from 'vitest';
import { GitignoreFile } from '../../../tools/patterns/gitignore-file.js';
import { MatchMeter, YIELD_STEPS } from '../../../tools/patterns/match-work.js';
import { MAX_HELD_PATTERN_RULES, MAX_HELD_RULES } from '../../../tools/patterns/gitignore-file.js';

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
    expect(
      await ignoredBy('*.log\nbuild/\n/top\ndocs/*.md\n', [
        'a.log',
        'x/b.log',
        'build/',
        'x/build/',
        'build',
        'top',
        'x/top',
        'docs/a.md',
        'docs/x/a.md',
        'x/docs/a.md',
      ]),
    ).toEqual(['a.log', 'x/b.log', 'build/', 'x/build/', 'top', 'docs/a.md']);
  });

  it('reads `**` as git does: leading, middle (zero folders too), trailing (at least one)', async () => {
    expect(
      await ignoredBy('**/cache\na/**/z\nout/**\n', ['cache', 'x/y/cache', 'a/z', 'a/b/c/z', 'out', 'out/f', 'out/d/', 'b/a/z']),
    ).toEqual(['cache', 'x/y/cache', 'a/z', 'a/b/c/z', 'out/f', 'out/d/']);
    // git's literal-prefix quirk: a `**` right after the prefix starts wildmatch's pattern.
    expect(await ignoredBy('ab**/c\n', ['abc', 'ab/c', 'abx/y/c', 'abd'])).toEqual(['abc', 'ab/c', 'abx/y/c']);
  });

  it('lets the last matching rule decide, so `!` re-includes', async () => {
    expect(await ignoredBy('*.gen.ts\n!keep.gen.ts\n', ['a.gen.ts', 'keep.gen.ts'])).toEqual(['a.gen.ts']);
    expect(await ignoredBy('!keep.gen.ts\n*.gen.ts\n', ['a.gen.ts', 'keep.gen.ts'])).toEqual(['a.gen.ts', 'keep.gen.ts']);
  });

  it('handles comments, escapes, trailing spaces, CRLF and a BOM like git', async () => {
    const text = '\ufeff# comment\r\n\\#hash\r\n\\!bang\r\ntrail   \r\nkept\\ \r\n[ab]x\r\n[!a]y\r\nbad[\r\nlone\\\r\n';
    expect(
      await ignoredBy(text, [
        '# comment',
        '#hash',
        '!bang',
        'trail',
        'trail   ',
        'kept ',
        'kept',
        'ax',
        'bx',
        'ay',
        'by',
        'bad[',
        'lone\\',
        'lone',
      ]),
    ).toEqual(['#hash', '!bang', 'trail', 'kept ', 'ax', 'bx', 'by']);
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

  it('yields between two rules when many costly rules are tried on one path, and answers as without yielding', async () => {
    // No literal indexes these rules (a class is none), so every one is tried on the name, from
    // the last one down, each costing about 10,000 steps: 17 million for one path, before the
    // first rule (`x*`) decides.
    const rule = `*${'[a]'.repeat(200)}[b]?`;
    const file = await GitignoreFile.parse(`x*\n${`${rule}\n`.repeat(1700)}`, new MatchMeter(Infinity));
    const meter = new MatchMeter(Infinity);
    let yields = 0;
    let longest = 0;
    let last = meter.steps;
    const original = meter.yieldNow.bind(meter);
    meter.yieldNow = async () => {
      yields++;
      longest = Math.max(longest, meter.steps - last);
      await original();
      last = meter.steps;
    };
    for (const name of [`x${'a'.repeat(249)}`, 'a'.repeat(250)]) {
      const plain = file.verdict(name, 0, name, false, { steps: 0 }); // a plain counter never yields
      expect(plain).not.toBeInstanceOf(Promise);
      const pending = file.verdict(name, 0, name, false, meter);
      expect(pending).toBeInstanceOf(Promise);
      expect(await pending).toBe(plain);
    }
    expect(file.verdict(`x${'a'.repeat(249)}`, 0, `x${'a'.repeat(249)}`, false, { steps: 0 })).toBe('ignored');
    expect(yields).toBeGreaterThan(10);
    expect(longest).toBeLessThan(YIELD_STEPS + 100_000); // one rule past the slice at most
  });

  it('past the step budget, a verdict answers INVALID_INPUT on path instead of going on', async () => {
    const rule = `*${'[a]'.repeat(200)}[b]?`;
    const meter = new MatchMeter(5_000_000);
    const file = await GitignoreFile.parse(`${rule}\n`.repeat(1700), new MatchMeter(Infinity));
    const name = 'a'.repeat(250);
    await expect(Promise.resolve(file.verdict(name, 0, name, false, meter))).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/^path: /),
    });
  });

  it('counts what compiling rules costs: a file of class-heavy rules yields every few rules and meets the budget', async () => {
    // 605 characters and 201 classes a rule: about 1 ms each to compile.
    const rule = `*${'[a]'.repeat(200)}[b]?`;
    const meter = new MatchMeter();
    let yields = 0;
    const original = meter.yieldNow.bind(meter);
    meter.yieldNow = async () => {
      yields++;
      await original();
    };
    await expect(GitignoreFile.parse(`${rule}\n`.repeat(1700), meter)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/^path: /),
    });
    expect(yields).toBeGreaterThan(50);
  });

  it('holds a bounded number of rules per call: past the caps it answers INVALID_INPUT on path before holding more', async () => {
    const meter = new MatchMeter(Infinity);
    const wild = `${'*[a]?\n'.repeat(MAX_HELD_PATTERN_RULES)}`;
    const file = await GitignoreFile.parse(wild, meter); // exactly at the cap: fine
    expect(file.verdict('xab', 0, 'xab', false, { steps: 0 })).toBe('ignored');
    await expect(GitignoreFile.parse('*[b]?\n', meter)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/^path: .*25,000 with wildcards/),
    });
    // Literal rules cost little each: many more of them are held, up to their own cap.
    const literal = new MatchMeter(Infinity);
    await GitignoreFile.parse(Array.from({ length: MAX_HELD_RULES }, (_, i) => `n${i}`).join('\n'), literal);
    await expect(GitignoreFile.parse('one-more\n', literal)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(meter.rules).toEqual({ all: MAX_HELD_PATTERN_RULES + 1, patterns: MAX_HELD_PATTERN_RULES + 1 });
  });
});
