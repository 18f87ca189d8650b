// RFC 8707 2.1 at the authorization endpoint: the resources a request names, and the scopes of theirs it asks for.
import { InvalidScope, InvalidTarget } from '../../errors/oauth-error.js';
import { findResourceServers } from '../../storage/resource-servers.js';
import type { Client } from '../clients/clients.js';
import type { ProviderContext } from '../context.js';
import type { RawParams } from '../params.js';
import { resourceIdentifierProblem, rowToResourceServer, type ResourceServer } from '../resources/resource-servers.js';
import type { ApiScope, AuthorizationRequest } from './authorization-request.js';
import { MAX_SCOPE_VALUES, splitScope } from '../scope.js';

/** RFC 8707 2: "Multiple resource parameters MAY be used"; more than this many is refused. */
export const MAX_RESOURCES = 10;

/** The `resource` values of a request, each checked (RFC 8707 2); a repeated parameter is allowed here. */
export function namedResources(params: RawParams, client: Client): string[] {
  const raw = params.resource;
  const values = [...new Set(raw === undefined ? [] : Array.isArray(raw) ? raw : [raw])].filter((v) => v !== '');
  if (values.length > MAX_RESOURCES) throw new InvalidTarget(`at most ${MAX_RESOURCES} resource parameters`);
  for (const value of values) {
    const problem = resourceIdentifierProblem(value);
    // The value is the sender's own text: not echoed back.
    if (problem) throw new InvalidTarget(`a resource ${problem}`);
    if (!client.allowedResources.includes(value)) throw new InvalidTarget('this client may not ask for that resource');
  }
  return values;
}

/** The scopes of `raw` (a scope parameter) that one of `servers` defines, with their descriptions, in request order. */
export function definedApiScopes(servers: readonly ResourceServer[], raw: string | undefined): ApiScope[] {
  const defined = new Map(servers.flatMap((s) => s.scopes.map((scope) => [scope.name, scope.description] as const)));
  const names = splitScope(raw ?? '').slice(0, MAX_SCOPE_VALUES);
  return [...new Set(names)].flatMap((name) => {
    const description = defined.get(name);
    return description === undefined ? [] : [{ name, description }];
  });
}

/** The client's default resource server, when it has one that is registered. */
export async function defaultResourceServer(ctx: ProviderContext, client: Client): Promise<ResourceServer | undefined> {
  if (client.defaultResource === null) return undefined;
  return (await findResourceServers(ctx.db, [client.defaultResource])).map(rowToResourceServer)[0];
}

/**
 * Completes a validated request with its resources: those named (each one the client may ask for, and known), or
 * the client's default resource, whose scopes the request may then ask for. A client with neither costs nothing.
 */
export async function withResources(
  ctx: ProviderContext,
  client: Client,
  request: AuthorizationRequest,
  params: RawParams,
): Promise<AuthorizationRequest> {
  const named = namedResources(params, client);
  const targets = named.length > 0 ? named : client.defaultResource !== null ? [client.defaultResource] : [];
  if (targets.length === 0) return request;
  const servers = (await findResourceServers(ctx.db, targets)).map(rowToResourceServer);
  if (servers.length !== targets.length) throw new InvalidTarget('the resource is not known to this server');
  const apiScopes = definedApiScopes(servers, typeof params.scope === 'string' ? params.scope : undefined);
  if (request.scopes.length === 0 && apiScopes.length === 0) throw new InvalidScope('the scope parameter names no supported scope');
  return { ...request, ...(named.length > 0 ? { resources: named } : {}), ...(apiScopes.length > 0 ? { apiScopes } : {}) };
}

/** RFC 8707 2.2: the resource a token request names (one at most here), checked as at authorize; null when none. */
export function tokenRequestResource(params: RawParams, client: Client): string | null {
  const named = namedResources(params, client);
  if (named.length > 1) throw new InvalidTarget('name one resource per token request');
  return named[0] ?? null;
}
