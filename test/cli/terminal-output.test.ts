/**
 * Agent- and repository-written text reaches the operator's terminal escaped (SECURITY.md class
 * T), through the built binary on a real repository: file names carrying OSC 52 (sets the
 * clipboard), a carriage return and a line feed that would fake an "all checks passed" line,
 * bidi overrides, C1 controls and invisible characters, in `call`, `diff`, `commit`, `release`'s
 * DIRTY_WORKTREE list, `status`, `log`; a submit's divergence and summary and a failed check's
 * output in `messages` and `lander`. The human output holds no control or invisible character
 * and shows each one in its escaped form; `--json` parses back to exactly the original strings.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatefs, git, sampleRepo, type RunResult } from './run-gatefs.js';

let repo: ReturnType<typeof sampleRepo>;
const run = (args: string[]) => gatefs(args, { cwd: repo.dir });
const MANIFEST = [
  'roles:',
  '  - name: agent',
  '    tools: [read, write, list, grep, diff, commit, submit]',
  '    workspace: { backend: worktree }',
  'lander:',
  '  checks: ["true"]',
  '',
].join('\n');

/**
 * Characters a terminal acts on or that hide text. Line feeds, tabs and a carriage return right
 * before a line feed only move on (a block of file content keeps them); the callers check that
 * one-line fields keep to their line.
 */
const UNSAFE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff]|\r(?!\n)/u;

/** Fails with the first unsafe character and where it is. */
function expectTerminalSafe(text: string, what: string): void {
  const found = UNSAFE.exec(text);
  const at = found ? JSON.stringify(text.slice(Math.max(0, found.index - 30), found.index + 30)) : '';
  expect(found?.[0], `${what}: an unsafe character reaches the terminal near ${at}`).toBeUndefined();
}

/** Both streams of a human run are safe. */
function expectSafeRun(r: RunResult, what: string): void {
  expectTerminalSafe(r.stdout, `${what} (stdout)`);
  expectTerminalSafe(r.stderr, `${what} (stderr)`);
}

const OSC52 = '\x1b]52;c;SGVsbG8=\x07evil\r\u202etxt.exe\nall checks passed';
const OSC52_SHOWN = '\\x1b]52;c;SGVsbG8=\\x07evil\\r\\u{202e}txt.exe\\nall checks passed';
const NAMES = [OSC52, 'c1\u009b2Jzero\u200bwidth\u2066.txt', 'tab\tand\x7fdel\x08.txt'];
const SHOWN = [OSC52_SHOWN, 'c1\\u{9b}2Jzero\\u{200b}width\\u{2066}.txt', 'tab\\tand\\x7fdel\\x08.txt'];

beforeEach(() => {
  repo = sampleRepo();
  writeFileSync(join(repo.dir, 'gatefs.yaml'), MANIFEST);
  git(repo.dir, 'add', 'gatefs.yaml');
  git(repo.dir, 'commit', '--quiet', '-m', 'manifest');
});
afterEach(() => repo?.cleanup());

async function ok(args: string[]): Promise<RunResult> {
  const r = await run(args);
  expect(r.code, `gatefs ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

/** A prepared conversation holding one new file per name of NAMES (content with escapes too). */
async function hostileWorkspace(conversation: string): Promise<void> {
  await ok(['prepare', conversation]);
  for (const path of NAMES) {
    const r = await ok(['call', conversation, 'write', JSON.stringify({ path, content: 'x\x1b[8mhidden\x1b[0m\r\n' })]);
    expectSafeRun(r, 'write');
    expect(r.stdout).toContain(`created ${SHOWN[NAMES.indexOf(path)]}:`);
  }
}

describe('agent-written text on the terminal', () => {
  it('file names in call, diff, release and commit show escaped, one line each; --json gives them back exact', {
    timeout: 240_000,
  }, async () => {
    await hostileWorkspace('c1');

    const list = await ok(['call', 'c1', 'list', '{}']);
    expectSafeRun(list, 'call list');
    for (const shown of SHOWN) expect(list.stdout.split('\n')).toContain(`${shown}  ${'x\x1b[8mhidden\x1b[0m\r\n'.length} B`);
    const listed = JSON.parse((await ok(['call', 'c1', 'list', '{}', '--json'])).stdout) as { value: { entries: { path: string }[] } };
    expect(listed.value.entries.map((e) => e.path)).toEqual(expect.arrayContaining(NAMES));

    const read = await ok(['call', 'c1', 'read', JSON.stringify({ path: OSC52 })]);
    expectSafeRun(read, 'call read');
    expect(read.stdout).toContain('x\\x1b[8mhidden\\x1b[0m'); // the content's escapes too; its CRLF ending rewrites nothing
    const readJson = JSON.parse((await ok(['call', 'c1', 'read', JSON.stringify({ path: OSC52 }), '--json'])).stdout);
    expect(readJson.value).toMatchObject({ path: OSC52, content: 'x\x1b[8mhidden\x1b[0m\r\n' });

    const refused = await run(['call', 'c1', 'read', JSON.stringify({ path: `${OSC52}.missing` })]);
    expect(refused.code).toBe(1);
    expectSafeRun(refused, 'a refused call');
    expect(refused.stderr).toContain('NOT_FOUND');
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);

    const diff = await ok(['diff', 'c1']);
    expectSafeRun(diff, 'diff');
    for (const shown of SHOWN) expect(diff.stdout.split('\n')).toContain(`A ${shown}`);
    const diffJson = JSON.parse((await ok(['diff', 'c1', '--json'])).stdout) as { files: { path: string }[] };
    expect(diffJson.files.map((f) => f.path).sort()).toEqual([...NAMES].sort());

    // A plain release keeps the work: the refusal names every file on the one error line.
    const release = await run(['release', 'c1']);
    expect(release.code).toBe(1);
    expectSafeRun(release, 'release');
    const line = release.stderr.trimEnd().split('\n');
    expect(line).toHaveLength(1);
    expect(line[0]).toMatch(/^gatefs: error: DIRTY_WORKTREE: /);
    for (const shown of SHOWN) expect(line[0]).toContain(shown);

    const message = 'Add files\x1b[2K\rall checks passed\u202e';
    const commit = await ok(['commit', 'c1', '-m', message]);
    expectSafeRun(commit, 'commit');
    for (const shown of SHOWN) expect(commit.stdout.split('\n')).toContain(`added ${shown}`);
    expect(git(repo.dir, 'log', '-1', '--format=%B', 'gatefs/c1').trimEnd()).toBe(message);
    expect(git(repo.dir, 'ls-tree', '-z', '--name-only', 'gatefs/c1').split('\0')).toEqual(expect.arrayContaining(NAMES));

    for (const args of [['status'], ['log', '--tail', '0'], ['lander', 'status']]) expectSafeRun(await ok(args), args.join(' '));
    const events = (await ok(['log', '--tail', '0', '--json'])).stdout.trimEnd().split('\n');
    for (const e of events) expect(() => JSON.parse(e), e).not.toThrow();
  });

  it("a submit's divergence and summary and a failed check's output show escaped in messages and lander; --json is exact", {
    timeout: 240_000,
  }, async () => {
    await hostileWorkspace('c1');
    await ok(['commit', 'c1', '-m', 'files']);
    const divergence = 'None\x1b]52;c;eA==\x07';
    const summary = 'line one\n[req-x] report to c1: fake\r\x1b[32mall checks passed\u202e';
    const submitted = await ok(['submit', 'c1', '--divergence', divergence, '--summary', summary]);
    expectSafeRun(submitted, 'submit');
    expectSafeRun(await ok(['lander', 'run']), 'lander run');

    const messages = await ok(['messages', 'c1']);
    expectSafeRun(messages, 'messages');
    expect(messages.stdout).toContain('(divergence: None\\x1b]52;c;eA==\\x07)');
    const lines = messages.stdout.split('\n');
    expect(lines).toContain('  line one');
    expect(lines).toContain('  [req-x] report to c1: fake\\r\\x1b[32mall checks passed\\u{202e}');
    expect(lines.filter((l) => l.startsWith('[req-'))).toHaveLength(2); // the report and the note; the fake one is indented
    const delivered = JSON.parse((await ok(['messages', 'c1', '--json'])).stdout) as { kind: string; body: Record<string, unknown> }[];
    expect(delivered.find((m) => m.kind === 'note')?.body).toMatchObject({ divergence, summary });

    // A check whose output (the repository's tests print it) carries escape sequences.
    const printed = '\x1b]52;c;eA==\x07\x1b[2K\rall checks passed\u202e';
    const script = 'printf "\\033]52;c;eA==\\007\\033[2K\\rall checks passed\\342\\200\\256\\n"; exit 3';
    writeFileSync(join(repo.dir, 'lander.json'), JSON.stringify({ lander: { checks: [`sh -c '${script}'`] } }));
    await ok(['prepare', 'c2']);
    await ok(['call', 'c2', 'write', JSON.stringify({ path: 'more.txt', content: 'more\n' })]);
    await ok(['commit', 'c2', '-m', 'more']);
    await ok(['submit', 'c2', '--divergence', 'None', '--settings', 'lander.json']);
    const failed = await ok(['lander', 'run', '--settings', 'lander.json']);
    expectSafeRun(failed, 'lander run (failed check)');
    expect(failed.stdout).toMatch(/^failed sub-\S+ from c2: /);
    const report = await ok(['messages', 'c2']);
    expectSafeRun(report, 'messages (failed check)');
    expect(report.stdout.split('\n')).toContain('    \\x1b]52;c;eA==\\x07\\x1b[2K\\rall checks passed\\u{202e}');
    const failedJson = JSON.parse((await ok(['messages', 'c2', '--json'])).stdout) as { body: { output?: string } }[];
    expect(failedJson.map((m) => m.body.output).find((o) => o !== undefined)).toContain(printed);
    expectSafeRun(await ok(['lander', 'status']), 'lander status');
  });
});
