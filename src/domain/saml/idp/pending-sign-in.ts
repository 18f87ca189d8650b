// A checked AuthnRequest waiting for its person to sign in: kept in the browser (a cookie this module seals with an
// HMAC under a key of its own, derived from the instance's shared device secret) rather than in a table, and
// checked again when it returns: the SP still registered, its ACS still in its metadata, the wait not too long.
import { createHmac, hkdfSync } from 'node:crypto';
import { findSamlServiceProviderRow } from '../../../storage/saml-service-providers.js';
import type { ProviderContext } from '../../context.js';
import { safeEqual } from '../../secrets.js';
import { SamlError } from '../saml-error.js';
import { rowToServiceProvider } from './service-providers.js';
import { asksSecondFactor, type SsoRequest } from './single-sign-on.js';

interface Pending {
  e: string;
  a: string;
  i?: string;
  r?: string;
  m: number | null;
  c: string[];
  x: number;
}

const keys = new WeakMap<Buffer, Buffer>();
function macKey(secret: Buffer): Buffer {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'sso-provider saml pending sign-in v1', 32))));
  return key;
}

const mac = (ctx: Pick<ProviderContext, 'deviceSecret'>, body: string) =>
  createHmac('sha256', macKey(ctx.deviceSecret)).update(body).digest('base64url');

/** The cookie's value for a request that waits for a sign-in (for at most INTERACTION_TTL_SECONDS). */
export function sealPendingSignIn(ctx: Pick<ProviderContext, 'deviceSecret' | 'clock' | 'config'>, sso: SsoRequest): string {
  const pending: Pending = {
    e: sso.sp.entityId,
    a: sso.acsUrl,
    ...(sso.inResponseTo !== undefined ? { i: sso.inResponseTo } : {}),
    ...(sso.relayState !== undefined ? { r: sso.relayState } : {}),
    m: sso.minAuthTime?.getTime() ?? null,
    c: sso.requestedAuthnContext,
    x: ctx.clock().getTime() + ctx.config.interactionTtlSeconds * 1000,
  };
  const body = Buffer.from(JSON.stringify(pending), 'utf8').toString('base64url');
  return `${body}.${mac(ctx, body)}`;
}

/** The body of an intact cookie (its MAC checked), else undefined. */
function unsealed(ctx: Pick<ProviderContext, 'deviceSecret'>, value: string | undefined): Pending | undefined {
  const [body, tag] = (value ?? '').split('.');
  if (!body || !tag || !safeEqual(tag, mac(ctx, body))) return undefined;
  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Pending;
}

/**
 * Does the request waiting in this cookie ask for more than a password (a RequestedAuthnContext of MultiFactor)? The
 * sign-in page then goes on to the person's second factor, as for a client that requires one.
 */
export function pendingAsksSecondFactor(ctx: Pick<ProviderContext, 'deviceSecret' | 'clock'>, value: string | undefined): boolean {
  const pending = unsealed(ctx, value);
  return pending !== undefined && pending.x > ctx.clock().getTime() && asksSecondFactor(pending.c);
}

/** The request back from the cookie, checked again; SamlError when it was altered, has expired or no longer fits. */
export async function openPendingSignIn(ctx: ProviderContext, value: string | undefined): Promise<SsoRequest> {
  const pending = unsealed(ctx, value);
  if (!pending) throw new SamlError('bad_message', 'there is no sign-in waiting for this browser');
  if (pending.x <= ctx.clock().getTime()) throw new SamlError('bad_message', 'the sign-in took too long: start again at the application');
  const row = await findSamlServiceProviderRow(ctx.db, pending.e);
  const read = row && rowToServiceProvider(row);
  if (!read || 'problem' in read) throw new SamlError('unknown_peer', 'the service provider is no longer registered');
  const { sp } = read;
  if (!sp.role.assertionConsumerServices.some((a) => a.binding === 'post' && a.location === pending.a)) {
    throw new SamlError('bad_message', "the AssertionConsumerService is no longer in the SP's metadata");
  }
  return {
    sp,
    acsUrl: pending.a,
    ...(pending.i !== undefined ? { inResponseTo: pending.i } : {}),
    relayState: pending.r,
    minAuthTime: pending.m === null ? null : new Date(pending.m),
    isPassive: false,
    requestedAuthnContext: pending.c,
  };
}

/**
 * The relying party a sign-in made now is for, when a SAML request waits for it in `value` (the cookie, its seal
 * checked, unexpired): `saml:` and the SP's entityID, the name its security events and webhook events give it as
 * an OIDC sign-in's give the client_id. Undefined when none waits.
 */
export function waitingRelyingParty(ctx: Pick<ProviderContext, 'deviceSecret' | 'clock'>, value: string | undefined): string | undefined {
  const [body, tag] = (value ?? '').split('.');
  if (!body || !tag || !safeEqual(tag, mac(ctx, body))) return undefined;
  const pending = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Pending;
  return pending.x > ctx.clock().getTime() ? `saml:${pending.e}` : undefined;
}
