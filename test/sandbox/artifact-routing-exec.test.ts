import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import type { StateStore } from '../../src/state/index.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { RUN_TYPESCRIPT } from '../run-typescript.js';
import { chownTree, runAs } from './ordinary-user.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping routed artifacts in exec: ${support.cause}; ${support.fix}`);

const tools = ['read', 'write', 'list', 'exec'];
let repo: TempRepo;
let host: Host;
let stateDir: string;

beforeAll(async () => {
  if (!support.available) return;
  repo = makeTempRepo({ 'src/a.txt': 'alpha\n', 'gatefs.yaml': 'roles: []\n' });
  stateDir = join(repo.dir, '.gatefs');
  host = await createHost({
    repo: repo.dir,
    manifest: {
      roles: [
        { name: 'planner', tools, workspace: { backend: 'worktree' }, exec: { timeout: 30 } },
        { name: 'coder', tools, workspace: { backend: 'worktree' }, exec: { timeout: 30 } },
        { name: 'scratch', tools, workspace: { backend: 'empty' }, exec: { timeout: 30 } },
        { name: 'tester', tools, workspace: { backend: 'copy' }, exec: { timeout: 30 } },
        { name: 'reviewer', tools, workspace: { backend: 'shared' }, exec: { timeout: 30 } },
      ],
    },
  });
  for (const [conversation, role] of [
    ['p1', 'planner'],
    ['c1', 'coder'],
    ['c2', 'coder'],
    ['e1', 'scratch'],
    ['t1', 'tester'],
    ['s1', 'reviewer'],
  ] as const) {
    await host.prepare({ conversation, role, run: 'r1' });
  }
  // The handoff as a collection leaves it: the files in the store folder, then the record.
  const folder = join(stateDir, 'artifacts/r1/planner-v1');
  mkdirSync(join(folder, 'docs'), { recursive: true });
  writeFileSync(join(folder, 'notes.md'), '# plan\n');
  writeFileSync(join(folder, 'docs/spec.md'), 'spec\n');
  const store = (host as unknown as { parts: { store: StateStore } }).parts.store;
  // Two more planner visits (2 and 3), handing to the scratch role and to the reviewer.
  store.runs.startVisit('p-scratch', 'r1', 'planner', () => true);
  store.runs.startVisit('p-reviewer', 'r1', 'planner', () => true);
  store.runs.startVisit('p-tester', 'r1', 'planner', () => true);
  store.runs.recordHandoff({
    run: 'r1',
    conversation: 'p1',
    role: 'planner',
    visit: 1,
    kind: 'handoff',
    to: 'coder',
    message: null,
    folder: 'planner-v1',
    artifacts: [
      { record: 'artifact_collected', path: 'notes.md', sha256: 'a'.repeat(64), bytes: 7 },
      { record: 'artifact_collected', path: 'docs/spec.md', sha256: 'b'.repeat(64), bytes: 5 },
    ],
  });
  for (const [conversation, to] of [
    ['p-scratch', 'scratch'],
    ['p-reviewer', 'reviewer'],
    ['p-tester', 'tester'],
  ] as const) {
    const visit = store.runs.visitOf(conversation)!.visit;
    const name = `planner-v${visit}`;
    mkdirSync(join(stateDir, 'artifacts/r1', name), { recursive: true });
    writeFileSync(join(stateDir, 'artifacts/r1', name, 'notes.md'), `for ${to}\n`);
    store.runs.recordHandoff({
      run: 'r1',
      conversation,
      role: 'planner',
      visit,
      kind: 'handoff',
      to,
      message: null,
      folder: name,
      artifacts: [{ record: 'artifact_collected', path: 'notes.md', sha256: 'c'.repeat(64), bytes: Buffer.byteLength(`for ${to}\n`) }],
    });
  }
});
afterAll(async () => {
  await host?.close();
  repo?.cleanup();
});

const names = (v: Record<string, unknown>) => (v.entries as { path: string }[]).map((e) => e.path.split('/').pop());
const value = async (conversation: string, tool: string, args: unknown) => {
  const r = await host.gate.call(conversation, tool, args);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
  return r.value as Record<string, unknown>;
};

describe.skipIf(!support.available)('routed artifacts in exec', () => {
  it('a receiver reads them, cannot change them, and its worktree keeps no artifacts folder afterwards', async () => {
    const v = await value('c1', 'exec', {
      command:
        'cat artifacts/planner-v1/notes.md artifacts/planner-v1/docs/spec.md; ls artifacts; touch artifacts/planner-v1/x 2>&1; echo rc=$?; rm -f artifacts/planner-v1/notes.md 2>&1; echo rm=$?',
    });
    expect(v.stdout).toMatch(/^# plan\nspec\nplanner-v1\n[\s\S]*Read-only file system[\s\S]*rc=1\n[\s\S]*rm=1\n$/);
    expect(v).toMatchObject({ exitCode: 0, changed: [], changedCount: 0 });
    expect(readFileSync(join(stateDir, 'artifacts/r1/planner-v1/notes.md'), 'utf8')).toBe('# plan\n');
    expect(existsSync(join(stateDir, 'worktrees/c1/artifacts'))).toBe(false);
    // The file tools still show them.
    expect(await value('c1', 'read', { path: 'artifacts/planner-v1/notes.md' })).toMatchObject({ content: '# plan\n' });
  });

  it("a folder of the agent's own in artifacts/ stays; only the mount points the sandbox made go", async () => {
    await value('c2', 'write', { path: 'artifacts/mine.txt', content: 'mine\n' });
    const v = await value('c2', 'exec', {
      command: 'cat artifacts/planner-v1/notes.md; cat artifacts/mine.txt; echo more >> artifacts/mine.txt',
    });
    expect(v.stdout).toBe('# plan\nmine\n');
    expect(v.changed).toEqual([{ path: 'artifacts/mine.txt', status: 'modified' }]);
    expect(readFileSync(join(stateDir, 'worktrees/c2/artifacts/mine.txt'), 'utf8')).toBe('mine\nmore\n');
    expect(existsSync(join(stateDir, 'worktrees/c2/artifacts/planner-v1'))).toBe(false);
  });

  it('an empty workspace receives them too, and keeps nothing of their mount points', async () => {
    const v = await value('e1', 'exec', {
      command: 'cat artifacts/planner-v*/notes.md; touch artifacts/planner-v2/y 2>/dev/null || echo refused',
    });
    expect(v.stdout).toBe('for scratch\nrefused\n');
    expect(existsSync(join(stateDir, 'scratch/e1/artifacts'))).toBe(false);
  });

  it("a copy receiver's commands see them too, and the copy keeps nothing of their mount points", async () => {
    const v = await value('t1', 'exec', {
      command: 'cat artifacts/planner-v4/notes.md; echo t > t.txt; touch artifacts/planner-v4/z 2>/dev/null || echo refused',
    });
    expect(v).toMatchObject({ exitCode: 0, stdout: 'for tester\nrefused\n', changed: [{ path: 't.txt', status: 'added' }] });
    expect(existsSync(join(stateDir, 'copies/t1/artifacts'))).toBe(false);
    expect(names(await value('t1', 'list', { path: 'artifacts' }))).toEqual(['planner-v4']);
  });

  it("a shared receiver's commands read its seed inventory at /artifacts/inventory.json, read-only", async () => {
    const v = await value('s1', 'exec', {
      command: 'cat /artifacts/inventory.json; echo x > /artifacts/inventory.json 2>/dev/null || echo refused',
    });
    const [json] = String(v.stdout).split('refused');
    const inventory = JSON.parse(json!);
    expect(inventory).toEqual(host.inventory('s1'));
    expect(inventory.available).toEqual([
      expect.objectContaining({ path: 'notes.md', storePath: join(stateDir, 'artifacts/r1/planner-v3/notes.md') }),
    ]);
    expect(String(v.stdout)).toMatch(/refused\n$/);
    expect(existsSync(join(repo.dir, 'artifacts'))).toBe(false);
  });

  it("a receiver whose worktree holds a file named artifacts runs without them, and the file stays the agent's", async () => {
    await host.prepare({ conversation: 'c3', role: 'coder', run: 'r1' });
    await value('c3', 'write', { path: 'artifacts', content: 'a file\n' });
    const v = await value('c3', 'exec', { command: 'cat artifacts; cat artifacts/planner-v1/notes.md 2>/dev/null || echo absent' });
    expect(v.stdout).toBe('a file\nabsent\n');
    expect(readFileSync(join(stateDir, 'worktrees/c3/artifacts'), 'utf8')).toBe('a file\n');
  });
});

/** `nobody`, when this suite runs as root (and so can switch to it); else null. */
const ordinaryUser = process.getuid?.() === 0 ? 65534 : null;
const childScript = join(dirname(fileURLToPath(import.meta.url)), 'artifact-routing-exec-child.ts');

describe.skipIf(!support.available || ordinaryUser === null)('routed artifacts in exec as an ordinary user', () => {
  it('hands a file over with the handoff tool; the receiver reads it in a command, cannot change it, and keeps no mount point', async () => {
    const base = mkdtempSync(join(tmpdir(), 'gatefs-routing-user-'));
    try {
      const repo = makeTempRepo({ 'src/a.txt': 'alpha\n' }, base);
      chownTree(base, ordinaryUser!);
      const steps = [
        ['p1', 'write', { path: 'notes.md', content: '# plan\n' }],
        ['p1', 'handoff', { to: 'coder', files: ['notes.md'] }],
        ['c1', 'exec', { command: 'cat artifacts/planner-v1/notes.md; touch artifacts/planner-v1/x 2>/dev/null || echo refused' }],
      ];
      const child = await runAs(ordinaryUser!, base, [process.execPath, ...RUN_TYPESCRIPT, childScript, repo.dir, JSON.stringify(steps)]);
      expect(child.code, child.stderr).toBe(0);
      const [, handed, ran] = child.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(handed).toMatchObject({ ok: true, value: { collected: [{ path: 'notes.md' }], rejected: [] } });
      expect(ran).toMatchObject({ ok: true, value: { exitCode: 0, stdout: '# plan\nrefused\n', changed: [] } });
      expect(existsSync(join(repo.dir, '.gatefs/worktrees/c1/artifacts'))).toBe(false);
      expect(readFileSync(join(repo.dir, '.gatefs/artifacts/r1/planner-v1/notes.md'), 'utf8')).toBe('# plan\n');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
