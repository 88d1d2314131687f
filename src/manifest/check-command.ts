/**
 * The shell-free split of a lander check's command (docs/ARCHITECTURE.md § Manifest and settings):
 * the text becomes an argv the way a POSIX shell would split a simple command, but nothing is
 * expanded. Anything a shell would treat as an operator or an expansion is refused, so a check
 * never means something different from what a reader of the settings would think; a check that
 * needs a shell says so: `sh -c '…'` splits to ['sh', '-c', '…'].
 */
import { ManifestError } from './manifest-error.js';

/** Where a command came from, for the error message. */
interface CommandOrigin {
  /** The check's name. */
  name: string;
  /** The key path of the command (`lander.checks[1].command`). */
  keyPath: string;
}

/** Characters that are shell operators or expansions anywhere outside quotes. */
const OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']', '{', '}']);
/** Characters that are special only at the start of a word (tilde expansion, a comment). */
const WORD_START = new Set(['~', '#']);
const SPACE = /[ \t]/;
/** An unquoted `NAME` before an `=` in the first word makes it a variable assignment, not a program. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Splits `text` into an argv. Rules: blanks (space, tab) separate words, and line breaks at
 * the start or end are ignored (a YAML block scalar ends with one); `'…'` is
 * literal; inside `"…"` a backslash escapes `"`, `\`, `$` and `` ` `` and is otherwise kept;
 * outside quotes a backslash makes the next character literal; a backslash before a line
 * break joins the lines, as in a shell. Result: the words (empty for
 * blank text). Throws `ManifestError` `INVALID_VALUE` at `origin.keyPath`, naming the check,
 * for an unterminated quote, a trailing backslash, and anything a shell would act on: an
 * unquoted line break (a command separator) or carriage return, or `| & ; < > ( ) $ \` * ? [ ] { }`, `~` or `#` at the start of a word, `$` or
 * `` ` `` inside double quotes, a first word `NAME=value` (an assignment) or `!`. The message
 * says to write the check as `sh -c '…'` when a shell is meant. Limits: no other reserved
 * word is recognised (`if` is taken as a program name).
 */
export function splitCommand(text: string, origin: CommandOrigin = { name: text, keyPath: '' }): string[] {
  const refuse = (what: string): never => {
    throw new ManifestError(
      'INVALID_VALUE',
      origin.keyPath,
      `the check '${origin.name}' ${what}: checks run without a shell; write it as sh -c '…' if a shell is meant`,
    );
  };
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let rawStart = true; // the next character starts a word, nothing quoted yet
  let unquoted = true; // the word so far has no quote or escape
  const end = () => {
    if (!inWord) return;
    if (words.length === 0 && unquoted && word === '!') refuse("starts with the shell's '!'");
    words.push(word);
    word = '';
    inWord = false;
    rawStart = true;
    unquoted = true;
  };
  const trimmed = text.replace(/^[ \t\n]+|[ \t\n]+$/g, '');
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i];
    if (SPACE.test(c)) {
      end();
      continue;
    }
    if (c === '\\' && trimmed[i + 1] === '\n') {
      i++; // a line continuation: as if neither character were there
      continue;
    }
    if (c === '\n' || c === '\r')
      refuse(c === '\n' ? 'has a line break outside quotes (a shell runs each line as a command)' : 'has a carriage return outside quotes');
    const atStart = rawStart;
    rawStart = false;
    inWord = true;
    if (c === "'") {
      const close = trimmed.indexOf("'", i + 1);
      if (close < 0) refuse('has an unterminated single quote');
      word += trimmed.slice(i + 1, close);
      unquoted = false;
      i = close;
    } else if (c === '"') {
      unquoted = false;
      let j = i + 1;
      for (; j < trimmed.length && trimmed[j] !== '"'; j++) {
        const d = trimmed[j];
        if (d === '$' || d === '`') refuse(`uses the expansion '${d}' inside double quotes`);
        if (d === '\\' && trimmed[j + 1] === '\n')
          j++; // a line continuation
        else if (d === '\\' && j + 1 < trimmed.length && '"\\$`'.includes(trimmed[j + 1])) word += trimmed[++j];
        else word += d;
      }
      if (j >= trimmed.length) refuse('has an unterminated double quote');
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= trimmed.length) refuse('ends with a backslash');
      word += trimmed[++i];
      unquoted = false;
    } else if (OPERATORS.has(c)) {
      refuse(`uses the shell operator '${c}' outside quotes`);
    } else if (atStart && WORD_START.has(c)) {
      refuse(`starts a word with the shell's '${c}'`);
    } else {
      if (c === '=' && words.length === 0 && unquoted && VARIABLE_NAME.test(word))
        refuse(`starts with the variable assignment '${word}=…'`);
      word += c;
    }
  }
  end();
  return words;
}

/** A word `splitCommand` reads back unchanged without quotes. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Writes `argv` as command text that `splitCommand` reads back as the same argv: safe words
 * bare, the others in single quotes (a `'` inside written `'\''`), an empty word as `''`.
 * For showing a check in messages, and the inverse the tests check. Limits: a first word
 * containing `=` is quoted, so it is not read as an assignment.
 */
export function joinCommand(argv: readonly string[]): string {
  return argv.map((w, i) => (SAFE_WORD.test(w) && !(i === 0 && w.includes('=')) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(' ');
}
