// Dynamic client registration (RFC 7591) and management (RFC 7592) over app.inject.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** An initial access token long enough for the configuration (32+ characters). */
export const INITIAL_TOKEN = 'initial-access-token-7f3a9c2e5b1d4f6a8c0e';
export const OTHER_INITIAL_TOKEN = 'second-initial-token-0b9d7f5e3c1a2468ace0';
export const REGISTRATION_ENV = { REGISTRATION_INITIAL_ACCESS_TOKEN: `${OTHER_INITIAL_TOKEN}, ${INITIAL_TOKEN}` };

/** A confidential client of the code flow, as a relying party would register it. */
export const WEB_METADATA = {
  client_name: 'Registered Web App',
  redirect_uris: ['https://rp.example/cb'],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile email offline_access',
};

/** RFC 7591 3.2.1 / RFC 7592 3: what a successful registration answers. */
export interface ClientInformation {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: number;
  registration_access_token: string;
  registration_client_uri: string;
  [metadata: string]: unknown;
}

export function postRegistration(
  app: FastifyInstance,
  body: unknown,
  options: { token?: string | null; contentType?: string; raw?: string } = {},
): Promise<LightMyRequestResponse> {
  const token = options.token === undefined ? INITIAL_TOKEN : options.token;
  return app.inject({
    method: 'POST',
    url: '/sso/register',
    headers: {
      'content-type': options.contentType ?? 'application/json',
      ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
    },
    payload: options.raw ?? JSON.stringify(body),
  });
}

/** Registers `metadata` and returns the client information; throws unless 201. */
export async function register(app: FastifyInstance, metadata: Record<string, unknown> = WEB_METADATA): Promise<ClientInformation> {
  const res = await postRegistration(app, metadata);
  if (res.statusCode !== 201) throw new Error(`registration failed: ${res.statusCode} ${res.body}`);
  return res.json() as ClientInformation;
}

/** The configuration endpoint's path for a client (app.inject wants a path). */
export function configurationPath(clientId: string): string {
  return `/sso/register/${encodeURIComponent(clientId)}`;
}

export function manage(
  app: FastifyInstance,
  method: 'GET' | 'PUT' | 'DELETE' | 'POST' | 'PATCH',
  clientId: string,
  token: string | null,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url: configurationPath(clientId),
    headers: {
      ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}

/** RFC 7592 2.2: an update sends the metadata as returned, without the four fields the server provisions. */
export function updateBody(info: ClientInformation, changes: Record<string, unknown> = {}): Record<string, unknown> {
  const {
    registration_access_token: _token,
    registration_client_uri: _uri,
    client_secret_expires_at: _expires,
    client_id_issued_at: _issued,
    client_secret: _secret,
    ...metadata
  } = info;
  return { ...metadata, ...changes };
}
