// RFC 9457 problem details, the one error shape of the management API: what any thrown value becomes under
// /admin/api/v1 (the API's error handler, error-handler.ts, calls problemOf).
import { STATUS_CODES } from 'node:http';
import type { FastifyError } from 'fastify';
import { AdminError } from '../../domain/admin-error.js';
import { OAuthError } from '../../errors/oauth-error.js';
import { toOAuthError } from '../../errors/to-oauth-error.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** One failed check of a request against its schema: where (a JSON pointer into params, query or body) and why. */
export interface ProblemFieldError {
  pointer: string;
  detail: string;
}

export interface ProblemBody {
  /** RFC 9457 3.1.1: "about:blank" throughout; `code` tells the problems apart. */
  type: string;
  /** RFC 9457 4.2.1: with "about:blank", the title SHOULD be the HTTP status phrase. */
  title: string;
  status: number;
  detail?: string;
  /** An extension member (RFC 9457 3.2): a stable code to branch on (not_found, precondition_failed...). */
  code: string;
  errors?: ProblemFieldError[];
}

/** A refusal of the management API itself (a precondition, an idempotency clash), with its status and code. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ApiProblem';
  }
}

export interface Problem {
  body: ProblemBody;
  headers: Record<string, string>;
  /** Ours (a bug or an outage): logged with its stack. */
  unexpected: boolean;
}

const body = (status: number, code: string, detail?: string, errors?: ProblemFieldError[]): ProblemBody => ({
  type: 'about:blank',
  title: STATUS_CODES[status] ?? 'Error',
  status,
  code,
  ...(detail !== undefined ? { detail } : {}),
  ...(errors ? { errors } : {}),
});

const ADMIN_STATUS = { invalid: 400, forbidden: 403, not_found: 404, conflict: 409 } as const;

/** Fastify's own refusals: a schema failure (with every failed check), a body that is not JSON, too large... */
function fromFastify(err: FastifyError): Problem | undefined {
  if (err.validation) {
    const where = err.validationContext ?? 'body';
    const errors = err.validation.map((v) => {
      const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
      const extra = (v.params as { additionalProperty?: string } | undefined)?.additionalProperty;
      const pointer = `/${where}${v.instancePath}${missing ? `/${missing}` : extra ? `/${extra}` : ''}`;
      return { pointer, detail: extra ? 'is not a known field' : (v.message ?? 'is not valid') };
    });
    return { body: body(400, 'validation_failed', 'the request does not match its schema', errors), headers: {}, unexpected: false };
  }
  const known: Record<string, [number, string, string]> = {
    FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'the request body must be application/json'],
    FST_ERR_CTP_BODY_TOO_LARGE: [413, 'body_too_large', 'the request body is too large'],
    FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json', 'the request body is not valid JSON'],
    FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json', 'the request body is empty'],
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_request', 'the Content-Length does not match the body'],
  };
  const hit = err.code ? known[err.code] : undefined;
  if (hit) return { body: body(hit[0], hit[1], hit[2]), headers: {}, unexpected: false };
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500)
    return { body: body(err.statusCode, 'invalid_request', 'the request is malformed'), headers: {}, unexpected: false };
  return undefined;
}

/** Any thrown value as a problem: what the caller may see, and whether it must be logged as ours. */
export function problemOf(err: unknown): Problem {
  if (err instanceof ApiProblem) return { body: body(err.status, err.code, err.message), headers: err.headers, unexpected: false };
  if (err instanceof AdminError) return { body: body(ADMIN_STATUS[err.kind], err.kind, err.message), headers: {}, unexpected: false };
  if (!(err instanceof OAuthError) && err instanceof Error) {
    const fastify = fromFastify(err as FastifyError);
    if (fastify) return fastify;
  }
  const { oauth, unexpected } = toOAuthError(err);
  // A server error says nothing of its cause; an OAuth refusal (invalid_token, insufficient_scope) keeps its
  // challenge headers (RFC 6750 3) and its description.
  const detail = oauth.status >= 500 ? undefined : oauth.description;
  return { body: body(oauth.status, oauth.error, detail), headers: { ...oauth.headers }, unexpected };
}

export function notFoundProblem(): ProblemBody {
  return body(404, 'not_found', 'no such endpoint');
}
