// The parameters an authorization request stands for (RFC 9101 6.3, RFC 9126 4): those of its request object, or
// those pushed under its request_uri, or else its own. Resolved before verifyTarget and validateRequest, which then
// see one parameter set whatever way it came; a request with neither `request` nor `request_uri` costs nothing here.
import { InvalidRequest, RequestUriNotSupported } from '../../errors/oauth-error.js';
import type { Client } from '../clients/clients.js';
import type { ProviderContext } from '../context.js';
import { single, type RawParams } from '../params.js';
import { REQUEST_URI_PREFIX } from './pushed-request.js';
import { verifyRequestObject, type RequestParams } from './request-object.js';

export interface ResolvedParams {
  params: RawParams;
  /** It came through the PAR endpoint (RFC 9126 5 require_pushed_authorization_requests). */
  pushed: boolean;
}

export interface RequestSources {
  /** The client named by the query's client_id (for its keys), or undefined when unknown. */
  client(clientId: string): Promise<Client | undefined>;
  /** The pushed request's parameters, taken once (pushed-request.ts takePushedRequest). */
  pushed(clientId: string, requestUri: string): Promise<RequestParams>;
}

/** Does the request carry a request object or a request_uri? (A repeated one counts: it is refused below.) */
export function carriesRequestReference(params: RawParams): boolean {
  return params.request !== undefined || params.request_uri !== undefined;
}

/**
 * Throws an OAuthError for a reference that cannot be resolved; the caller delivers it to the redirect URI verified
 * from the query's own parameters, or shows it when there is none (never to an unverified address).
 */
export async function resolveRequestParameters(ctx: ProviderContext, params: RawParams, sources: RequestSources): Promise<ResolvedParams> {
  const request = single(params, 'request');
  const requestUri = single(params, 'request_uri');
  if (request === undefined && requestUri === undefined) return { params, pushed: false };
  // RFC 9101 5: the object comes by value (request) or by reference (request_uri); a request with both is malformed.
  if (request !== undefined && requestUri !== undefined) throw new InvalidRequest('request and request_uri must not be used together');
  // RFC 9101 5: client_id is REQUIRED beside either, so that the server knows whose keys or pushed request to use.
  const clientId = single(params, 'client_id');
  if (clientId === undefined) throw new InvalidRequest('parameter client_id is required');

  if (requestUri !== undefined) {
    // RFC 9101 5.2.2 lets a client host its request object at a URL the server fetches; this server fetches none
    // (request_uri_parameter_supported: false): only a request_uri it issued itself at the PAR endpoint resolves.
    if (!requestUri.startsWith(REQUEST_URI_PREFIX))
      throw new RequestUriNotSupported('only request_uri values from the pushed_authorization_request_endpoint are accepted');
    // RFC 9126 4: the pushed parameters are the request; those sent beside request_uri (but client_id) are ignored.
    return { params: await sources.pushed(clientId, requestUri), pushed: true };
  }
  const client = await sources.client(clientId);
  // An unknown client is verifyTarget's to report (on the page; never redirected).
  if (!client) return { params, pushed: false };
  // RFC 9101 6.3: "The authorization server MUST only use the parameters in the Request Object".
  return { params: await verifyRequestObject(ctx, client, request!), pushed: false };
}
