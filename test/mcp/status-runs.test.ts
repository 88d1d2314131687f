/**
 * The "Runs" section of the status page, as an operator watching a run reads it: each run with
 * its visits, the handoff (from role-vN to a role, the message's first line), the artifacts
 * collected and rejected (a ✗ row with its code) and the auto-patch; never a host path; and
 * everything an agent named — a file called `<img src=x onerror=…>`, a message holding a
 * script tag and a right-to-left override — shown as text, never as markup. Memory host,
 * deterministic; the whole page carries the section and the live feed's script fills it.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { statusPageHtml } from '../../src/mcp/status-page/status-page.js';
import { statusSnapshot } from '../../src/mcp/status-page/status-snapshot.js';
import { runsHtml, runViews } from '../../src/mcp/status-page/status-runs.js';

const tools = ['read', 'write', 'handoff', 'end'];
const manifest = {
  roles: [
    { name: 'planner', tools, workspace: { backend: 'worktree' } },
    { name: 'coder', tools, workspace: { backend: 'worktree' } },
  ],
};
const EVIL_NAME = '<img src=x onerror=alert(1)>.md';
const EVIL_MESSAGE = 'done <script>alert(2)</script> \u202Eevil\nsecond line';

async function playedHost() {
  const host = await createMemoryHost({ files: { 'README.md': '# demo\n' }, manifest });
  await host.prepare({ conversation: 'plan-1', role: 'planner', run: 'r1' });
  expect((await host.gate.call('plan-1', 'write', { path: 'plan.md', content: '# plan\n' })).ok).toBe(true);
  expect((await host.gate.call('plan-1', 'write', { path: EVIL_NAME, content: 'x' })).ok).toBe(true);
  await host.runs.handoff('plan-1', { to: 'coder', files: ['plan.md', EVIL_NAME, 'gone.md'], message: EVIL_MESSAGE });
  await host.prepare({ conversation: 'code-1', role: 'coder', run: 'r1' });
  return host;
}

describe('the Runs section of the status page', () => {
  it('lists the run, its visits, the handoff, collected and rejected artifacts and the auto-patch', async () => {
    const host = await playedHost();
    const [run] = runViews(host);
    expect(run).toMatchObject({ run: 'r1', state: 'open' });
    // In the order they started (the memory host's clock stands still: in the order they were made).
    expect(run!.visits.map((v) => [v.role, v.visit, v.conversation, v.state])).toEqual([
      ['planner', 1, 'plan-1', 'ended'],
      ['coder', 1, 'code-1', 'active'],
    ]);
    expect(run!.handoffs).toEqual([
      { id: 1, from: 'planner-v1', kind: 'handoff', to: 'coder', message: 'done <script>alert(2)</script> \u202Eevil' },
    ]);
    expect(run!.artifacts.map((a) => [a.path, a.collected, a.code])).toEqual([
      ['plan.md', true, null],
      [EVIL_NAME, true, null],
      ['gone.md', false, 'NOT_FOUND'],
    ]);
    expect(run!.patches).toMatchObject([{ conversation: 'plan-1', n: 1, reason: 'handoff', files: 2 }]);
    const html = runsHtml([run!]);
    expect(html).toContain('planner-v1');
    expect(html).toMatch(
      /<tr class="fail"><td><span class="mark" title="rejected">✗<\/span> 1<\/td><td>planner-v1<\/td><td>gone\.md<\/td>/,
    );
    expect(html).not.toContain('.gatefs');
    expect(html).not.toContain('/artifacts/');
    await host.close();
  });

  it('shows what an agent named as text: no tag, no attribute, no bidi override reaches the page', async () => {
    const host = await playedHost();
    const html = statusPageHtml(statusSnapshot(host, new Map()), { nonce: 'n0nce', version: '0.0.0' });
    expect(html).toContain('<section id="runs"><h2>Runs</h2><div id="runlist">');
    expect(html).toContain("feed.addEventListener('runs'");
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;.md');
    expect(html).toContain('done &lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('\u202E');
    expect(html).not.toContain('second line');
    await host.close();
  });

  it('says there are no runs yet when none was prepared', async () => {
    const host = await createMemoryHost({ files: { 'README.md': '# demo\n' }, manifest });
    expect(runsHtml(runViews(host))).toContain('No runs yet');
    await host.close();
  });
});
