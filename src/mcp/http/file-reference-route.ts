/**
 * `POST /api/file-references/resolve` on `gatefs serve --http` (Holon's endpoint of that name):
 * a JSON body `{ reference, baseFile?, conversation? }` resolved by `Host.resolveReference`.
 * Answers `200 { ok: true, value }` (the `FileReference`), or `{ ok: false, error: { code,
 * message, data } }` with 400 (`BAD_REFERENCE`, `INVALID_INPUT`: a body that is not that object),
 * 404 (`UNKNOWN_CONVERSATION`), 409 (`BUSY`), 410 (`REFERENCE_GONE`), 413 (`TOO_LARGE`: over
 * `MAX_REFERENCE_BODY_BYTES`). The operator's API: the answer and its errors name host paths,
 * which is why it is behind the server's token like everything else.
 *
 * Each request passes, in order: the Host/Origin guard of the MCP endpoint (403), the bearer
 * token (401; the header only: no status-page cookie opens it), the method (405), the body
 * limits. A thrown error that is not a coded one is left to the server (500).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Host, ResolveReferenceOptions } from '../../host/composition/index.js';
import { isCodedError } from '../../../vfs/index.js';
import { checkAuthorization, checkOrigin } from '../guard/index.js';
import { sendJson } from './http-reply.js';
import { readJsonBody } from './read-body.js';

/** The endpoint's path. */
export const FILE_REFERENCES_PATH = '/api/file-references/resolve';

/** A body's bytes, at most: a reference and a base file of 4096 bytes each, escaped, fit. */
export const MAX_REFERENCE_BODY_BYTES = 64 * 1024;

/** What the route asks of the server at each request. */
export interface FileReferenceRouteOptions {
  /** The bearer token in force now (null: `--no-token`). */
  token: () => string | null;
  /** The Host header values the server answers to (null: any). */
  allowedHosts: () => Set<string> | null;
  /** Where a client's operator finds the token, for 401 messages. */
  tokenHint: () => string | undefined;
}

/** The HTTP status of each error code the host answers. */
const STATUS: Readonly<Record<string, number>> = { BAD_REFERENCE: 400, UNKNOWN_CONVERSATION: 404, BUSY: 409, REFERENCE_GONE: 410 };

/** The body's keys. */
const KEYS = new Set(['reference', 'baseFile', 'conversation']);

/** Answers one request to `FILE_REFERENCES_PATH` (see the file comment). */
export async function serveFileReference(
  host: Host,
  req: IncomingMessage,
  res: ServerResponse,
  options: FileReferenceRouteOptions,
): Promise<void> {
  const refused =
    checkOrigin(req.headers, options.allowedHosts()) ??
    checkAuthorization(req.headers, { allowedHosts: null, token: options.token(), tokenHint: options.tokenHint() });
  if (refused) {
    if (refused.challenge) res.setHeader('WWW-Authenticate', refused.challenge);
    return failure(res, refused.status, refused.status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', refused.reason);
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    return failure(res, 405, 'METHOD_NOT_ALLOWED', `POST a JSON body {reference, baseFile?, conversation?} to ${FILE_REFERENCES_PATH}`);
  }
  const body = await readJsonBody(req, { maxBytes: MAX_REFERENCE_BODY_BYTES, maxTokens: 64 });
  if (body.kind === 'aborted') return;
  if (body.kind === 'too-large' || body.kind === 'too-complex') {
    return failure(
      res,
      413,
      'TOO_LARGE',
      `the body is larger than a file reference needs (at most ${MAX_REFERENCE_BODY_BYTES} bytes, a flat object)`,
    );
  }
  if (body.kind !== 'json') return failure(res, 400, 'INVALID_INPUT', 'the body is not JSON in UTF-8');
  const input = requestOf(body.value);
  if (typeof input === 'string') return failure(res, 400, 'INVALID_INPUT', input);
  try {
    sendJson(res, 200, { ok: true, value: await host.resolveReference(input.reference, input.options) });
  } catch (e) {
    if (!isCodedError(e) || STATUS[e.code] === undefined) throw e;
    sendJson(res, STATUS[e.code]!, { ok: false, error: { code: e.code, message: e.message, data: e.data } });
  }
}

/** The body as a resolution's arguments, or why it is not one. */
function requestOf(value: unknown): { reference: string; options: ResolveReferenceOptions } | string {
  const shape = 'the body is {"reference": string, "baseFile"?: string, "conversation"?: string}';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return shape;
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).find((k) => !KEYS.has(k));
  if (unknown !== undefined) return `${shape}; '${unknown.slice(0, 40)}' is not one of its fields`;
  const { reference, baseFile, conversation } = fields;
  if (typeof reference !== 'string') return shape;
  if ((baseFile !== undefined && typeof baseFile !== 'string') || (conversation !== undefined && typeof conversation !== 'string'))
    return shape;
  return {
    reference,
    options: { ...(baseFile === undefined ? {} : { baseFile }), ...(conversation === undefined ? {} : { conversation }) },
  };
}

function failure(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { ok: false, error: { code, message, data: {} } });
}
