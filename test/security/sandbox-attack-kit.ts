/**
 * Test support for the class S attack tests (SECURITY.md: commands in the sandbox): hashing the
 * trees outside an attacker's workspace, finding host processes a command left behind, and
 * collecting every answer text for the host-path and canary checks.
 *
 * Used by sandbox-attacks.test.ts (in the test process) and sandbox-user-child.ts (in a child
 * process run as an ordinary user).
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One entry per path under the root: type, mode, size, content hash, inode and link count (a hard link to it changes the count). */
export type TreeHash = Map<string, string>;

/** Hashes every entry under `root` (links not followed) except those `skip` names (absolute paths). */
export function hashTree(root: string, skip: (abs: string) => boolean = () => false): TreeHash {
  const out: TreeHash = new Map();
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const abs = join(dir, name);
      if (skip(abs)) continue;
      let st;
      try {
        st = lstatSync(abs);
      } catch {
        continue;
      }
      const rel = relative(root, abs);
      if (st.isSymbolicLink()) out.set(rel, `link ${readlinkSync(abs)}`);
      else if (st.isDirectory()) {
        out.set(rel, `dir ${st.mode.toString(8)}`);
        walk(abs);
      } else if (st.isFile()) {
        const sum = createHash('sha256').update(readFileSync(abs)).digest('hex').slice(0, 16);
        out.set(rel, `file ${st.mode.toString(8)} ${st.size} ${sum} ino=${st.ino} links=${st.nlink}`);
      } else out.set(rel, `other ${st.mode.toString(8)} rdev=${st.rdev}`);
    }
  };
  walk(root);
  return out;
}

/** The paths whose entry differs between two hashes (added, removed or changed), each with what it was and is. */
export function treeChanges(before: TreeHash, after: TreeHash): string[] {
  const out: string[] = [];
  for (const [path, then] of before) {
    const now = after.get(path);
    if (now === undefined) out.push(`removed ${path} (${then})`);
    else if (now !== then) out.push(`changed ${path} (${then} -> ${now})`);
  }
  for (const [path, now] of after) if (!before.has(path)) out.push(`added ${path} (${now})`);
  return out.sort();
}

/** Host processes (other than this one) whose command line holds `token`. */
export function processesWith(token: string): string[] {
  const found: string[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1');
      if (cmdline.includes(token)) found.push(`${name}: ${cmdline.replace(/\0/g, ' ').slice(0, 200)}`);
    } catch {
      /* gone */
    }
  }
  return found;
}

/** Waits until no host process holds `token` (up to `ms`), and returns those still there. */
export async function waitNoProcessWith(token: string, ms = 5_000): Promise<string[]> {
  const end = Date.now() + ms;
  let left = processesWith(token);
  while (left.length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesWith(token);
  }
  return left;
}

/** `value` quoted for `/bin/sh`. */
export function sh(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A shell line that tries to read and list each path, printing `REACHED <label>` for each one it
 * could (and nothing else: errors go to /dev/null, so the answer never echoes a host path).
 */
export function probeLine(paths: Record<string, string>): string {
  return Object.entries(paths)
    .map(
      ([label, p]) =>
        `{ cat ${sh(p)} >/dev/null 2>&1 || ls -a ${sh(p)} >/dev/null 2>&1 || [ -e ${sh(p)} ] || [ -L ${sh(p)} ]; } && echo ${sh(`REACHED ${label}`)}`,
    )
    .join('; ');
}
