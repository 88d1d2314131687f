/**
 * The file-reference suite (`Host.resolveReference`), run against the memory host and the disk
 * host (resolve-reference-memory.test.ts, resolve-reference-disk.test.ts): every form both ways
 * (namespace path ⇄ host path ⇄ URI), each backend's root, the state directory inside the
 * checkout (disk: `canonical` first, the worktree in `alsoIn`), released roots, links planted in a
 * worktree and in the checkout, `..` inside and out, a base file in another root, URI escapes, and
 * unknown workspaces. Resolving appends nothing to the run log.
 */
import { describe, expect, it } from 'vitest';
import type { Host } from '../../src/host/composition/index.js';
import { isWorkspaceError } from '../../src/workspace-error.js';

/** What one backend gives the suite. */
export interface ReferenceFixture {
  host: Host;
  repo: string;
  stateDir: string;
  /** True when the state directory lies inside the checkout (the disk host's default). */
  stateInRepo: boolean;
  writeText(path: string, text: string): void;
  mkdir(path: string): void;
  symlink(target: string, path: string): void;
  close(): Promise<void>;
}

/** Roles, one per backend. */
export const REFERENCE_MANIFEST = {
  roles: [
    { name: 'wt', tools: ['read', 'write'], workspace: { backend: 'worktree' } },
    { name: 'cp', tools: ['read', 'write'], workspace: { backend: 'copy' } },
    { name: 'sc', tools: ['read', 'write'], workspace: { backend: 'empty' } },
    { name: 'sh', tools: ['read', 'write'], workspace: { backend: 'shared' } },
  ],
};

/** The repository's files. */
export const REFERENCE_FILES = { 'README.md': '# r\n', 'src/a.ts': 'export const a = 1;\n' };

/** The code and reason a call throws ('OK' when it does not). */
async function failure(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return 'OK';
  } catch (e) {
    if (!isWorkspaceError(e)) throw e;
    return e.data.reason === undefined ? e.code : `${e.code}/${String(e.data.reason)}`;
  }
}

export function resolveReferenceSuite(name: string, setup: () => Promise<ReferenceFixture>): void {
  describe(`file references (${name})`, () => {
    it('a worktree file: namespace path → host path → URI and back, and the checkout around the state directory', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c', role: 'wt' });
        const wt = `${f.stateDir}/worktrees/c`;
        f.writeText(`${wt}/src/b.ts`, 'b\n');
        const byName = await f.host.resolveReference('/worktrees/c/src/b.ts');
        expect(byName).toMatchObject({
          form: 'namespace',
          workspace: 'c',
          root: 'c',
          rootAnchor: '/worktrees/c',
          namespacePath: '/worktrees/c/src/b.ts',
          hostPath: `${wt}/src/b.ts`,
          uri: 'workspace://c/src/b.ts?root=c',
          exists: true,
          type: 'file',
          protected: false,
        });
        const canonicalView = {
          root: 'canonical',
          rootAnchor: '/canonical',
          namespacePath: '/canonical/.gatefs/worktrees/c/src/b.ts',
          protected: true,
        };
        expect(byName.alsoIn).toEqual(f.stateInRepo ? [expect.objectContaining(canonicalView)] : []);
        const byHost = await f.host.resolveReference(byName.hostPath);
        expect(byHost.form).toBe('host');
        expect(byHost.hostPath).toBe(byName.hostPath);
        if (f.stateInRepo) {
          // Inside two roots: canonical first, as the contract says; the worktree beside it.
          expect(byHost).toMatchObject({ ...canonicalView, workspace: 'canonical', exists: true });
          expect(byHost.alsoIn).toEqual([expect.objectContaining({ root: 'c', namespacePath: '/worktrees/c/src/b.ts', protected: false })]);
        } else {
          expect(byHost).toMatchObject({ root: 'c', namespacePath: '/worktrees/c/src/b.ts', alsoIn: [] });
        }
        const byUri = await f.host.resolveReference(byName.uri);
        expect(byUri).toMatchObject({ form: 'uri', namespacePath: byName.namespacePath, hostPath: byName.hostPath });
        expect((await f.host.resolveReference('/worktrees/c')).type).toBe('directory');
        expect(await f.host.resolveReference('/worktrees/c/missing.txt')).toMatchObject({ exists: false, hostPath: `${wt}/missing.txt` });
        expect((await f.host.resolveReference('/worktrees/c/missing.txt')).type).toBeUndefined();
      } finally {
        await f.close();
      }
    });

    it('canonical, copy (its pinned tree under its folder), scratch and shared roots', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'k', role: 'cp' });
        await f.host.prepare({ conversation: 's', role: 'sc' });
        await f.host.prepare({ conversation: 'h', role: 'sh' });
        const readme = await f.host.resolveReference('/canonical/README.md');
        expect(readme).toMatchObject({
          root: 'canonical',
          hostPath: `${f.repo}/README.md`,
          uri: 'workspace://canonical/README.md?root=canonical',
          exists: true,
        });
        expect(await f.host.resolveReference(`${f.repo}/README.md`)).toMatchObject({ form: 'host', namespacePath: '/canonical/README.md' });
        // The copy's file lives in its pinned tree: shown at its anchor, its host path where a change would be written.
        const copied = await f.host.resolveReference('/worktrees/k/src/a.ts');
        expect(copied).toMatchObject({ root: 'k', hostPath: `${f.stateDir}/copies/k/src/a.ts`, exists: true, type: 'file' });
        const back = await f.host.resolveReference(copied.hostPath);
        expect([back.namespacePath, ...back.alsoIn.map((r) => r.namespacePath)]).toContain('/worktrees/k/src/a.ts');
        expect(await f.host.resolveReference('workspace://s/?root=s')).toMatchObject({
          root: 's',
          hostPath: `${f.stateDir}/scratch/s`,
          type: 'directory',
        });
        expect((await f.host.resolveReference('/worktrees/s/README.md')).exists).toBe(false);
        // A shared conversation's workspace is the checkout: deduplicated to canonical.
        expect(await f.host.resolveReference('/worktrees/h/README.md')).toMatchObject({
          workspace: 'h',
          root: 'canonical',
          namespacePath: '/canonical/README.md',
          hostPath: `${f.repo}/README.md`,
        });
        expect((await f.host.resolveReference('workspace://h/README.md?root=canonical')).root).toBe('canonical');
        expect((await f.host.resolveReference('workspace://h/README.md?root=h')).root).toBe('canonical');
        expect(await failure(() => f.host.resolveReference('workspace://h/README.md?root=k'))).toBe('BAD_REFERENCE/UNKNOWN_ROOT');
        expect(await failure(() => f.host.resolveReference('workspace://k/README.md?root=canonical'))).toBe('BAD_REFERENCE/UNKNOWN_ROOT');
        // .git resolves, protected.
        expect(await f.host.resolveReference('/canonical/.git/HEAD')).toMatchObject({ protected: true, exists: true });
        expect((await f.host.resolveReference('/worktrees/k/gatefs.yaml')).protected).toBe(true);
      } finally {
        await f.close();
      }
    });

    it("the agent's home: by namespace path with a conversation, by host path, and refused without one", async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c', role: 'wt', agent: 'ada' });
        const home = `${f.stateDir}/homes/ada`;
        const guide = await f.host.resolveReference('/home/AGENTS.md', { conversation: 'c' });
        expect(guide).toMatchObject({
          root: 'home',
          agent: 'ada',
          namespacePath: '/home/AGENTS.md',
          hostPath: `${home}/AGENTS.md`,
          exists: true,
        });
        expect((await f.host.resolveReference('/home/.gatefs/agent.json', { conversation: 'c' })).protected).toBe(true);
        expect(await failure(() => f.host.resolveReference('/home/AGENTS.md'))).toBe('BAD_REFERENCE/NO_CONVERSATION');
        const byHost = await f.host.resolveReference(`${home}/notes`);
        const seen = [byHost, ...byHost.alsoIn].map((r) => r.namespacePath);
        expect(seen).toContain('/home/notes');
        expect(byHost.agent).toBe('ada');
      } finally {
        await f.close();
      }
    });

    it('a released root answers REFERENCE_GONE in every form, even where the checkout holds the path', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c', role: 'wt' });
        const hostPath = (await f.host.resolveReference('/worktrees/c/README.md')).hostPath;
        if (f.stateInRepo) {
          // A link in the checkout into the worktree: followed inside the checkout, the worktree named beside it.
          f.symlink('.gatefs/worktrees/c', `${f.repo}/peek`);
          const peek = await f.host.resolveReference('/canonical/peek/README.md');
          expect(peek).toMatchObject({ root: 'canonical', namespacePath: '/canonical/.gatefs/worktrees/c/README.md', hostPath });
          expect(peek.alsoIn.map((r) => r.namespacePath)).toEqual(['/worktrees/c/README.md']);
        }
        await f.host.release('c', { discard: true });
        // Something is at the old place again (a leftover the checkout would show): still gone.
        f.mkdir(`${f.stateDir}/worktrees/c`);
        f.writeText(hostPath, 'stale\n');
        for (const ref of ['/worktrees/c/README.md', 'workspace://c/README.md', hostPath, '/worktrees/c']) {
          expect(await failure(() => f.host.resolveReference(ref)), ref).toBe('REFERENCE_GONE');
        }
        if (f.stateInRepo) {
          expect(await failure(() => f.host.resolveReference('/canonical/.gatefs/worktrees/c/README.md'))).toBe('REFERENCE_GONE');
          expect(await failure(() => f.host.resolveReference('/canonical/peek/README.md'))).toBe('REFERENCE_GONE');
        }
        const gone = await f.host.resolveReference('/worktrees/c/README.md').catch((e: unknown) => e);
        expect(isWorkspaceError(gone) && gone.data.workspace).toBe('c');
      } finally {
        await f.close();
      }
    });

    it('links: inside the root followed to their end, out of a worktree or out of the checkout refused', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c', role: 'wt' });
        const wt = `${f.stateDir}/worktrees/c`;
        f.symlink('src', `${wt}/alias`);
        f.symlink('../../..', `${wt}/up`);
        f.symlink('/', `${wt}/abs`);
        f.symlink('../..', `${f.repo}/esc`);
        const inside = await f.host.resolveReference('/worktrees/c/alias/a.ts');
        expect(inside).toMatchObject({ namespacePath: '/worktrees/c/src/a.ts', hostPath: `${wt}/src/a.ts`, exists: true });
        expect((await f.host.resolveReference(`${wt}/alias/a.ts`)).hostPath).toBe(`${wt}/src/a.ts`);
        for (const ref of [
          '/worktrees/c/up/README.md',
          `${wt}/up/README.md`,
          '/worktrees/c/abs/etc',
          'workspace://c/up/x',
          '/canonical/esc/x',
          `${f.repo}/esc/x`,
        ]) {
          expect(await failure(() => f.host.resolveReference(ref)), ref).toBe('BAD_REFERENCE/SYMLINK_ESCAPE');
        }
        // Relative, through a base: the same walk.
        expect(await failure(() => f.host.resolveReference('up/README.md', { baseFile: '/worktrees/c/README.md' }))).toBe(
          'BAD_REFERENCE/SYMLINK_ESCAPE',
        );
      } finally {
        await f.close();
      }
    });

    it("relative paths: against the base file's folder, '..' inside or refused, a base in another root, the active workspace", async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c', role: 'wt' });
        const base = { baseFile: '/worktrees/c/src/a.ts' };
        expect(await f.host.resolveReference('b.ts', base)).toMatchObject({
          form: 'relative',
          namespacePath: '/worktrees/c/src/b.ts',
          exists: false,
        });
        expect(await f.host.resolveReference('../README.md', base)).toMatchObject({
          namespacePath: '/worktrees/c/README.md',
          exists: true,
        });
        expect(await f.host.resolveReference('./x/../a.ts', base)).toMatchObject({ namespacePath: '/worktrees/c/src/a.ts' });
        expect(await failure(() => f.host.resolveReference('../../x', base))).toBe('BAD_REFERENCE/PATH_ESCAPE');
        expect(await failure(() => f.host.resolveReference('../../c/README.md', base))).toBe('BAD_REFERENCE/PATH_ESCAPE');
        // A base in another root: the checkout's.
        expect(await f.host.resolveReference('../README.md', { baseFile: `${f.repo}/src/a.ts` })).toMatchObject({
          root: 'canonical',
          namespacePath: '/canonical/README.md',
        });
        expect(await f.host.resolveReference('a.ts', { baseFile: 'workspace://canonical/src/x.ts' })).toMatchObject({
          hostPath: `${f.repo}/src/a.ts`,
        });
        expect(await failure(() => f.host.resolveReference('README.md'))).toBe('BAD_REFERENCE/NO_BASE');
        // Without a base, a conversation's active workspace (its own, here).
        expect(await f.host.resolveReference('README.md', { conversation: 'c' })).toMatchObject({
          workspace: 'c',
          namespacePath: '/worktrees/c/README.md',
        });
        expect(await f.host.resolveReference('a.ts', { baseFile: 'src/x.ts', conversation: 'c' })).toMatchObject({
          namespacePath: '/worktrees/c/src/a.ts',
        });
      } finally {
        await f.close();
      }
    });

    it('URIs: percent-encoding decoded per segment, %2e%2e taken as .., encoded separators, backslashes, NUL and junk refused', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c', role: 'wt' });
        f.writeText(`${f.stateDir}/worktrees/c/my file%.txt`, 'x\n');
        const spaced = await f.host.resolveReference('workspace://c/my%20file%25.txt');
        expect(spaced).toMatchObject({
          namespacePath: '/worktrees/c/my file%.txt',
          exists: true,
          uri: 'workspace://c/my%20file%25.txt?root=c',
        });
        expect((await f.host.resolveReference('workspace://c/src/%2e%2e/README.md')).namespacePath).toBe('/worktrees/c/README.md');
        expect(await failure(() => f.host.resolveReference('workspace://c/%2e%2e/%2e%2e/etc/passwd'))).toBe('BAD_REFERENCE/PATH_ESCAPE');
        expect(await failure(() => f.host.resolveReference('workspace://c/../x'))).toBe('BAD_REFERENCE/PATH_ESCAPE');
        for (const ref of [
          'workspace://c/src%2Fa.ts',
          'workspace://c/src%5Ca.ts',
          'workspace://c/src\\a.ts',
          'workspace://c/a%00b',
          'workspace://c/a\u0000b',
          'workspace://c/%zz',
          'workspace://c/%C0%AE',
          'workspace://c/a#frag',
          'workspace://c/a?root=c&x=1',
          'workspace://c/a?root=c&root=c',
          'workspace://C/a',
          'workspace://c:80/a',
          'workspace:///a',
          'file:///etc/passwd',
          '',
          '/worktrees/c/a\u0000b',
          'src\\a.ts',
          `${f.repo}/src/../README.md`,
        ]) {
          expect(await failure(() => f.host.resolveReference(ref)), JSON.stringify(ref)).toBe('BAD_REFERENCE/BAD_FORM');
        }
        expect(await failure(() => f.host.resolveReference(42 as unknown as string))).toBe('BAD_REFERENCE/BAD_FORM');
      } finally {
        await f.close();
      }
    });

    it('unknown workspaces and paths in no root', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c', role: 'wt' });
        for (const ref of [
          '/worktrees/nobody/x',
          'workspace://nobody/x',
          `${f.stateDir}/worktrees/nobody/x`,
          `${f.stateDir}/copies/nobody`,
        ]) {
          expect(await failure(() => f.host.resolveReference(ref)), ref).toBe('UNKNOWN_CONVERSATION');
        }
        expect(await failure(() => f.host.resolveReference('README.md', { conversation: 'nobody' }))).toBe('UNKNOWN_CONVERSATION');
        expect(await failure(() => f.host.resolveReference('/elsewhere/x'))).toBe('BAD_REFERENCE/OUTSIDE_ROOTS');
        // c is a worktree: its id under copies/ is no root of it.
        expect(await failure(() => f.host.resolveReference(`${f.stateDir}/copies/c/x`))).toBe(
          f.stateInRepo ? 'OK' : 'BAD_REFERENCE/OUTSIDE_ROOTS',
        );
        const before = f.host.events().length;
        await f.host.resolveReference('/worktrees/c/README.md');
        expect(f.host.events()).toHaveLength(before);
      } finally {
        await f.close();
      }
    });
  });
}
