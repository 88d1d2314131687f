/**
 * `gatefs demo` as a new user runs it: exit 0, every screen shown, the refusals named by
 * their codes, and no temp folder left behind.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { gatefs } from './run-gatefs.js';

it('gatefs demo tours isolation, a read-only mount, escapes, disclosure and the run log', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'gatefs-demo-test-'));
  try {
    const r = await gatefs(['demo'], { env: { TMPDIR: tmp } });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    for (let n = 1; n <= 6; n++) expect(r.stdout).toContain(`── ${n}/6 `);
    expect(r.stdout).toMatch(/alice read .*\n {2}→ ok: .*\n.*Hi there/);
    expect(r.stdout).toMatch(/bob {3}read .*\n {2}→ ok: .*\n.*Hello/);
    expect(r.stdout).toMatch(/main checkout on disk, line 3: return `Hello/);
    expect(r.stdout).toContain('refused: READ_ONLY');
    expect(r.stdout).toContain('refused: PATH_ESCAPE');
    expect(r.stdout).toContain('refused: OUTSIDE_MOUNTS');
    expect(r.stdout).toContain('refused: NOT_DISCLOSED');
    expect(r.stdout).toContain('→ ok: approved: src/secret-config.js');
    expect(r.stdout).toContain('export const retries = 3;');
    expect(r.stdout).toMatch(/SEQ\s+TYPE\s+CONVERSATION\s+DETAILS/);
    expect(r.stdout).toMatch(/tool_call\s+alice\s+tool=write outcome=READ_ONLY/);
    // The last line sends a new user to README sections that exist (test/cli/readme-anchors.test.ts checks them).
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^Next: README\.md "Quick start" .*"Connect your agent"/);
    expect(r.stdout).not.toContain(tmp);
    expect(readdirSync(tmp)).toEqual([]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
