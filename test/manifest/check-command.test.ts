import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinCommand, splitCommand } from '../../src/manifest/check-command.js';
import { ManifestError } from '../../src/manifest/manifest-error.js';

/** The argv a POSIX shell (`sh`, dash here) makes of `text` as printf's arguments. */
function shellWords(text: string): string[] {
  // A first word of our own, so printf always has an argument and the output is never empty.
  const out = execFileSync('sh', ['-c', `printf '%s\\000' first ${text}`], { encoding: 'utf8' });
  return out.slice(0, -1).split('\0').slice(1);
}

function refusal(text: string): ManifestError {
  try {
    splitCommand(text, { name: 'unit', keyPath: 'lander.checks[1].command' });
  } catch (e) {
    if (e instanceof ManifestError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

describe('splitCommand', () => {
  it('splits on blanks, keeps quoted text literal, handles escapes', () => {
    expect(splitCommand('npm test')).toEqual(['npm', 'test']);
    expect(splitCommand('\n  npx\tvitest  run  \n')).toEqual(['npx', 'vitest', 'run']);
    expect(splitCommand(`sh -c 'npm ci\nnpm test'`)).toEqual(['sh', '-c', 'npm ci\nnpm test']);
    expect(splitCommand(`grep -r 'a b|c$d*' "x \\"y\\" \\\\ \\n" it\\'s`)).toEqual(['grep', '-r', 'a b|c$d*', 'x "y" \\ \\n', "it's"]);
    expect(splitCommand(`echo '' "" a''b`)).toEqual(['echo', '', '', 'ab']);
    expect(splitCommand('echo a\\ b \\|')).toEqual(['echo', 'a b', '|']);
    expect(splitCommand('npm \\\n  test "a\\\nb"')).toEqual(['npm', 'test', 'ab']);
    expect(splitCommand('cmd --x=1 a#b c~d')).toEqual(['cmd', '--x=1', 'a#b', 'c~d']);
    expect(splitCommand('  ')).toEqual([]);
  });

  it("a check written sh -c '…' is just that argv", () => {
    expect(splitCommand(`sh -c 'npm test | tee log; exit \${PIPESTATUS:-0}'`)).toEqual([
      'sh',
      '-c',
      'npm test | tee log; exit ${PIPESTATUS:-0}',
    ]);
  });

  it('refuses what a shell would act on, naming the check, the key path and the way out', () => {
    const e = refusal('npm test | tee log');
    expect(e.code).toBe('INVALID_VALUE');
    expect(e.keyPath).toBe('lander.checks[1].command');
    expect(e.message).toContain("the check 'unit' uses the shell operator '|' outside quotes");
    expect(e.message).toContain("sh -c '…'");
    for (const [text, what] of [
      ['make && make test', "'&'"],
      ['npm ci\nnpm test', 'line break outside quotes'],
      ['a; b', "';'"],
      ['a > out', "'>'"],
      ['a < in', "'<'"],
      ['(a)', "'('"],
      ['echo $HOME', "'$'"],
      ['echo `id`', "'`'"],
      ['ls *.ts', "'*'"],
      ['ls a?', "'?'"],
      ['ls [ab]', "'['"],
      ['echo {a,b}', "'{'"],
      ['ls ~/x', "'~'"],
      ['npm test # comment', "'#'"],
      ['echo "$HOME"', "'$' inside double quotes"],
      ['echo "`id`"', "'`' inside double quotes"],
      ['NODE_ENV=test npm test', "assignment 'NODE_ENV=…'"],
      ['CI="1" npm test', "assignment 'CI=…'"],
      ['! false', "'!'"],
      ["echo 'open", 'unterminated single quote'],
      ['echo "open', 'unterminated double quote'],
      ['echo \\', 'ends with a backslash'],
    ]) {
      expect(refusal(text).message, text).toContain(what);
    }
  });

  it('a quoted or escaped look-alike is not refused', () => {
    expect(splitCommand(`'NODE_ENV=test' x`)).toEqual(['NODE_ENV=test', 'x']);
    expect(splitCommand('\\! x')).toEqual(['!', 'x']);
    expect(splitCommand("'~/x' \\#y '*'")).toEqual(['~/x', '#y', '*']);
    expect(splitCommand('echo "\\$HOME"')).toEqual(['echo', '$HOME']);
    expect(splitCommand('git a=b')).toEqual(['git', 'a=b']);
  });

  it('split(join(argv)) gives argv back, for any words', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 12 }), { minLength: 1, maxLength: 6 }), (argv) => {
        expect(splitCommand(joinCommand(argv))).toEqual(argv);
      }),
      { numRuns: 500 },
    );
  });

  it('safe words are written bare and round-trip', () => {
    const safe = fc.stringMatching(/^[A-Za-z0-9_@%+:,./-]{1,12}$/);
    fc.assert(
      fc.property(fc.array(safe, { minLength: 1, maxLength: 6 }), (argv) => {
        expect(joinCommand(argv)).toBe(argv.join(' '));
        expect(splitCommand(argv.join(' '))).toEqual(argv);
      }),
      { numRuns: 300 },
    );
  });

  it('whatever it accepts, a POSIX shell splits into the same words', () => {
    const piece = fc.constantFrom('a', 'b=', '\r', ' ', '\t', '\n', "'", '"', '\\', '$', '|', '*', '~', '#', '!', 'x y', '-', 'é');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const text = pieces.join('');
        let argv: string[];
        try {
          argv = splitCommand(`printf ${text}`).slice(1);
        } catch (e) {
          if (e instanceof ManifestError) return;
          throw e;
        }
        expect(argv, JSON.stringify(text)).toEqual(shellWords(text));
      }),
      { numRuns: 300 },
    );
  });
});
