// The SCIM tests' app: two provisioning clients (as Okta and Entra would be registered), a client that may not
// provision, their client_credentials tokens from /sso/token, and a call that sends application/scim+json.
import type { LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { clientToken, OUTSIDER } from '../../helpers/admin-api.js';
import { buildTestApp, FIXTURES, type TestApp } from '../../helpers/app.js';

const provisioner = (client_id: string) => ({
  client_id,
  client_secret: `${client_id}-secret-0123456789`,
  redirect_uris: [`https://${client_id}.example/cb`],
  grant_types: ['client_credentials'],
  scope: 'scim',
});
export const OKTA = provisioner('okta');
export const ENTRA = provisioner('entra');

export const SCIM = '/scim/v2';
export const BASE = 'http://localhost:3000/scim/v2';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export interface ScimApp extends TestApp {
  okta: string;
  entra: string;
  outsider: string;
  call(
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
}

export async function scimApp(t: Test): Promise<ScimApp> {
  const base = await buildTestApp(t, { seed: { clients: [...FIXTURES.clients, OKTA, ENTRA, OUTSIDER], users: FIXTURES.users } });
  const [okta, entra, outsider] = await Promise.all([OKTA, ENTRA, OUTSIDER].map((c) => clientToken(base.app, c)));
  return {
    ...base,
    okta: okta!,
    entra: entra!,
    outsider: outsider!,
    call(method, path, options = {}) {
      const token = options.token === undefined ? okta! : options.token;
      return base.app.inject({
        method: method as 'GET',
        url: `${SCIM}${path}`,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(options.body !== undefined ? { 'content-type': 'application/scim+json; charset=utf-8' } : {}),
          ...options.headers,
        },
        ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
      });
    },
  };
}
