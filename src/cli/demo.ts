/**
 * `gatefs demo`: a self-contained tour in a temp folder. Builds a sample git repo from
 * `fixtures/sample-repo`, prepares two conversations and shows, screen by screen: isolation
 * (a write in one is invisible to the other and to the main checkout), a read-only mount
 * refusing a write, a path escape refused, progressive disclosure, and the run log.
 * Everything goes through the real host and its tool gate, as an agent's calls would.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from './command.js';
import type { Output } from './output.js';
import type { Host } from '../host/composition/index.js';
import type { ToolResult } from '../../tools/index.js';
import { loadCreateHost } from './open-host.js';
import { buildSampleRepo } from './demo-repo.js';
import { formatStatusTable } from './status-table.js';
import { formatRunLog } from './run-log.js';
import { toolResultText } from '../mcp/text/index.js';

/** The `demo` command. */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'a five-minute tour in a temp folder: isolation, read-only mounts, escapes, disclosure, the run log',
  usage: 'gatefs demo [--keep]',
  positionals: [],
  options: { keep: { type: 'boolean' } },
  optionHelp: [['--keep', 'keep the temp folder afterwards (its path is printed)']],
  async run({ flags, out }) {
    const root = mkdtempSync(join(tmpdir(), 'gatefs-demo-'));
    const repo = join(root, 'greeter');
    try {
      await tour(repo, out);
    } finally {
      if (flags.keep) out.print(`\nThe demo folder is kept at ${root}`);
      else rmSync(root, { recursive: true, force: true });
    }
    return 0;
  },
};

async function tour(repo: string, out: Output): Promise<void> {
  const screen = (n: number, title: string) => out.print(`\n── ${n}/6 ${title} ${'─'.repeat(Math.max(3, 60 - title.length))}`);
  const show = (who: string, tool: string, args: Record<string, unknown>, r: ToolResult) => {
    const text = toolResultText(tool, r).trimEnd().split('\n').slice(0, 6).join('\n     ');
    out.print(`  ${who} ${tool} ${JSON.stringify(args)}\n  → ${r.ok ? 'ok' : 'refused'}: ${text}`);
  };

  screen(1, 'A sample repository and two conversations');
  out.progress('building the sample repository (git init, commit)…');
  await buildSampleRepo(repo);
  out.print(`  A git repository with src/, docs/ and a read-only .campaign/ brief, plus gatefs.yaml.`);
  const createHost = await loadCreateHost();
  const host = await createHost({ repo, manifest: join(repo, 'gatefs.yaml') });
  try {
    for (const conversation of ['alice', 'bob']) {
      out.progress(`preparing conversation "${conversation}"…`);
      await host.prepare({ conversation, role: 'implementer' });
    }
    out.print(`  Each conversation gets its own git worktree, pinned at the same commit:\n`);
    out.print(indent(formatStatusTable(host.status())));

    screen(2, 'A write in one conversation is invisible elsewhere');
    const edit = { path: 'src/greeting.js', oldString: 'Hello', newString: 'Hi there' };
    show('alice', 'edit', edit, await host.gate.call('alice', 'edit', edit));
    const readArgs = { path: 'src/greeting.js', offset: 3, limit: 1 };
    show('alice', 'read', readArgs, await host.gate.call('alice', 'read', readArgs));
    show('bob  ', 'read', readArgs, await host.gate.call('bob', 'read', readArgs));
    const onDisk = readFileSync(join(repo, 'src/greeting.js'), 'utf8').split('\n')[2].trim();
    out.print(`  main checkout on disk, line 3: ${onDisk}`);

    screen(3, 'A read-only mount refuses writes');
    const ro = { path: '.campaign/brief.md', content: 'rewritten by an agent\n' };
    show('alice', 'write', ro, await host.gate.call('alice', 'write', ro));

    screen(4, 'Paths that leave the workspace are refused');
    for (const path of ['../../etc/passwd', '/etc/hostname', '/worktrees/bob/src/greeting.js']) {
      show('alice', 'read', { path }, await host.gate.call('alice', 'read', { path }));
    }

    screen(5, 'Progressive disclosure');
    await disclosure(host, out, show);

    screen(6, 'The run log (every call, preparation and refusal is recorded)');
    const events = host.events();
    const commands = events.filter((e) => e.type === 'exec').length;
    out.print(indent(formatRunLog(events.filter((e) => e.type !== 'exec'))));
    out.print(`  (+ ${commands} git commands run by the preparations, recorded as "exec" events with their argv)`);
    out.print(
      '\nNext: README.md "Quick start" takes a repository of yours from install to a landed change; "Connect your agent" serves it to your agent over MCP.',
    );
  } finally {
    await host.close();
  }
}

type Show = (who: string, tool: string, args: Record<string, unknown>, r: ToolResult) => void;

async function disclosure(host: Host, out: Output, show: Show): Promise<void> {
  try {
    await host.prepare({ conversation: 'carol', role: 'reviewer' });
  } catch (e) {
    out.print(`  Not available yet: preparing a reviewer with a disclosure policy failed (${(e as Error).message.split('\n')[0]}).`);
    return;
  }
  if (!host.gate.tools('carol').some((t) => t.name === 'request_files')) {
    out.print('  Not available yet: this build of gatefs does not offer request_files.');
    return;
  }
  out.print('  carol (role reviewer) starts with README.md and src/greeting.js only:');
  const secret = { path: 'src/secret-config.js' };
  show('carol', 'read', secret, await host.gate.call('carol', 'read', secret));
  const ask = { paths: ['src/secret-config.js'], reason: 'check the retry setting' };
  show('carol', 'request_files', ask, await host.gate.call('carol', 'request_files', ask));
  show('carol', 'read', secret, await host.gate.call('carol', 'read', secret));
  out.print('  package.json lies outside allowed_paths [src, docs]: it reads as if it did not exist.');
  const outside = { path: 'package.json' };
  show('carol', 'read', outside, await host.gate.call('carol', 'read', outside));
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
