// The device authorization grant (RFC 8628) up to the user's decision: the device authorization request, the user
// code typed on the verification page, and the approval or denial by a signed-in user.
import { createHmac, randomInt } from 'node:crypto';
import { InvalidScope, InvalidTarget, UnauthorizedClient } from '../../errors/oauth-error.js';
import {
  bindByUserCode,
  decideDeviceAuthorization as storeDecision,
  findBoundDeviceAuthorization,
  insertDeviceAuthorization,
} from '../../storage/device-authorizations.js';
import type { ActiveSession } from '../../storage/sessions.js';
import { findUserById } from '../../storage/users.js';
import type { Client } from '../clients/clients.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { single, type RawParams } from '../params.js';
import { deviceLabel, parseUserAgent } from '../risk/user-agent.js';
import { parseScope, type Scope } from '../scope.js';
import { defaultResourceServer, definedApiScopes, namedResources } from '../authorization/resource-request.js';
import { findResourceServers } from '../../storage/resource-servers.js';
import { rowToResourceServer, type ResourceServer } from '../resources/resource-servers.js';
import type { ApiScope } from '../authorization/authorization-request.js';
import { loadClient } from '../clients/clients.js';
import { randomToken, sha256 } from '../secrets.js';
import { claimUserCodeEntry, userCodeEntrySucceeded } from './user-code-throttle.js';

/** RFC 8628 7.2: the grant type a device uses at the token endpoint. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * RFC 8628 6.1's base-20 set: consonants only, so that no code spells a word and none needs a case; 8 of them are
 * 20^8 codes (34.5 bits). "The user code SHOULD have enough entropy that when combined with rate-limiting and
 * other mitigations makes a brute-force attack infeasible": the rate limit is src/domain/device-flow/user-code-throttle.ts.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
const USER_CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);

/** A new user code, normalised (no dash); each character drawn uniformly. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i += 1) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** How the code is shown to the user: XXXX-XXXX. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * The code as typed, in its stored form: upper case, with dashes and white space dropped (RFC 8628 6.1 asks the
 * server to ignore such separators and to compare case-insensitively). Undefined when it cannot be a user code.
 */
export function normaliseUserCode(typed: string): string | undefined {
  const code = typed
    .slice(0, 64)
    .replace(/[\s-]+/g, '')
    .toUpperCase();
  return USER_CODE.test(code) ? code : undefined;
}

/**
 * What is stored of a user code: an HMAC under a key derived from the server's device secret. A plain SHA-256 of a
 * 34-bit value could be reversed by trying every code.
 */
function userCodeDigest(ctx: ProviderContext, code: string): string {
  const key = createHmac('sha256', ctx.deviceSecret).update('rfc8628 user code').digest();
  return createHmac('sha256', key).update(code).digest('base64url');
}

/** RFC 8628 3.2: the device authorization response. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** A new user code on a collision with a stored one; more than a few collisions in a row means something is wrong. */
const USER_CODE_TRIES = 5;

/**
 * RFC 8628 3.1-3.2: checks that the client may use the grant and what scope it asks for, then stores the request
 * (the codes as digests, the requesting device as a label) and answers with the codes.
 */
export async function requestDeviceAuthorization(
  ctx: ProviderContext,
  client: Client,
  params: RawParams,
  userAgent: string | undefined,
): Promise<DeviceAuthorizationResponse> {
  // RFC 6749 5.2 unauthorized_client: "The authenticated client is not authorized to use this authorization grant type."
  if (!client.grantTypes.includes(DEVICE_CODE_GRANT))
    throw new UnauthorizedClient('this client may not use the device authorization grant');
  // As at the authorization endpoint: unknown scopes are ignored, offline_access only for a client that may refresh,
  // and none left is invalid_scope (RFC 6749 3.3: "fail the request indicating an invalid scope").
  const raw = single(params, 'scope');
  const scopes = parseScope(raw).filter((s) => s !== 'offline_access' || client.grantTypes.includes('refresh_token'));
  // RFC 8707 2.1, as at the authorization endpoint: the resources the request names (each one the client may ask
  // for, and known), else the client's default resource; the scopes of those may be asked.
  const resources = namedResources(params, client);
  const servers = await targetServers(ctx, client, resources);
  const apiScopes = definedApiScopes(servers, raw).map((s) => s.name);
  if (scopes.length === 0 && apiScopes.length === 0) throw new InvalidScope('the scope parameter names no supported scope');

  const settings = ctx.config.deviceFlow;
  const deviceCode = randomToken();
  const now = ctx.clock();
  const label = deviceLabel(parseUserAgent(userAgent));
  for (let attempt = 0; attempt < USER_CODE_TRIES; attempt += 1) {
    const userCode = newUserCode();
    const inserted = await insertDeviceAuthorization(ctx.db, {
      deviceCodeHash: sha256(deviceCode),
      userCodeHash: userCodeDigest(ctx, userCode),
      clientId: client.clientId,
      scope: [...scopes, ...apiScopes].join(' '),
      deviceLabel: label,
      requestedAt: now,
      expiresAt: addSeconds(now, settings.codeTtlSeconds),
      intervalSeconds: settings.intervalSeconds,
      resources,
    });
    if (!inserted) continue;
    const shown = formatUserCode(userCode);
    const verificationUri = `${ctx.config.issuer}/device`;
    return {
      device_code: deviceCode,
      user_code: shown,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${shown}`,
      expires_in: settings.codeTtlSeconds,
      interval: settings.intervalSeconds,
    };
  }
  throw new Error('no free user code after several tries');
}

/** The resource servers a device request is for: those it named (every one registered), else the client's default. */
async function targetServers(ctx: ProviderContext, client: Client, named: readonly string[]): Promise<ResourceServer[]> {
  if (named.length === 0) {
    const server = await defaultResourceServer(ctx, client);
    return server ? [server] : [];
  }
  const servers = (await findResourceServers(ctx.db, named)).map(rowToResourceServer);
  if (servers.length !== named.length) throw new InvalidTarget('the resource is not known to this server');
  return servers;
}

export type UserCodeEntry = { kind: 'bound' } | { kind: 'wrong-code' } | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * The verification page's first step: the user code typed in a browser. Counted against the browser's address
 * before anything is looked up; a code of a pending, unexpired request binds that request to the browser
 * (`bindingSecret`, kept in its cookie). Unknown, expired, decided and malformed codes all get the same answer.
 */
export async function enterUserCode(ctx: ProviderContext, typed: string, ip: string, bindingSecret: string): Promise<UserCodeEntry> {
  const claim = await claimUserCodeEntry(ctx, ip);
  if (claim.kind === 'throttled') return claim;
  const code = normaliseUserCode(typed);
  if (code === undefined) return { kind: 'wrong-code' };
  const bound = await bindByUserCode(ctx.db, {
    userCodeHash: userCodeDigest(ctx, code),
    bindingHash: sha256(bindingSecret),
    now: ctx.clock(),
  });
  if (!bound) return { kind: 'wrong-code' };
  await userCodeEntrySucceeded(ctx, claim);
  return { kind: 'bound' };
}

/** What the confirmation screen shows of a request: who asks, from what, since when, for what. */
export interface PendingDeviceAuthorization {
  clientId: string;
  clientName: string;
  /** The client registered itself: its name is the registrant's word (shown as not verified). */
  selfRegistered: boolean;
  scopes: Scope[];
  /** Scopes of the resource servers the request named (or the client's default one), with their descriptions. */
  apiScopes: ApiScope[];
  deviceLabel: string;
  requestedAt: Date;
  /** The client requires a second factor (src/domain/accounts/second-factor-policy.ts): a session without one must sign in again. */
  requireMfa: boolean;
}

/** The pending, unexpired request bound to this browser, if any. */
export async function boundDeviceAuthorization(
  ctx: ProviderContext,
  bindingSecret: string,
): Promise<PendingDeviceAuthorization | undefined> {
  const row = await findBoundDeviceAuthorization(ctx.db, sha256(bindingSecret), ctx.clock());
  if (!row) return undefined;
  const client = await loadClient(ctx.db, ctx.log, row.client_id);
  const servers =
    row.resources.length > 0
      ? (await findResourceServers(ctx.db, row.resources)).map(rowToResourceServer)
      : client
        ? await targetServers(ctx, client, [])
        : [];
  return {
    apiScopes: definedApiScopes(servers, row.scope),
    clientId: row.client_id,
    clientName: row.client_name ?? row.client_id,
    selfRegistered: row.self_registered,
    scopes: parseScope(row.scope),
    deviceLabel: row.device_label,
    requestedAt: row.requested_at,
    requireMfa: client?.requireMfa ?? false,
  };
}

/**
 * The signed-in user approves or denies the request bound to this browser. An approval carries the session's
 * user, sid, sign-in time and amr to the tokens the device will get. A client limited to groups that does not admit
 * the user (src/domain/groups/allowed-groups.ts) gets a denial instead (the device's poll: access_denied, RFC 8628
 * 3.5), and the answer is `refused`, with the client's name for the page that says why. Undefined when the request
 * is no longer pending (expired, or decided meanwhile).
 */
export async function decideDeviceAuthorization(
  ctx: ProviderContext,
  bindingSecret: string,
  session: ActiveSession,
  approve: boolean,
): Promise<{ kind: 'approved' | 'denied' } | { kind: 'refused'; clientName: string } | undefined> {
  const decided = await storeDecision(ctx.db, {
    bindingHash: sha256(bindingSecret),
    now: ctx.clock(),
    approve,
    session: { userId: session.userId, sid: session.sid, authTime: session.authTime, amr: session.amr, acr: session.acr },
  });
  if (!decided) return undefined;
  if (approve && decided.status === 'denied') {
    ctx.log.info({ event: 'device.group_refused', clientId: decided.clientId, userId: session.userId }, 'not in an allowed group');
    const client = await loadClient(ctx.db, ctx.log, decided.clientId);
    return { kind: 'refused', clientName: client?.clientName ?? decided.clientId };
  }
  return { kind: decided.status };
}

/** How the confirmation screen names the signed-in user: their preferred_username, else their username. */
export async function accountName(ctx: ProviderContext, userId: string): Promise<string> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return '';
  const preferred = user.claims.preferred_username;
  return typeof preferred === 'string' && preferred !== '' ? preferred : user.username;
}
