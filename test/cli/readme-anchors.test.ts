/**
 * README.md's links into itself lead somewhere: every `[…](#anchor)` names a heading, by the
 * anchor GitHub gives that heading, and the section the demo's last line sends a new user to
 * exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './run-gatefs.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** README.md without its fenced code blocks (a `# comment` in a shell block is no heading). */
function outsideCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The headings of `markdown` (ATX, `#` to `######`), in order, as their text. */
function headings(markdown: string): string[] {
  return [...outsideCode(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)].map((m) => m[1] as string);
}

/**
 * GitHub's anchor for a heading: the rendered text (inline code, emphasis and link targets
 * dropped to their text) lower-cased, every character but letters, digits, `_`, `-` and spaces
 * removed, spaces made `-`; a repeated anchor gets `-1`, `-2`, … in order.
 */
function githubAnchors(titles: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return titles.map((title) => {
    const text = title
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*]/g, '')
      .replace(/<[^>]+>/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    return n === 0 ? slug : `${slug}-${n}`;
  });
}

/** Every `(#anchor)` a link of `markdown` points at, outside code, with the line it is on. */
function anchorLinks(markdown: string): { anchor: string; line: number }[] {
  const text = outsideCode(markdown);
  return [...text.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => ({
    anchor: decodeURIComponent(m[1] as string),
    line: text.slice(0, m.index).split('\n').length,
  }));
}

describe('README.md cross-references', () => {
  it("computes GitHub's anchors as GitHub does", () => {
    expect(
      githubAnchors([
        "Use gatefs's tools and shell instead of the client's",
        'Roles, mounts and progressive disclosure (`gatefs.yaml`)',
        'Searching (`list`, `grep`)',
        'Quick start',
        'Quick start',
      ]),
    ).toEqual([
      'use-gatefss-tools-and-shell-instead-of-the-clients',
      'roles-mounts-and-progressive-disclosure-gatefsyaml',
      'searching-list-grep',
      'quick-start',
      'quick-start-1',
    ]);
    expect(headings('# A\n```sh\n# not a heading\n```\n## B ##\n')).toEqual(['A', 'B']);
  });

  it('every [text](#anchor) names a heading of README.md', () => {
    const anchors = new Set(githubAnchors(headings(README)));
    const links = anchorLinks(README);
    expect(links.length).toBeGreaterThan(0);
    const broken = links.filter((l) => !anchors.has(l.anchor)).map((l) => `#${l.anchor} (near line ${l.line})`);
    expect(broken).toEqual([]);
  });

  it('the heading the demo ends on, and the quick start, are sections of README.md', () => {
    const titles = headings(README);
    const demo = readFileSync(join(ROOT, 'src/cli/demo.ts'), 'utf8');
    const next = /'\\nNext: ([^']*)'/.exec(demo)?.[1];
    expect(next).toBeDefined();
    const named = [...(next as string).matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const title of named) expect(titles).toContain(title);
    expect(titles).toContain('Quick start');
  });
});
