// RFC 7644 3.12 error bodies, the one error shape under /scim/v2: what any thrown value becomes there (SCIM's error
// handler, error-handler.ts, calls scimErrorOf).
import type { FastifyError } from 'fastify';
import { OAuthError } from '../../errors/oauth-error.js';
import { toOAuthError } from '../../errors/to-oauth-error.js';
import { ScimError, type ScimType } from '../../domain/scim/scim-error.js';

export const SCIM_CONTENT_TYPE = 'application/scim+json';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export interface ScimErrorBody {
  schemas: string[];
  /** RFC 7644 3.12: "The HTTP status code (see Section 6 of [RFC7231]) expressed as a JSON string." */
  status: string;
  scimType?: ScimType;
  detail?: string;
}

export interface ScimProblem {
  status: number;
  body: ScimErrorBody;
  headers: Record<string, string>;
  /** Ours (a bug or an outage): logged with its stack. */
  unexpected: boolean;
}

const body = (status: number, detail?: string, scimType?: ScimType): ScimErrorBody => ({
  schemas: [ERROR_SCHEMA],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  ...(detail !== undefined ? { detail } : {}),
});

const problem = (status: number, detail?: string, scimType?: ScimType, headers: Record<string, string> = {}): ScimProblem => ({
  status,
  body: body(status, detail, scimType),
  headers,
  unexpected: false,
});

/** Fastify's own refusals: a schema failure, a body that is not JSON, too large, of another type. */
function fromFastify(err: FastifyError): ScimProblem | undefined {
  if (err.validation) {
    const first = err.validation[0];
    const where = `${err.validationContext ?? 'body'}${first?.instancePath ?? ''}`;
    return problem(400, `the request is not valid: ${where} ${first?.message ?? 'is not valid'}`, 'invalidSyntax');
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problem(400, 'the request body is not valid JSON', 'invalidSyntax');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(415, 'the request body must be application/scim+json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(413, 'the request body is too large');
    default:
      return typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500
        ? problem(400, 'the request is malformed', 'invalidSyntax')
        : undefined;
  }
}

/** Any thrown value as a SCIM error: what the client may see, and whether it must be logged as ours. */
export function scimErrorOf(err: unknown): ScimProblem {
  if (err instanceof ScimError) return problem(err.status, err.message, err.scimType);
  if (!(err instanceof OAuthError) && err instanceof Error) {
    const fastify = fromFastify(err as FastifyError);
    if (fastify) return fastify;
  }
  const { oauth, unexpected } = toOAuthError(err);
  // A bearer token refusal keeps its RFC 6750 challenge; a server error says nothing of its cause.
  return { ...problem(oauth.status, oauth.status >= 500 ? undefined : oauth.description, undefined, { ...oauth.headers }), unexpected };
}

/** RFC 7644 3.12: "404 Not Found: Specified resource (e.g., User) or endpoint does not exist." */
export const scimNotFound = () => body(404, 'no such endpoint');
