/**
 * Loading a manifest: from a `gatefs.yaml` file, from YAML text, or from an already parsed
 * object. All three end in `manifestFromValue`, so every rule is checked the same way.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { defaultManifest } from './default.js';
import { ManifestError } from './manifest-error.js';
import { foreignCodeOf } from '../../vfs/index.js';
import { isMissingPath } from '../ports/index.js';
import { manifestFromValue } from './manifest-from-value.js';
import { WorkspaceError } from '../workspace-error.js';
import type { Manifest } from './types.js';

/** Key path → YAML path segments: 'roles[0].workspace' → ['roles', 0, 'workspace']. */
function segmentsOf(keyPath: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of keyPath.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

/** The line of the deepest existing node on the key path (a missing key points at its parent). */
function lineOf(doc: Document, counter: LineCounter, keyPath: string): number | null {
  const segments = segmentsOf(keyPath);
  for (let k = segments.length; k >= 0; k--) {
    const node = k === 0 ? doc.contents : doc.getIn(segments.slice(0, k), true);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (range) return counter.linePos(range[0]).line;
  }
  return null;
}

/** The same error with its message and data located at `source[:line]`. */
function locate(e: unknown, source: string, line: number | null): unknown {
  if (e instanceof ManifestError) return e.at({ source, line });
  if (e instanceof WorkspaceError) {
    const where = line === null ? source : `${source}:${line}`;
    return new WorkspaceError(e.code, `${where}: ${e.message}`, { ...e.data, source, line }, { cause: e.cause });
  }
  return e;
}

/**
 * Parses and validates manifest YAML. Inputs: the text and a name for messages (usually the
 * file path). Result: the `Manifest`. Throws `ManifestError` `PARSE_ERROR` for invalid YAML
 * (including a key repeated in one mapping, several documents, or more than 100 alias
 * expansions), every other `ManifestError` of `manifestFromValue` located at its line, and
 * `WorkspaceError` `BACKEND_UNAVAILABLE` for a container backend.
 */
export function parseManifestText(text: string, sourceName = 'gatefs.yaml'): Manifest {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = yamlError.linePos?.[0]?.line ?? counter.linePos(yamlError.pos[0]).line;
    throw new ManifestError('PARSE_ERROR', '', `not valid YAML: ${yamlError.message.split('\n')[0]}`, { source: sourceName, line });
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new ManifestError('PARSE_ERROR', '', `not valid YAML: ${(e as Error).message}`, { source: sourceName }, { cause: e });
  }
  try {
    return manifestFromValue(value);
  } catch (e) {
    const keyPath = e instanceof ManifestError ? e.keyPath : e instanceof WorkspaceError ? String(e.data.keyPath ?? '') : '';
    throw locate(e, sourceName, lineOf(doc, counter, keyPath));
  }
}

function readManifestFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if (isMissingPath(e)) {
      throw new ManifestError('FILE_NOT_FOUND', '', 'the manifest file does not exist', { source: file }, { cause: e });
    }
    throw new ManifestError(
      'FILE_UNREADABLE',
      '',
      `the manifest file cannot be read (${String(foreignCodeOf(e) ?? e)})`,
      { source: file },
      { cause: e },
    );
  }
}

/**
 * Loads the manifest. Input: a file path (read synchronously as UTF-8 YAML), an already parsed
 * object in the file's snake_case form, or `undefined` for the default manifest (one role
 * `agent`, backend worktree, tools read, grep, list, edit, write). Result: the `Manifest`.
 * Throws `ManifestError` (`FILE_NOT_FOUND` / `FILE_UNREADABLE` naming the file, `PARSE_ERROR`,
 * `MISSING_KEY`, `UNKNOWN_KEY`, `INVALID_VALUE`, `DUPLICATE`) or `WorkspaceError`
 * `BACKEND_UNAVAILABLE`. Nothing is written anywhere: safe to call before any state exists.
 */
export function loadManifest(source: string | object | undefined): Manifest {
  if (source === undefined) return defaultManifest();
  if (typeof source === 'string') return parseManifestText(readManifestFile(source), source);
  if (typeof source !== 'object') {
    throw new ManifestError('INVALID_VALUE', '', `expected a file path or a manifest object, got ${typeof source}`);
  }
  try {
    return manifestFromValue(source);
  } catch (e) {
    throw locate(e, '(manifest object)', null);
  }
}
