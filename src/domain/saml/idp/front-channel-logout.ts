// Single logout's propagation (SAML Profiles 2.0 §4.4.3.3-4.4.3.4) over the front channel: once the provider session
// has ended, every other SP it signed in to gets a signed LogoutRequest over HTTP-Redirect, or HTTP-POST where its
// metadata offers only that, one after the other through the browser; each LogoutResponse returns to
// {issuer}/saml/slo (either binding) and the chain goes on. Where it stands is kept in the
// browser (a cookie sealed with an HMAC under a key of its own), the NameIDs in the database (saml-session-participants).
import { createHmac, hkdfSync } from 'node:crypto';
import { DOMImplementation, XMLSerializer } from '@xmldom/xmldom';
import { findSamlServiceProviderRow } from '../../../storage/saml-service-providers.js';
import { listSamlSessionParticipants } from '../../../storage/saml-session-participants.js';
import type { ProviderContext } from '../../context.js';
import { safeEqual } from '../../secrets.js';
import { decodePostMessage, decodeRedirectMessage } from '../bindings.js';
import type { SamlKeyPair } from '../credentials.js';
import { NAME_ID_FORMATS, NS, STATUS, type NameIdFormatName } from '../namespaces.js';
import { SamlError } from '../saml-error.js';
import { attributeOf, MAX_MESSAGE_BYTES, onlyChild, parseUntrustedXml, textOf } from '../xml-reader.js';
import {
  checkPostSignature,
  checkRedirectSignature,
  rawParams,
  signedFrontChannelMessage,
  type FrontChannelMessage,
} from './message-signatures.js';
import { samlId } from './saml-response.js';
import { rowToServiceProvider, type SamlServiceProvider } from './service-providers.js';

/** Where the browser goes once every SP has been told. */
export type LogoutFinish =
  /** SP-initiated: the LogoutResponse to the SP that asked (its request's ID and RelayState). */
  | { kind: 'saml'; entityId: string; requestId: string; relayState: string | undefined }
  /** IdP-initiated: this URL (a verified post_logout_redirect_uri), or the provider's signed-out page (null). */
  | { kind: 'url'; url: string | null };

export interface LogoutChain {
  sid: string;
  /** The SPs still to be told, in order. */
  remaining: string[];
  /** The LogoutRequest out now: its ID and the SP it went to. */
  pending: { id: string; entityId: string } | null;
  /** Profiles §4.4.3.4: some SP could not be told or did not confirm: the answer is PartialLogout. */
  partial: boolean;
  finish: LogoutFinish;
  /** Until when (ms since the epoch) the chain may go on. */
  expiresAt: number;
}

const keys = new WeakMap<Buffer, Buffer>();
function macKey(secret: Buffer): Buffer {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'sso-provider saml logout chain v1', 32))));
  return key;
}
const mac = (ctx: Pick<ProviderContext, 'deviceSecret'>, body: string) =>
  createHmac('sha256', macKey(ctx.deviceSecret)).update(body).digest('base64url');

/** The cookie's value for the chain. */
export function sealLogoutChain(ctx: Pick<ProviderContext, 'deviceSecret'>, chain: LogoutChain): string {
  const body = Buffer.from(JSON.stringify(chain), 'utf8').toString('base64url');
  return `${body}.${mac(ctx, body)}`;
}

/** The chain back from the cookie; SamlError when there is none, it was altered or it has expired. */
export function openLogoutChain(ctx: Pick<ProviderContext, 'deviceSecret' | 'clock'>, value: string | undefined): LogoutChain {
  const [body, tag] = (value ?? '').split('.');
  if (!body || !tag || !safeEqual(tag, mac(ctx, body))) throw new SamlError('bad_message', 'there is no logout under way in this browser');
  const chain = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as LogoutChain;
  if (chain.expiresAt <= ctx.clock().getTime()) throw new SamlError('bad_message', 'the logout took too long');
  return chain;
}

/**
 * The chain for the session `sid` just ended: its SPs but `except` (the one that asked, §4.4.3.3: "the identity
 * provider ... MUST ... send a <LogoutRequest> to each session participant other than the requester"), or undefined
 * when there is none to tell.
 */
export async function beginLogoutChain(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'config'>,
  sid: string,
  except: string | undefined,
  finish: LogoutFinish,
): Promise<LogoutChain | undefined> {
  const remaining = (await listSamlSessionParticipants(ctx.db, sid)).map((p) => p.entityId).filter((e) => e !== except);
  if (remaining.length === 0) return undefined;
  const expiresAt = ctx.clock().getTime() + ctx.config.interactionTtlSeconds * 1000;
  return { sid, remaining, pending: null, partial: false, finish, expiresAt };
}

export type LogoutStep =
  /** The browser takes a signed LogoutRequest to this SP's SingleLogoutService; the chain waits for its answer. */
  | { kind: 'request'; message: FrontChannelMessage; chain: LogoutChain; entityId: string }
  /** Every SP has been told: finish. */
  | { kind: 'done'; finish: LogoutFinish; partial: boolean };

/** The SP registered under `entityId`, when its entry still reads. */
export async function registeredServiceProvider(
  ctx: Pick<ProviderContext, 'db'>,
  entityId: string,
): Promise<SamlServiceProvider | undefined> {
  const row = await findSamlServiceProviderRow(ctx.db, entityId);
  const read = row && rowToServiceProvider(row);
  return read && !('problem' in read) ? read.sp : undefined;
}

/**
 * The next SP to tell, at the SingleLogoutService of its metadata: HTTP-Redirect where it offers that, else HTTP-POST
 * (Bindings §3.5; Profiles §4.4.4.1: the request signed either way). One with neither (or gone) cannot be told, and
 * makes the logout partial.
 */
export async function nextLogoutStep(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'config'>,
  key: () => Promise<SamlKeyPair>,
  chain: LogoutChain,
): Promise<LogoutStep> {
  const participants = await listSamlSessionParticipants(ctx.db, chain.sid);
  let { partial } = chain;
  const remaining = [...chain.remaining];
  for (let entityId = remaining.shift(); entityId !== undefined; entityId = remaining.shift()) {
    const participant = participants.find((p) => p.entityId === entityId);
    const sp = await registeredServiceProvider(ctx, entityId);
    const services = sp?.role.singleLogoutServices ?? [];
    const service = services.find((s) => s.binding === 'redirect') ?? services.find((s) => s.binding === 'post');
    if (!participant || !sp || !service) {
      partial = true;
      continue;
    }
    const id = samlId();
    const xml = logoutRequestXml({
      id,
      issuer: ctx.config.issuer,
      destination: service.location,
      now: ctx.clock(),
      nameId: participant.nameId,
      nameIdFormat: participant.nameIdFormat as NameIdFormatName,
      spEntityId: sp.entityId,
      sessionIndex: participant.sessionIndex,
    });
    const message = signedFrontChannelMessage({
      binding: service.binding,
      name: 'SAMLRequest',
      xml,
      id,
      location: service.location,
      relayState: undefined,
      key: await key(),
    });
    return { kind: 'request', message, entityId, chain: { ...chain, remaining, partial, pending: { id, entityId } } };
  }
  return { kind: 'done', finish: chain.finish, partial };
}

/** Core §3.7.1: the LogoutRequest for one session participant, naming the NameID and SessionIndex its assertion had. */
function logoutRequestXml(input: {
  id: string;
  issuer: string;
  destination: string;
  now: Date;
  nameId: string;
  nameIdFormat: NameIdFormatName;
  spEntityId: string;
  sessionIndex: string;
}): string {
  const doc = new DOMImplementation().createDocument(NS.protocol, 'samlp:LogoutRequest', null);
  const root = doc.documentElement!;
  const instant = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  root.setAttribute('ID', input.id);
  root.setAttribute('Version', '2.0');
  root.setAttribute('IssueInstant', instant(input.now));
  root.setAttribute('Destination', input.destination);
  root.setAttribute('NotOnOrAfter', instant(new Date(input.now.getTime() + 5 * 60_000)));
  root.setAttribute('Reason', 'urn:oasis:names:tc:SAML:2.0:logout:user');
  const issuer = doc.createElementNS(NS.assertion, 'saml:Issuer');
  issuer.appendChild(doc.createTextNode(input.issuer));
  root.appendChild(issuer);
  const nameId = doc.createElementNS(NS.assertion, 'saml:NameID');
  nameId.setAttribute('Format', NAME_ID_FORMATS[input.nameIdFormat] ?? NAME_ID_FORMATS.unspecified);
  // As the assertion's NameID had them (saml-response.ts), so that the SP finds the same name.
  if (input.nameIdFormat === 'persistent') {
    nameId.setAttribute('NameQualifier', input.issuer);
    nameId.setAttribute('SPNameQualifier', input.spEntityId);
  }
  nameId.appendChild(doc.createTextNode(input.nameId));
  root.appendChild(nameId);
  const sessionIndex = doc.createElementNS(NS.protocol, 'samlp:SessionIndex');
  sessionIndex.appendChild(doc.createTextNode(input.sessionIndex));
  root.appendChild(sessionIndex);
  return new XMLSerializer().serializeToString(doc);
}

export type LogoutResponseInput = { binding: 'redirect'; rawQuery: string } | { binding: 'post'; SAMLResponse: string };

/**
 * The SP's LogoutResponse to the pending request: the chain with it answered. §4.4.4.2: "The responder MUST
 * authenticate itself to the requester", so an unsigned answer, one from another SP or to another request, or a
 * status other than Success, counts as that SP not logged out (PartialLogout); the chain goes on in every case.
 */
export async function readLogoutResponse(
  ctx: Pick<ProviderContext, 'db'>,
  input: LogoutResponseInput,
  chain: LogoutChain,
  sloUrl: string,
): Promise<{ chain: LogoutChain; confirmed: boolean; problem?: string }> {
  const pending = chain.pending;
  if (pending === null) throw new SamlError('bad_message', 'no LogoutRequest of this browser waits for an answer');
  const next = { ...chain, pending: null };
  try {
    let xml: string;
    let params: ReturnType<typeof rawParams> | undefined;
    if (input.binding === 'redirect') {
      params = rawParams(input.rawQuery);
      const message = params.get('SAMLResponse');
      if (!message) throw new SamlError('bad_message', 'there is no SAMLResponse');
      xml = decodeRedirectMessage(message.value);
    } else {
      xml = decodePostMessage(input.SAMLResponse);
    }
    const root = parseUntrustedXml(xml, MAX_MESSAGE_BYTES).documentElement!;
    if (root.namespaceURI !== NS.protocol || root.localName !== 'LogoutResponse')
      throw new SamlError('bad_message', 'the message is not a LogoutResponse');
    const issuer = onlyChild(root, NS.assertion, 'Issuer');
    if (!issuer || textOf(issuer) !== pending.entityId) throw new SamlError('unknown_peer', 'the LogoutResponse is not from the SP asked');
    const sp = await registeredServiceProvider(ctx, pending.entityId);
    if (!sp) throw new SamlError('unknown_peer', 'the service provider is no longer registered');
    const signed = params ? checkRedirectSignature(params, sp, 'SAMLResponse') : checkPostSignature(xml, root, sp);
    if (!signed) throw new SamlError('bad_signature', 'a LogoutResponse must be signed (Profiles §4.4.4.2)');
    if (attributeOf(root, 'InResponseTo') !== pending.id) throw new SamlError('bad_message', 'the LogoutResponse answers another request');
    // Bindings §3.5.5.2: "If the message is signed, the Destination XML attribute in the root SAML element of the
    // protocol message MUST contain the URL to which the sender has instructed the user agent to deliver the
    // message"; over HTTP-POST the signature in the XML is all that ties the message to this endpoint.
    const destination = attributeOf(root, 'Destination');
    if (destination === undefined && input.binding === 'post') throw new SamlError('bad_message', 'the LogoutResponse has no Destination');
    if (destination !== undefined && destination !== sloUrl) throw new SamlError('bad_message', 'the Destination is not this endpoint');
    const status = onlyChild(root, NS.protocol, 'Status');
    const code = status && onlyChild(status, NS.protocol, 'StatusCode');
    if (!code || attributeOf(code, 'Value') !== STATUS.success)
      return { chain: { ...next, partial: true }, confirmed: false, problem: 'status' };
    return { chain: next, confirmed: true };
  } catch (err) {
    if (!(err instanceof SamlError)) throw err;
    return { chain: { ...next, partial: true }, confirmed: false, problem: err.code };
  }
}
