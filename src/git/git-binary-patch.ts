/**
 * `gitBinaryPatch`: the `GIT binary patch` part git writes for a binary file under `git diff
 * --binary` (`diff.c` `emit_binary_diff_body`): a `literal <size>` hunk of the new bytes,
 * zlib-deflated and cut into lines of at most 52 bytes, each line a length letter (`A`–`Z` for
 * 1–26, `a`–`z` for 27–52) and the bytes in git's base-85 (`base85.c`), then a blank line. Only
 * the forward hunk is written: `git apply` applies it (`git apply -R` would need the reverse one,
 * which git makes optional). Deterministic: the same bytes give the same text.
 */
import { deflateSync } from 'node:zlib';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';
const LINE_BYTES = 52;

/** The binary patch text of a file whose new content is `bytes` (empty for a deleted file). */
export function gitBinaryPatch(bytes: Uint8Array): string {
  const data = deflateSync(bytes);
  let out = `GIT binary patch\nliteral ${bytes.length}\n`;
  for (let at = 0; at < data.length; at += LINE_BYTES) {
    const line = data.subarray(at, Math.min(at + LINE_BYTES, data.length));
    const n = line.length;
    out += `${n <= 26 ? String.fromCharCode(64 + n) : String.fromCharCode(96 + n - 26)}${base85(line)}\n`;
  }
  return `${out}\n`;
}

/** git's base-85 of `bytes`, padded with zero bytes to a multiple of 4: five digits per 4 bytes, most significant first. */
function base85(bytes: Uint8Array): string {
  let out = '';
  for (let at = 0; at < bytes.length; at += 4) {
    let word = 0;
    for (let k = 0; k < 4; k++) word = word * 256 + (bytes[at + k] ?? 0);
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.push(ALPHABET[word % 85]!);
      word = Math.floor(word / 85);
    }
    out += digits.reverse().join('');
  }
  return out;
}
