/**
 * `CliSnapshotGit`: the snapshot port (snapshot-git.ts) on the git program, through the host-exec
 * port (each command in the run log with its task tag and conversation chain). Production
 * implementation.
 *
 * A snapshot is written by one `git fast-import` process fed as a stream: each file's bytes are
 * read (`bytes()`) and written one file at a time, waiting for the pipe (so a large workspace
 * never sits in memory at once), then one commit on the new ref. fast-import stores the bytes it
 * is given as they are: no index, no work tree, no attribute, filter, `core.autocrlf` or hook
 * takes part, and the worktree's branch, HEAD and index are never touched. The blob and commit
 * oids are git's own answers to `get-mark` in the same stream (right for a SHA-256 repository
 * too). Reading back is `ls-tree`, one `cat-file --batch` for all blobs, `cat-file commit`;
 * refs are listed with `for-each-ref` and deleted in one `update-ref --stdin`.
 *
 * Sessions: every command here is a `refSession` (no driver list read). fast-import, ls-tree,
 * cat-file (without `--filters`/`--textconv`), for-each-ref and update-ref read and write objects
 * and refs only: none of them opens a work tree, reads `.gitattributes` or runs a filter, diff or
 * merge driver, so the driver overrides a full `session` adds would change nothing (hooks, gc and
 * the rest stay off as in every session). All of them run in the main repository (`repo`), whose
 * objects and refs its worktrees share.
 *
 * Limits: the ref is checked absent (`show-ref`) before the import; a ref created between the
 * check and the import's end is moved only when the new commit descends from it (fast-import never
 * moves a ref otherwise without `--force`), a race only two writers of the same snapshot ref run.
 * Paths are taken as UTF-8; a name git lists that is not UTF-8 reads with replacement characters.
 */
import type { HostExec } from '../ports/index.js';
import { GitError, type GitContext } from './git-port.js';
import { cliSnapshotPatch } from './cli-snapshot-patch.js';
import { assertFullRef, assertSha } from './landing-names.js';
import { NeutralGitRunner, commandFailure as failure, refReadFailure, type GitSession } from './neutral-git-runner.js';
import {
  SNAPSHOT_IDENTITY,
  assertSnapshotPath,
  assertSnapshotTime,
  byPath,
  finalOids,
  snapshotMessage,
  type SnapshotChange,
  type SnapshotGit,
  type SnapshotPatch,
  type SnapshotPatchRequest,
  type SnapshotTreeEntry,
  type SnapshotWrite,
} from './snapshot-git.js';

/** How a `CliSnapshotGit` is made: the host-exec port and a per-command timeout. */
interface CliSnapshotGitOptions {
  exec: HostExec;
  /** Per-command timeout (default 10 minutes). */
  timeoutMs?: number;
}

const SNAPSHOT_MODES = new Set(['100644', '100755', '120000']);

/** About how many bytes of the fast-import stream go to the pipe in one write. */
const CHUNK = 256 * 1024;

/**
 * glibc's malloc for fast-import: by default it gives memory back to the system after nearly
 * every blob (one `brk` pair per allocation; 83,000 of them for 20,000 small files, over a
 * second of system time); a 16 MiB pad and a 32 MiB trim threshold keep it (measured here: 20,000
 * files 5.4 s → 1.0 s, peak memory unchanged at ~10 MiB). Other C libraries ignore the variable.
 */
const IMPORT_ENV = { GLIBC_TUNABLES: 'glibc.malloc.top_pad=16777216:glibc.malloc.trim_threshold=33554432' };

/**
 * `--depth=0`: fast-import stores every object whole (zlib only), as `git add` does, instead of
 * trying each blob as a delta of the one before it in the stream — in a snapshot another path,
 * a delta of which rarely pays. The try costs about as much as the compression (measured here:
 * 32 new 1 MiB random files 2.5 s → 1.7 s; 20,000 small text files 2.4 s → 1.7 s and a pack 6 % smaller,
 * synthetic). A later `git gc` deltifies the pack as it does loose objects.
 */
const IMPORT_ARGS = ['fast-import', '--quiet', '--done', '--depth=0'];

/** The snapshot port on the git program through host exec (see the file comment). */
export class CliSnapshotGit implements SnapshotGit {
  private readonly git: NeutralGitRunner;

  constructor(options: CliSnapshotGitOptions) {
    this.git = new NeutralGitRunner(options.exec, options.timeoutMs ?? 600_000);
  }

  async writeSnapshot(repo: string, o: SnapshotWrite, context: GitContext): Promise<{ commit: string; oids: Map<string, string> }> {
    assertFullRef(o.ref, 'fast-import');
    if (o.parent !== null) assertSha(o.parent, 'fast-import');
    assertSnapshotTime(o.time, 'fast-import');
    for (const c of o.changes) assertSnapshotPath(c.path, 'fast-import');
    const s = this.git.refSession(repo, context, false);
    const exists = await this.git.run(s, ['show-ref', '--verify', '--quiet', o.ref]);
    if (exists.exitCode === 0) throw new GitError('COMMAND_FAILED', 'fast-import', `'${o.ref}' exists: a snapshot ref is never moved`);
    if (exists.exitCode !== 1) throw refReadFailure('show-ref', exists);
    const stream = new ImportStream(o);
    const out = new Collected();
    const importing: GitSession = { ...s, env: { ...s.env, ...IMPORT_ENV } };
    const r = await this.git.run(importing, IMPORT_ARGS, { input: stream.chunks(), onStdout: out.push });
    if (stream.failure !== undefined) throw stream.failure;
    if (r.exitCode !== 0) throw failure('fast-import', r);
    const marks = out.text().split('\n').filter(Boolean);
    const commit = marks[marks.length - 1];
    if (marks.length !== stream.blobs.length + 1 || !/^[0-9a-f]{40,64}$/.test(commit ?? ''))
      throw new GitError('COMMAND_FAILED', 'fast-import', `unexpected answer to get-mark: '${out.text().slice(0, 200)}'`);
    const oidOf = new Map(stream.blobs.map((index, k) => [index, marks[k]!]));
    return { commit: commit!, oids: finalOids(o.changes, (i) => oidOf.get(i)) };
  }

  async listTree(repo: string, commit: string, context: GitContext): Promise<SnapshotTreeEntry[]> {
    assertSha(commit, 'ls-tree');
    const s = this.git.refSession(repo, context, false);
    const out = new Collected();
    const r = await this.git.run(s, ['ls-tree', '-r', '-z', '--full-tree', commit], { onStdout: out.push });
    if (r.exitCode !== 0) throw failure('ls-tree', r);
    const entries: SnapshotTreeEntry[] = [];
    for (const record of out.text().split('\0')) {
      if (record === '') continue;
      const tab = record.indexOf('\t');
      const [mode, , oid] = record.slice(0, tab).split(' ');
      // A gitlink (160000) names a commit of another repository: no file of this snapshot.
      if (tab === -1 || !SNAPSHOT_MODES.has(mode ?? '') || oid === undefined) continue;
      entries.push({ path: record.slice(tab + 1), mode: mode as SnapshotTreeEntry['mode'], oid });
    }
    return entries.sort(byPath);
  }

  async readBlobs(repo: string, oids: readonly string[], context: GitContext): Promise<Map<string, Uint8Array>> {
    const wanted = [...new Set(oids)];
    for (const oid of wanted) assertSha(oid, 'cat-file');
    if (wanted.length === 0) return new Map();
    const s = this.git.refSession(repo, context, false);
    const parser = new BatchParser();
    const r = await this.git.run(s, ['cat-file', '--batch'], { input: `${wanted.join('\n')}\n`, onStdout: (c) => parser.push(c) });
    if (r.exitCode !== 0) throw failure('cat-file', r);
    const blobs = parser.finish();
    for (const oid of wanted) if (!blobs.has(oid)) throw new GitError('OBJECT_MISSING', 'cat-file', `blob ${oid} is not in the repository`);
    return blobs;
  }

  async message(repo: string, commit: string, context: GitContext): Promise<string> {
    assertSha(commit, 'cat-file');
    const s = this.git.refSession(repo, context, false);
    const r = await this.git.run(s, ['cat-file', 'commit', commit]);
    if (r.exitCode !== 0) throw new GitError('BAD_REF', 'cat-file', `${commit} is not a commit of the repository`);
    const at = r.stdout.indexOf('\n\n');
    return at === -1 ? '' : r.stdout.slice(at + 2);
  }

  async listRefs(repo: string, prefix: string, context: GitContext): Promise<{ ref: string; sha: string }[]> {
    assertFullRef(prefix.replace(/\/$/, ''), 'for-each-ref');
    const s = this.git.refSession(repo, context, false);
    const r = await this.git.run(s, ['for-each-ref', '--format=%(refname)%00%(objectname)', prefix]);
    if (r.exitCode !== 0) throw refReadFailure('for-each-ref', r);
    return r.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [ref, sha] = line.split('\0');
        return { ref: ref!, sha: sha! };
      });
  }

  snapshotPatch(_repo: string, o: SnapshotPatchRequest, context: GitContext): Promise<SnapshotPatch> {
    return cliSnapshotPatch(this.git, o, context);
  }

  async deleteRefs(repo: string, refs: readonly string[], context: GitContext): Promise<void> {
    for (const ref of refs) assertFullRef(ref, 'update-ref');
    if (refs.length === 0) return;
    const s = this.git.refSession(repo, context, false);
    const input = refs.map((ref) => `delete ${ref}\n`).join('');
    const r = await this.git.run(s, ['update-ref', '--stdin'], { input });
    if (r.exitCode !== 0) throw failure('update-ref', r);
  }
}

/**
 * The fast-import stream of one snapshot: a `blob` with a mark per file or link (bytes read one
 * file at a time), one `commit` applying every change in order, a `get-mark` for each blob and
 * for the commit (their oids, on standard output in that order), and `done`.
 */
class ImportStream {
  /** The change index of each blob, in mark order (mark k+1). */
  readonly blobs: number[] = [];
  /** What `bytes()` threw, when it did (the stream then stops and the import is killed). */
  failure: unknown;

  constructor(private readonly o: SnapshotWrite) {}

  async *chunks(): AsyncGenerator<Uint8Array> {
    try {
      yield* this.generate();
    } catch (e) {
      this.failure = e;
      throw e;
    }
  }

  private async *generate(): AsyncGenerator<Uint8Array> {
    // Small pieces are gathered into chunks of about CHUNK bytes (one pipe write each); a file
    // is still read only when the chunk before it has been handed to the pipe.
    const pending: Uint8Array[] = [];
    let size = 0;
    const put = (piece: Uint8Array | string): Uint8Array | null => {
      const bytes = typeof piece === 'string' ? text(piece) : piece;
      pending.push(bytes);
      size += bytes.length;
      if (size < CHUNK) return null;
      size = 0;
      return Buffer.concat(pending.splice(0));
    };
    const markOf = new Map<number, number>();
    for (const [i, c] of this.o.changes.entries()) {
      if (c.kind === 'delete') continue;
      const bytes = c.kind === 'file' ? await c.bytes() : text(c.target);
      this.blobs.push(i);
      markOf.set(i, this.blobs.length);
      for (const piece of [`blob\nmark :${this.blobs.length}\ndata ${bytes.length}\n`, bytes, '\n']) {
        const full = put(piece);
        if (full) yield full;
      }
    }
    const who = `${SNAPSHOT_IDENTITY.name} <${SNAPSHOT_IDENTITY.email}> ${this.o.time} +0000`;
    const message = text(snapshotMessage(this.o.message));
    const commitMark = this.blobs.length + 1;
    const from = this.o.parent === null ? '' : `from ${this.o.parent}\n`;
    const pieces: (string | Uint8Array)[] = [
      `commit ${this.o.ref}\nmark :${commitMark}\nauthor ${who}\ncommitter ${who}\ndata ${message.length}\n`,
      message,
      from,
    ];
    for (const [i, c] of this.o.changes.entries()) pieces.push(changeLine(c, markOf.get(i)));
    pieces.push('\n');
    for (let mark = 1; mark <= commitMark; mark++) pieces.push(`get-mark :${mark}\n`);
    pieces.push('done\n');
    for (const piece of pieces) {
      const full = put(piece);
      if (full) yield full;
    }
    if (pending.length > 0) yield Buffer.concat(pending);
  }
}

/** The fast-import file change line of `c` (`mark`: its blob's mark, for a file or link). */
function changeLine(c: SnapshotChange, mark: number | undefined): string {
  if (c.kind === 'delete') return `D ${importPath(c.path)}\n`;
  const mode = c.kind === 'link' ? '120000' : c.executable ? '100755' : '100644';
  return `M ${mode} :${mark} ${importPath(c.path)}\n`;
}

/**
 * A path as fast-import reads it: as it is, or C-style quoted when it starts with `"` or holds a
 * line feed (fast-import requires it then; any other byte, a space or a backslash included, is
 * taken literally unquoted).
 */
export function importPath(path: string): string {
  if (!path.startsWith('"') && !path.includes('\n')) return path;
  return `"${path.replace(/[\\"\n]/g, (ch) => (ch === '\n' ? '\\n' : `\\${ch}`))}"`;
}

function text(s: string): Uint8Array {
  return Buffer.from(s, 'utf8');
}

/** Standard output collected as bytes (no cap), decoded once at the end. */
class Collected {
  private readonly parts: Uint8Array[] = [];
  readonly push = (chunk: Uint8Array): void => {
    this.parts.push(chunk);
  };

  text(): string {
    return Buffer.concat(this.parts).toString('utf8');
  }
}

/**
 * Parses `cat-file --batch` output as it arrives: `<oid> <type> <size>\n<bytes>\n` per object,
 * `<oid> missing\n` for an absent one. Each blob's bytes go into a buffer of their own size.
 */
class BatchParser {
  private readonly blobs = new Map<string, Uint8Array>();
  private header: Buffer = Buffer.alloc(0);
  private current: { oid: string; type: string; bytes: Buffer; filled: number } | null = null;
  /** Bytes of the line feed after an object still to skip. */
  private skip = 0;

  /** The first thing wrong with the output (thrown by `finish`: a throw here would be an output listener's). */
  private problem: GitError | undefined;

  push(chunk: Uint8Array): void {
    if (this.problem) return;
    try {
      this.take(chunk);
    } catch (e) {
      this.problem = e instanceof GitError ? e : new GitError('COMMAND_FAILED', 'cat-file', String(e));
    }
  }

  private take(chunk: Uint8Array): void {
    let data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (data.length > 0) {
      if (this.skip > 0) {
        this.skip--;
        data = data.subarray(1);
      } else if (this.current) {
        const c = this.current;
        const n = Math.min(c.bytes.length - c.filled, data.length);
        data.copy(c.bytes, c.filled, 0, n);
        c.filled += n;
        data = data.subarray(n);
        if (c.filled === c.bytes.length) this.finishObject();
      } else {
        const end = data.indexOf(0x0a);
        if (end === -1) {
          this.header = Buffer.concat([this.header, data]);
          return;
        }
        this.startObject(Buffer.concat([this.header, data.subarray(0, end)]).toString('utf8'));
        this.header = Buffer.alloc(0);
        data = data.subarray(end + 1);
      }
    }
  }

  finish(): Map<string, Uint8Array> {
    if (this.problem) throw this.problem;
    if (this.current || this.header.length > 0) throw new GitError('COMMAND_FAILED', 'cat-file', 'the output ended inside an object');
    return this.blobs;
  }

  private startObject(line: string): void {
    const [oid = '', type = '', size = ''] = line.split(' ');
    if (type === 'missing') return;
    if (!/^\d+$/.test(size)) throw new GitError('COMMAND_FAILED', 'cat-file', `unexpected line '${line.slice(0, 200)}'`);
    this.current = { oid, type, bytes: Buffer.allocUnsafe(Number(size)), filled: 0 };
    if (this.current.bytes.length === 0) this.finishObject();
  }

  private finishObject(): void {
    const c = this.current!;
    this.current = null;
    this.skip = 1;
    if (c.type !== 'blob') throw new GitError('OBJECT_MISSING', 'cat-file', `${c.oid} is a ${c.type}, not a blob`);
    this.blobs.set(c.oid, c.bytes);
  }
}
