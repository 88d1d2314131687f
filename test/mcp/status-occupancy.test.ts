/**
 * The "Occupancy" section of the status page, as an operator reads it: every binding (holder and
 * its agent, workspace, mode, acquired and released times, why it ended), newest first, the
 * ended ones too, the holder's own and active workspace marked; and whatever the store holds —
 * an agent or workspace called `<img src=x onerror=…>`, `<script>`, a right-to-left override —
 * shown as text, never as markup. Memory host; bindings made by the host API, the hostile names written into the store directly.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { statusPageHtml } from '../../src/mcp/status-page/status-page.js';
import { statusSnapshot } from '../../src/mcp/status-page/status-snapshot.js';
import { occupancyHtml, occupancyViews } from '../../src/mcp/status-page/status-occupancy.js';
import type { StateStore } from '../../src/state/index.js';

const manifest = { roles: [{ name: 'coder', tools: ['read', 'write'], workspace: { backend: 'worktree' as const } }] };
const EVIL_WORKSPACE = '<img src=x onerror=alert(1)>';
const EVIL_AGENT = 'a<script>alert(2)</script>\u202Eevil';

async function world() {
  const host = await createMemoryHost({ files: { 'README.md': '# r\n' }, manifest });
  await host.prepare({ conversation: 'a1', role: 'coder' });
  await host.prepare({ conversation: 'b1', role: 'coder' });
  const store = (host as unknown as { parts: { store: StateStore } }).parts.store;
  return { host, store };
}

describe('the Occupancy section of the status page', () => {
  it('lists every binding newest first, ended ones with their release time and reason, own and active marked', async () => {
    const { host } = await world();
    host.attach('a1', 'b1', 'shared-read');
    host.attach('a1', 'canonical', 'exclusive-write');
    host.switch('a1', 'canonical');
    host.detach('a1', 'b1');
    const views = occupancyViews(host);
    expect(views.map((v) => [v.holder, v.agent, v.workspace, v.mode, v.own, v.active, v.releasedAt === null, v.endReason])).toEqual([
      ['a1', 'coder', 'canonical', 'exclusive-write', false, true, true, null],
      ['a1', 'coder', 'b1', 'shared-read', false, false, false, 'detach'],
      ['b1', 'coder', 'b1', 'exclusive-write', true, true, true, null],
      ['a1', 'coder', 'a1', 'exclusive-write', true, false, true, null],
    ]);
    const html = occupancyHtml(views);
    expect(html).toMatch(
      /<th>Holder<\/th><th>Agent<\/th><th>Workspace<\/th><th>Mode<\/th><th>Acquired \(UTC\)<\/th><th>Released \(UTC\)<\/th><th>Ended by<\/th>/,
    );
    expect(html).toMatch(
      /<tr class="st-released"><td class="id">a1<\/td><td>coder<\/td><td class="id">b1<\/td><td>shared-read<\/td><td>[^<]+Z<\/td><td>[^<]+Z<\/td><td>detach<\/td><\/tr>/,
    );
    expect(html).toContain('canonical <span class="badge">active</span>');
    expect(html).not.toContain('.gatefs');
    await host.close();
  });

  it('the whole page carries the section, and the live feed fills it', async () => {
    const { host } = await world();
    const html = statusPageHtml(statusSnapshot(host, new Map()), { nonce: 'n0nce', version: '0.0.0' });
    expect(html).toContain('<section id="occupancy"><h2>Occupancy</h2><div id="bindings">');
    expect(html).toContain("feed.addEventListener('occupancy'");
    await host.close();
  });

  it('shows hostile workspace and agent names from the store as text: no tag, no attribute, no bidi override', async () => {
    const { host, store } = await world();
    store.bindings.attach('a1', EVIL_WORKSPACE, 'shared-read');
    store.bindings.register('x1', EVIL_AGENT, false);
    store.bindings.attach('x1', 'a1', 'shared-read');
    const html = statusPageHtml(statusSnapshot(host, new Map()), { nonce: 'n0nce', version: '0.0.0' });
    const section = html.slice(html.indexOf('<section id="occupancy">'), html.indexOf('<section id="runs">'));
    expect(section).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('\u202E');
    // The agent of a holder without a workspace record is not known to the page: a dash.
    expect(section).toMatch(/<td class="id">x1<\/td><td>–<\/td>/);
    // An agent name from the store, escaped, where the holder has a workspace.
    const views = occupancyViews(host).map((v) => (v.holder === 'a1' ? { ...v, agent: EVIL_AGENT } : v));
    const escaped = occupancyHtml(views);
    expect(escaped).toContain('a&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(escaped).not.toContain('<script');
    expect(escaped).not.toContain('\u202E');
    await host.close();
  });

  it('says there are no bindings yet on a host without workspaces', async () => {
    const host = await createMemoryHost({ files: { 'README.md': '# r\n' }, manifest });
    expect(occupancyHtml(occupancyViews(host))).toContain('No bindings yet');
    await host.close();
  });
});
