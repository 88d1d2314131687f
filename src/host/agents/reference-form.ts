/**
 * `parseReference`: which of the accepted forms a file reference is, taken apart (nothing is
 * looked up or read here).
 *
 * - A host path: absolute, inside the source checkout or the state directory (or under no
 *   namespace anchor). No '..' (BAD_FORM): what a host path with '..' names depends on the links
 *   on its way, and gatefs never asks the host to resolve one (no realpath).
 * - A namespace path: `/canonical/…`, `/home/…`, `/worktrees/<id>` or `/worktrees/<id>/…`, when
 *   it is not a host path (the host roots win: a checkout under `/home/…` is a host path).
 * - A `workspace://<workspace>/<path>?root=<root>` URI: `<workspace>` is `canonical`, `home` or a
 *   conversation id; each segment is percent-decoded on its own (`%2e%2e` is '..', as RFC 3986
 *   makes it); a decoded '/', backslash or NUL, a malformed escape, a fragment and any query key
 *   but one `root` are BAD_FORM.
 * - Anything else not starting with '/' and not `<scheme>://`: a relative path.
 *
 * In every form NUL, backslash and lone surrogates are BAD_FORM, as are names over 255 bytes and
 * references over 4096 bytes; '.' and empty segments vanish; '..' segments are kept for the walk,
 * which takes them physically inside the root (src/host/agents/reference-walk.ts).
 */
import { MAX_NAME_BYTES, MAX_PATH_BYTES, utf8Length } from '../../../vfs/index.js';
import type { HostPlatform } from '../platform/index.js';
import { badReference } from './file-reference.js';

/** A reference taken apart. `segments` keep '..'. */
export type ParsedReference =
  | { form: 'host'; path: string }
  | { form: 'namespace'; workspace: string; segments: string[] }
  | { form: 'uri'; workspace: string; segments: string[]; root: string | null }
  | { form: 'relative'; segments: string[] };

const URI_PREFIX = 'workspace://';
const ANY_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** Takes `reference` apart (see the file comment). Throws `WorkspaceError` `BAD_REFERENCE` (`BAD_FORM`). */
export function parseReference(platform: Pick<HostPlatform, 'repo' | 'stateDir' | 'relativeInside'>, reference: unknown): ParsedReference {
  if (typeof reference !== 'string' || reference.length === 0) throw badReference('BAD_FORM', reference, 'it is empty or not a string');
  if (utf8Length(reference) > MAX_PATH_BYTES) throw badReference('BAD_FORM', reference, 'it is longer than 4096 bytes');
  if (reference.startsWith(URI_PREFIX)) return parseUri(reference);
  if (ANY_SCHEME.test(reference)) throw badReference('BAD_FORM', reference, 'the only URI scheme accepted is workspace://');
  checkText(reference, reference);
  const segments = segmentsOf(reference, reference);
  if (!reference.startsWith('/')) return { form: 'relative', segments };
  const normal = `/${segments.join('/')}`;
  const onHost = platform.relativeInside(platform.repo, normal) !== null || platform.relativeInside(platform.stateDir, normal) !== null;
  const [first, second] = segments;
  if (!onHost && (first === 'canonical' || first === 'home')) return { form: 'namespace', workspace: first, segments: segments.slice(1) };
  if (!onHost && first === 'worktrees') {
    if (second === undefined || second === '..')
      throw badReference('BAD_FORM', reference, '/worktrees/<id> names a workspace: the id is missing');
    return { form: 'namespace', workspace: second, segments: segments.slice(2) };
  }
  if (segments.includes('..')) {
    throw badReference('BAD_FORM', reference, "a host path with '..' means what the links on its way make it mean: give it without '..'");
  }
  return { form: 'host', path: normal };
}

/** The segments of a path, '.' and empty ones dropped, '..' kept; names checked for length. */
function segmentsOf(path: string, reference: string): string[] {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (utf8Length(seg) > MAX_NAME_BYTES) throw badReference('BAD_FORM', reference, 'a name is longer than 255 bytes');
    out.push(seg);
  }
  return out;
}

/** BAD_FORM for NUL, backslash or a lone surrogate in `text`. */
function checkText(text: string, reference: string): void {
  if (/[\u0000\\]/.test(text)) throw badReference('BAD_FORM', reference, 'paths may not contain NUL or backslash');
  if (!text.isWellFormed()) throw badReference('BAD_FORM', reference, 'it is not well-formed Unicode (lone surrogate)');
}

/** `workspace://<workspace>/<path>?root=<root>` taken apart (see the file comment). */
function parseUri(reference: string): ParsedReference {
  const rest = reference.slice(URI_PREFIX.length);
  if (rest.includes('#')) throw badReference('BAD_FORM', reference, 'a workspace:// URI has no fragment');
  checkText(rest, reference);
  const query = rest.indexOf('?');
  const pathPart = query === -1 ? rest : rest.slice(0, query);
  const slash = pathPart.indexOf('/');
  const workspace = slash === -1 ? pathPart : pathPart.slice(0, slash);
  if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(workspace)) {
    throw badReference('BAD_FORM', reference, "the URI's host must be a workspace id: 'canonical', 'home' or a conversation id");
  }
  const segments: string[] = [];
  for (const raw of slash === -1 ? [] : pathPart.slice(slash + 1).split('/')) {
    const seg = decoded(raw, reference);
    if (/[/\\\u0000]/.test(seg)) throw badReference('BAD_FORM', reference, 'an encoded segment holds a separator, a backslash or NUL');
    segments.push(...segmentsOf(seg, reference));
  }
  return { form: 'uri', workspace, segments, root: query === -1 ? null : rootParameter(rest.slice(query + 1), reference) };
}

/** The `root` of a URI's query: the only key it may have, once. */
function rootParameter(query: string, reference: string): string | null {
  let root: string | null = null;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const key = decoded(at === -1 ? pair : pair.slice(0, at), reference);
    if (key !== 'root' || root !== null || at === -1) {
      throw badReference('BAD_FORM', reference, "a workspace:// URI's query holds one root=<id> and nothing else");
    }
    root = decoded(pair.slice(at + 1), reference);
  }
  return root;
}

/** One percent-decoded URI component; BAD_FORM when its escapes are malformed or not UTF-8. */
function decoded(component: string, reference: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    throw badReference('BAD_FORM', reference, 'a percent escape is malformed or not UTF-8');
  }
}
