/**
 * `ManifestError`: every mistake in a `gatefs.yaml` (or in an already parsed manifest object)
 * is one of these, never a bare `Error`. Callers branch on `code`; `keyPath` says where
 * (`roles[0].workspace.backend`, '' for the whole document), `detail` what was expected, and
 * `source`/`line` point into the file when there is one. A `CodedError` (vfs/coded-error.ts):
 * the same four facts are in `data`.
 */
import { CodedError } from '../../vfs/index.js';

/** The mistakes a `ManifestError` names. */
export type ManifestErrorCode =
  /** The manifest file does not exist (or a path component is not a folder). */
  | 'FILE_NOT_FOUND'
  /** The manifest file exists but cannot be read (a folder, no permission, …). */
  | 'FILE_UNREADABLE'
  /** The text is not valid YAML (including a key written twice in one mapping). */
  | 'PARSE_ERROR'
  /** A required key is absent. */
  | 'MISSING_KEY'
  /** A key gatefs does not know (often a typo); the message lists the known keys. */
  | 'UNKNOWN_KEY'
  /** A value of the wrong type, out of range, or breaking a rule (path grammar, policy). */
  | 'INVALID_VALUE'
  /** The same role name, tool, mount path or disclosure path appears twice. */
  | 'DUPLICATE'
  /** A role was asked for by name and the manifest has no such role. */
  | 'UNKNOWN_ROLE';

/** Where a manifest error points inside its source. */
interface ManifestErrorOrigin {
  /** The file name (or a label such as '(manifest object)'); null when unknown. */
  source?: string | null;
  /** 1-based line in the YAML text; null when unknown (objects, missing files). */
  line?: number | null;
}

/** What a `ManifestError` carries besides its code. */
type ManifestErrorData = {
  /** Where in the document (`roles[0].workspace.backend`; '' for the whole document). */
  readonly keyPath: string;
  /** What was expected there, or what is wrong. */
  readonly detail: string;
  /** The file name (or a label such as '(manifest object)'); null when unknown. */
  readonly source: string | null;
  /** 1-based line in the YAML text; null when unknown. */
  readonly line: number | null;
};

/**
 * A typed manifest error naming the key path and what is expected there. Its message,
 * `source:line: keyPath: detail`, is for the operator who edits the manifest.
 */
export class ManifestError extends CodedError<ManifestErrorCode, ManifestErrorData> {
  override readonly name = 'ManifestError';

  constructor(code: ManifestErrorCode, keyPath: string, detail: string, origin: ManifestErrorOrigin = {}, options?: { cause?: unknown }) {
    const source = origin.source ?? null;
    const line = origin.line ?? null;
    const where = source === null ? '' : `${source}${line === null ? '' : `:${line}`}: `;
    super(code, `${where}${keyPath === '' ? '' : `${keyPath}: `}${detail}`, { keyPath, detail, source, line }, options);
  }

  /** Where in the document the error points (see `ManifestErrorData.keyPath`). */
  get keyPath(): string {
    return this.data.keyPath;
  }

  /** What was expected there. */
  get detail(): string {
    return this.data.detail;
  }

  /** The file (or label) the manifest came from; null when unknown. */
  get source(): string | null {
    return this.data.source;
  }

  /** 1-based line in the YAML text; null when unknown. */
  get line(): number | null {
    return this.data.line;
  }

  /**
   * The value the manifest holds there, as the detail quotes it (`worktre` from
   * `expected one of shared, worktree, copy, got "worktre"`); null when the detail names none.
   */
  get got(): string | null {
    const m = /, got (.+)$/.exec(this.detail);
    if (!m) return null;
    const value = m[1]!;
    return /^".*"$/.test(value) ? value.slice(1, -1) : value;
  }

  /** The same error, located in `origin` (used once the YAML position is known). */
  at(origin: ManifestErrorOrigin): ManifestError {
    return new ManifestError(this.code, this.keyPath, this.detail, origin, { cause: this.cause });
  }
}

/** True when `e` is a ManifestError, optionally with the given code. */
export function isManifestError(e: unknown, code?: ManifestErrorCode): e is ManifestError {
  return e instanceof ManifestError && (code === undefined || e.code === code);
}
