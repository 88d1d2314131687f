/**
 * The command line itself, through the built binary: help on every command, usage errors with
 * exit code 2 and one clear line, no stack traces.
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { BIN, gatefs } from './run-gatefs.js';

const COMMANDS = [
  'demo',
  'init',
  'prepare',
  'status',
  'log',
  'call',
  'tools',
  'exec',
  'check',
  'serve',
  'token',
  'release',
  'diff',
  'commit',
  'submit',
  'lander',
  'messages',
  'subagent',
  'snapshot',
  'snapshots',
  'restore',
  'run',
  'artifacts',
  'doctor',
  'describe',
  'resolve',
  'home',
  'attach',
  'detach',
  'switch',
];

describe('gatefs --help', () => {
  it('lists every command with a summary and exits 0', async () => {
    const r = await gatefs(['--help']);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\s+\\S`, 'm'));
    expect(r.stdout).toContain('--json');
  });

  it.each(COMMANDS)('%s --help prints its usage and the global flags', async (command) => {
    const r = await gatefs([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: gatefs ${command}`);
    expect(r.stdout).toContain('--repo DIR');
    expect(r.stderr).toBe('');
  });

  it('serve --help gives stdio client configs that start gatefs from any folder: the command on PATH, and node with the absolute path of this main.js', async () => {
    const r = await gatefs(['serve', '--help']);
    const configs = r.stdout
      .split('\n')
      .filter((l) => l.includes('"mcpServers"'))
      .map((l) => (JSON.parse(l) as { mcpServers: { gatefs: { command: string; args: string[] } } }).mcpServers.gatefs);
    expect(configs.map((c) => c.command)).toEqual(['gatefs', 'node']);
    expect(configs[0]!.args).toEqual(['serve', '--repo', '/path/to/repo', '--conversation', 'auto']);
    expect(configs[1]!.args[0]).toBe(BIN);
    expect(existsSync(configs[1]!.args[0]!)).toBe(true);
    expect(configs[1]!.args.slice(1)).toEqual(['serve', '--repo', '/path/to/repo', '--conversation', 'auto']);
    expect(r.stdout).not.toContain('npx');
  });

  it('bare gatefs prints help and exits 2 (nothing was asked)', async () => {
    const r = await gatefs([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Usage: gatefs <command>');
  });

  it.each([['--version'], ['-v'], ['version']])('%s prints the package version and exits 0', async (word) => {
    const r = await gatefs([word]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+\S*$/);
    expect(r.stderr).toBe('');
  });

  it('gatefs help prints the main help and exits 0, naming help <command> and version', async () => {
    const r = await gatefs(['help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe((await gatefs(['--help'])).stdout);
    expect(r.stdout).toContain('gatefs help <command>');
    expect(r.stdout).toContain('gatefs version');
  });

  it.each(['serve', 'lander', 'call', 'release'])(
    'gatefs help <command> prints what gatefs <command> --help prints (%s)',
    async (command) => {
      const viaWord = await gatefs(['help', command]);
      expect(viaWord.code).toBe(0);
      expect(viaWord.stdout).toContain(`Usage: gatefs ${command}`);
      expect(viaWord.stdout).toBe((await gatefs([command, '--help'])).stdout);
    },
  );

  it('gatefs help of an unknown command is a usage error naming the closest command', async () => {
    const r = await gatefs(['help', 'sever']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^gatefs: unknown command "sever" \(did you mean "serve"\?\); the commands are demo, /);
  });
});

describe('usage errors exit 2 with one line naming the fix', () => {
  const cases: [string, string[], RegExp][] = [
    ['unknown command', ['frobnicate'], /unknown command "frobnicate"; the commands are demo, init/],
    ['a misspelt command', ['stauts'], /unknown command "stauts" \(did you mean "status"\?\); the commands are demo, init/],
    ['a shortened command', ['land', 'run'], /unknown command "land" \(did you mean "lander"\?\)/],
    ['a misspelt commit', ['comit', 'c1'], /unknown command "comit" \(did you mean "commit"\?\)/],
    ['unknown flag', ['status', '--colour'], /unknown flag '--colour'/],
    ['missing conversation', ['prepare'], /prepare needs <conversation>; missing <conversation>/],
    ['too many arguments', ['release', 'a', 'b'], /unexpected "b"/],
    ['bad conversation id', ['prepare', 'Bad/Id'], /"Bad\/Id" is not a valid conversation id/],
    ['invalid JSON arguments', ['call', 'c1', 'read', '{path:'], /not valid JSON/],
    ['flag without value', ['prepare', 'c1', '--role'], /argument missing|requires|--role/],
    [
      'a flag value that looks like a flag',
      ['prepare', 'c1', '--branch', '--force'],
      /gatefs: flag '--branch' argument is ambiguous: a value starting with '-' is written --branch=VALUE$/,
    ],
    ['bad listen address', ['serve', '--http', 'nowhere'], /--http expects HOST:PORT/],
    [
      '--no-token off loopback',
      ['serve', '--http', '0.0.0.0:0', '--no-token'],
      /refusing to serve on 0\.0\.0\.0 without a token: --no-token is accepted on a loopback address .* only/,
    ],
    [
      'a token on the command line',
      ['serve', '--http', '127.0.0.1:0', '--token', 'abcdefghijklmnopqrst'],
      /--token is not accepted: every local user can read a command line \(ps, \/proc\/<pid>\/cmdline\); put the token in a file of mode 600 and pass --token-file FILE, or set GATEFS_TOKEN/,
    ],
    [
      'a token on the command line (stdio)',
      ['serve', '--token=abcdefghijklmnopqrst'],
      /--token is not accepted: every local user can read a command line/,
    ],
    [
      '--no-token with --token-file',
      ['serve', '--http', '127.0.0.1:0', '--no-token', '--token-file', 'f'],
      /--no-token and --token-file contradict each other/,
    ],
    [
      '--role over HTTP without --allow-new',
      ['serve', '--http', '127.0.0.1:0', '--role', 'reviewer'],
      /--role applies to conversations the server prepares: add --allow-new, or prepare them first with gatefs prepare ID --role R/,
    ],
    ['--allow-new without --http', ['serve', '--allow-new'], /--allow-new is for --http; stdio needs none/],
    ['--token-file without --http', ['serve', '--token-file', 'f'], /--token-file is for --http; stdio needs none/],
    [
      'a missing token file',
      ['serve', '--http', '127.0.0.1:0', '--token-file', '/nonexistent-gatefs/token'],
      /cannot open the token file \/nonexistent-gatefs\/token: ENOENT/,
    ],
  ];
  it.each(cases)('%s', async (_name, args, message) => {
    const r = await gatefs(args);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(message);
    expect(lines[1]).toMatch(/Run "gatefs .*--help" for usage/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('global flags are accepted before the command word', async () => {
    const r = await gatefs(['--repo', '/nonexistent-gatefs', 'release', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: gatefs release');
  });
});
