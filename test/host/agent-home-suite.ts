/**
 * The agent home (`/home`) suite, run against the memory host and the disk host
 * (agent-home-memory.test.ts, agent-home-disk.test.ts): the seeded layout, one home across the
 * conversations of one agent, separate homes for separate agents, `.gatefs/` protected from
 * every writing tool, `tmp/` cleaning, links planted in the home, and `..` out of `/home`.
 */
import { describe, expect, it } from 'vitest';
import type { Host } from '../../src/host/composition/index.js';

/** What one backend gives the suite: a host and plain access to its state directory's files. */
export interface HomeFixture {
  host: Host;
  /** The host folder of `agent`'s home. */
  homeOf(agent: string): string;
  readText(path: string): string;
  writeText(path: string, text: string): void;
  exists(path: string): boolean;
  /** Entries of a host folder, sorted. */
  entries(path: string): string[];
  mkdir(path: string): void;
  /** Removes a host file or folder with everything in it (as a command in the home could). */
  remove(path: string): void;
  symlink(target: string, path: string): void;
  /** A host file outside every namespace, and its bytes (never to appear, never to change). */
  outside: { file: string; folder: string; text: string };
  close(): Promise<void>;
}

/** Roles: `writer` (every file tool) with backend `backend`. */
export function homeManifest(backend: string) {
  const tools = ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move'];
  return { roles: [{ name: 'writer', tools, workspace: { backend } }] };
}

type Setup = () => Promise<HomeFixture>;

async function call(host: Host, conversation: string, tool: string, args: unknown): Promise<{ ok: boolean; code: string; value: any }> {
  const r = await host.gate.call(conversation, tool, args);
  return r.ok ? { ok: true, code: 'OK', value: r.value } : { ok: false, code: r.error.code, value: r.error };
}

const LAYOUT = ['.gatefs', 'AGENTS.md', 'memory', 'notes', 'skills', 'tmp', 'work-items'];

/** The suite over one backend. */
export function agentHomeSuite(name: string, setup: Setup): void {
  describe(`agent home (${name})`, () => {
    it('seeds the layout on the first preparation, shows it at /home, and logs home.seeded once', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c1', agent: 'ada' });
        const home = f.homeOf('ada');
        expect(f.entries(home)).toEqual(LAYOUT);
        expect(f.entries(`${home}/memory`)).toEqual(['operator.md', 'self.md']);
        expect(JSON.parse(f.readText(`${home}/.gatefs/agent.json`))).toEqual({ agent: 'ada', layout: 1 });
        const guide = await call(f.host, 'c1', 'read', { path: '/home/AGENTS.md' });
        expect(guide.value.content).toContain('tmp/');
        expect(guide.value.content).toContain('.gatefs/');
        expect(guide.value.content).not.toContain(home);
        const listed = await call(f.host, 'c1', 'list', { path: '/home' });
        expect(listed.value.entries.map((e: { path: string }) => e.path)).toEqual(LAYOUT.map((p) => `/home/${p}`));
        // A second conversation of the same agent makes nothing: one home.seeded in all.
        await f.host.prepare({ conversation: 'c2', agent: 'ada' });
        const seeded = f.host.events().filter((e) => e.type === 'home.seeded');
        expect(seeded).toHaveLength(1);
        expect(seeded[0]).toMatchObject({ conversation: 'c1', data: { agent: 'ada' } });
        expect((seeded[0]!.data as { made: string[] }).made).toContain('.gatefs/agent.json');
      } finally {
        await f.close();
      }
    });

    it('makes missing parts again on the next preparation and never overwrites what is there', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c1', agent: 'ada' });
        await call(f.host, 'c1', 'write', { path: '/home/memory/self.md', content: 'I like small diffs\n' });
        f.remove(`${f.homeOf('ada')}/skills`);
        await call(f.host, 'c1', 'write', { path: '/home/AGENTS.md', content: 'my own guide\n' });
        await f.host.prepare({ conversation: 'c2', agent: 'ada' });
        const home = f.homeOf('ada');
        expect(f.entries(home)).toEqual(LAYOUT);
        expect(f.readText(`${home}/memory/self.md`)).toBe('I like small diffs\n');
        expect(f.readText(`${home}/AGENTS.md`)).toBe('my own guide\n');
        const last = f.host
          .events()
          .filter((e) => e.type === 'home.seeded')
          .at(-1);
        expect(last).toMatchObject({ conversation: 'c2', data: { agent: 'ada', made: ['skills'] } });
      } finally {
        await f.close();
      }
    });

    it("keeps notes across one agent's conversations, live between two at once, and the home outlives release", async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c1', agent: 'ada' });
        await f.host.prepare({ conversation: 'c2', agent: 'ada' });
        expect((await call(f.host, 'c1', 'write', { path: '/home/notes/x.md', content: 'from c1\n' })).ok).toBe(true);
        expect((await call(f.host, 'c2', 'read', { path: '/home/notes/x.md' })).value.content).toBe('from c1\n');
        await call(f.host, 'c2', 'edit', { path: '/home/notes/x.md', oldString: 'c1', newString: 'c2' });
        expect((await call(f.host, 'c1', 'read', { path: '/home/notes/x.md' })).value.content).toBe('from c2\n');
        // Both write one file at once: each write is whole, one of them wins.
        await Promise.all([
          call(f.host, 'c1', 'write', { path: '/home/notes/y.md', content: 'a'.repeat(5000) }),
          call(f.host, 'c2', 'write', { path: '/home/notes/y.md', content: 'b'.repeat(5000) }),
        ]);
        expect(['a'.repeat(5000), 'b'.repeat(5000)]).toContain(f.readText(`${f.homeOf('ada')}/notes/y.md`));
        await f.host.release('c1', { discard: true });
        await f.host.release('c2', { discard: true });
        expect(f.readText(`${f.homeOf('ada')}/notes/x.md`)).toBe('from c2\n');
        await f.host.prepare({ conversation: 'c3', agent: 'ada' });
        expect((await call(f.host, 'c3', 'read', { path: '/home/notes/x.md' })).value.content).toBe('from c2\n');
      } finally {
        await f.close();
      }
    });

    it("never shows one agent another agent's home", async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c1', agent: 'ada' });
        await f.host.prepare({ conversation: 'c2', agent: 'bob' });
        await call(f.host, 'c1', 'write', { path: '/home/notes/secret.md', content: 'ada only\n' });
        expect((await call(f.host, 'c2', 'read', { path: '/home/notes/secret.md' })).code).toBe('NOT_FOUND');
        for (const path of ['/home/../homes/ada/notes/secret.md', '/home/..', '../../home/x', '/homes/ada', '/home/../../etc/hostname']) {
          const r = await call(f.host, 'c2', 'read', { path });
          expect(r.ok, path).toBe(false);
          expect(JSON.stringify(r.value)).not.toContain('ada only');
        }
        const grep = await call(f.host, 'c2', 'grep', { pattern: 'ada only', path: '/home' });
        expect(JSON.stringify(grep.value)).not.toContain('secret');
        expect(f.entries(`${f.homeOf('bob')}/notes`)).toEqual([]);
      } finally {
        await f.close();
      }
    });

    it('refuses every change to /home/.gatefs with PROTECTED_PATH and leaves it as it was', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c1', agent: 'ada' });
        await call(f.host, 'c1', 'write', { path: '/home/notes/n.md', content: 'n\n' });
        await call(f.host, 'c1', 'write', { path: '/home/notes/d/inner.md', content: 'i\n' });
        const runtime = `${f.homeOf('ada')}/.gatefs`;
        const before = f.readText(`${runtime}/agent.json`);
        expect((await call(f.host, 'c1', 'read', { path: '/home/.gatefs/agent.json' })).value.content).toBe(before);
        const attempts: [string, unknown][] = [
          ['write', { path: '/home/.gatefs/agent.json', content: '{}' }],
          ['write', { path: '/home/.gatefs/new.json', content: '{}' }],
          ['write', { path: '/home/.gatefs/sub/deep.json', content: '{}' }],
          ['write', { path: '/home/.GATEFS/agent.json', content: '{}' }],
          ['edit', { path: '/home/.gatefs/agent.json', oldString: 'ada', newString: 'eve' }],
          ['delete', { path: '/home/.gatefs/agent.json' }],
          ['delete', { path: '/home/.gatefs' }],
          ['move', { from: '/home/.gatefs/agent.json', to: '/home/notes/agent.json' }],
          ['move', { from: '/home/notes/n.md', to: '/home/.gatefs/n.md' }],
          ['move', { from: '/home/notes/d', to: '/home/.gatefs/d' }],
          ['move', { from: '/home/.gatefs', to: '/home/notes/runtime' }],
        ];
        for (const [tool, args] of attempts) {
          const r = await call(f.host, 'c1', tool, args);
          expect(r.code, `${tool} ${JSON.stringify(args)}`).toBe('PROTECTED_PATH');
          expect(JSON.stringify(r.value)).not.toContain(f.homeOf('ada'));
        }
        // A link a command planted towards .gatefs: followed beneath /home, then refused there.
        f.symlink('../.gatefs', `${f.homeOf('ada')}/notes/rt`);
        for (const [tool, args] of [
          ['write', { path: '/home/notes/rt/agent.json', content: '{}' }],
          ['write', { path: '/home/notes/rt/new.json', content: '{}' }],
          ['edit', { path: '/home/notes/rt/agent.json', oldString: 'ada', newString: 'eve' }],
          ['delete', { path: '/home/notes/rt/agent.json' }],
        ] as const) {
          expect((await call(f.host, 'c1', tool, args)).code, `${tool} through a link`).toBe('PROTECTED_PATH');
        }
        expect(f.entries(runtime)).toEqual(['agent.json']);
        expect(f.readText(`${runtime}/agent.json`)).toBe(before);
        expect(f.entries(`${f.homeOf('ada')}/notes`)).toEqual(['d', 'n.md', 'rt']);
      } finally {
        await f.close();
      }
    });

    it('empties tmp/ on cleanHomeTmp: contents only, links removed as links, nothing outside touched', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c1', agent: 'ada' });
        const home = f.homeOf('ada');
        await call(f.host, 'c1', 'write', { path: '/home/tmp/a.txt', content: 'a' });
        await call(f.host, 'c1', 'write', { path: '/home/tmp/deep/er/b.txt', content: 'b' });
        await call(f.host, 'c1', 'write', { path: '/home/notes/keep.md', content: 'keep' });
        f.symlink(f.outside.folder, `${home}/tmp/out-folder`);
        f.symlink(f.outside.file, `${home}/tmp/out-file`);
        expect(await f.host.cleanHomeTmp('ada')).toBe(4);
        expect(f.entries(`${home}/tmp`)).toEqual([]);
        expect(f.readText(f.outside.file)).toBe(f.outside.text);
        expect(f.entries(f.outside.folder).length).toBeGreaterThan(0);
        expect(f.readText(`${home}/notes/keep.md`)).toBe('keep');
        expect(f.host.events().filter((e) => e.type === 'home.tmp_cleaned')).toEqual([
          expect.objectContaining({ conversation: null, data: { agent: 'ada', entries: 4 } }),
        ]);
        expect(await f.host.cleanHomeTmp('ada')).toBe(0);
        expect(await f.host.cleanHomeTmp('nobody')).toBe(0);
        await expect(f.host.cleanHomeTmp('../ada')).rejects.toMatchObject({
          code: 'PREPARATION_FAILED',
          data: { reason: 'BAD_AGENT_NAME' },
        });
        // tmp/ itself a link: refused, nothing removed through it.
        f.mkdir(`${home}/elsewhere`);
        f.writeText(`${home}/elsewhere/kept.txt`, 'kept');
        f.remove(`${home}/tmp`);
        f.symlink(`${home}/elsewhere`, `${home}/tmp`);
        await expect(f.host.cleanHomeTmp('ada')).rejects.toMatchObject({ code: 'STATE_UNTRUSTED' });
        expect(f.readText(`${home}/elsewhere/kept.txt`)).toBe('kept');
      } finally {
        await f.close();
      }
    });

    it('never follows a link planted in the home out of it, for the tools or for seeding', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c1', agent: 'ada' });
        const home = f.homeOf('ada');
        f.symlink(f.outside.folder, `${home}/notes/out`);
        f.symlink(f.outside.file, `${home}/notes/out.txt`);
        f.symlink('../../../..', `${home}/notes/up`);
        for (const [tool, args] of [
          ['read', { path: '/home/notes/out.txt' }],
          ['read', { path: '/home/notes/out/secret.txt' }],
          ['write', { path: '/home/notes/out.txt', content: 'pwned' }],
          ['write', { path: '/home/notes/out/new.txt', content: 'pwned' }],
          ['list', { path: '/home/notes/out' }],
          ['read', { path: '/home/notes/up/gatefs.db' }],
        ] as const) {
          const r = await call(f.host, 'c1', tool, args);
          expect(r.ok, `${tool} ${JSON.stringify(args)}`).toBe(false);
          expect(JSON.stringify(r.value)).not.toContain(f.outside.text);
        }
        expect(f.readText(f.outside.file)).toBe(f.outside.text);
        expect(f.exists(`${f.outside.folder}/new.txt`)).toBe(false);
        // A part of the layout swapped for a link: the next preparation refuses it, writes nothing through it.
        f.remove(`${home}/memory`);
        f.symlink(f.outside.folder, `${home}/memory`);
        await expect(f.host.prepare({ conversation: 'c2', agent: 'ada' })).rejects.toMatchObject({ code: 'STATE_UNTRUSTED' });
        expect(f.exists(`${f.outside.folder}/self.md`)).toBe(false);
      } finally {
        await f.close();
      }
    });

    it('refuses a home folder that is a link (STATE_UNTRUSTED) and makes nothing through it', async () => {
      const f = await setup();
      try {
        await f.host.prepare({ conversation: 'c1', agent: 'ada' });
        const area = f.homeOf('ada').slice(0, -'/ada'.length);
        f.symlink(f.outside.folder, `${area}/eve`);
        await expect(f.host.prepare({ conversation: 'c2', agent: 'eve' })).rejects.toMatchObject({ code: 'STATE_UNTRUSTED' });
        expect(f.exists(`${f.outside.folder}/AGENTS.md`)).toBe(false);
        expect(f.host.status().find((s) => s.conversation === 'c2')).toBeUndefined();
      } finally {
        await f.close();
      }
    });
  });
}
