// What every passkey endpoint shares: the WebAuthn options answered as JSON to the page script, the refusals of those
// JSON requests, the posted credential read from the form, and the cookies a passkey sign-in earns. The credential,
// the challenge and the options are never logged.
import type { FastifyReply } from 'fastify';
import type { CompletedSignIn } from '../../domain/accounts/sign-in-completion.js';
import { parseCredentialJson } from '../../domain/accounts/passkey-ceremony.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { sessionCookie } from '../cookies.js';
import { setDeviceCookie } from './device-signals.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** The options of a ceremony, for navigator.credentials (WebAuthn L3 §5.1.3, §5.1.4). */
export function sendPasskeyOptions(reply: FastifyReply, options: object): FastifyReply {
  return reply.code(200).headers(JSON_HEADERS).send(JSON.stringify(options));
}

/** A refused options request: `error` a fixed code, `error_description` the sentence the page shows. */
export function sendPasskeyError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
  retryAfter?: number,
): FastifyReply {
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return reply
    .code(status)
    .headers(JSON_HEADERS)
    .send(JSON.stringify({ error, error_description: description }));
}

/** The `credential` field: the JSON the page script posted, parsed; undefined when it is missing or not JSON. */
export function postedCredential(form: RawParams): unknown {
  return parseCredentialJson(single(form, 'credential'));
}

/** The page says this for any credential it could not read: the script posts JSON, so only a forged post sends other. */
export const UNREADABLE_PASSKEY = 'signIn.passkeyUnreadable';
/** And this for every refusal, whatever its reason (unknown credential, forged or replayed assertion, blocked). */
export const PASSKEY_REFUSED = 'signIn.passkeyRefused';

/** The session (and a new device cookie) of a completed sign-in. */
export function setSignInCookies(ctx: ProviderContext, reply: FastifyReply, completed: CompletedSignIn): void {
  const session = sessionCookie(ctx.config);
  reply.setCookie(session.name, completed.cookie, session.options);
  if (completed.newDeviceCookie) setDeviceCookie(reply, ctx.config, completed.newDeviceCookie);
}
