/**
 * Which command lines `gatefs` answers `initialize` for before the CLI loads (`early-serve.ts`):
 * a plain stdio `serve` naming its conversation (or `auto`), and nothing else — another
 * command, `--help`, `--http`, an unknown flag or an invalid id are left to the CLI.
 */
import { describe, expect, it } from 'vitest';
import { earlyServeConversation } from '../../src/cli/early-serve.js';

describe('earlyServeConversation', () => {
  it.each([
    [['serve', '--conversation', 'my-task'], 'my-task'],
    [['serve', '--repo', '/r', '--conversation', 'auto'], undefined],
    [['--repo', '/r', 'serve', '--conversation', 'a_1', '--role', 'x', '--state-dir', '/s', '--manifest', '/m', '--json'], 'a_1'],
  ])('answers early for %j', (argv, conversation) => {
    expect(earlyServeConversation(argv)).toEqual({ conversation, profile: 'gatefs' });
  });

  it('answers early with the tool profile a command line names, whose instructions the early answer carries', () => {
    expect(earlyServeConversation(['serve', '--profile', 'claude-code', '--conversation', 'auto'])).toEqual({
      conversation: undefined,
      profile: 'claude-code',
    });
  });

  it.each([
    [['serve']],
    [['serve', '--conversation', 'Bad/Id']],
    [['serve', '--conversation', 'x', '--http', '127.0.0.1:0']],
    [['serve', '--conversation', 'x', '--help']],
    [['serve', '--conversation', 'x', '--token-file', 'f']],
    [['serve', '--conversation']],
    [['status', '--conversation', 'x']],
    [['serve', '--conversation', 'x', 'extra']],
    [['serve', '--conversation', 'x', '--profile', 'cursor']],
  ])('leaves %j to the CLI', (argv) => {
    expect(earlyServeConversation(argv)).toBeNull();
  });
});
