// SP-initiated Single Logout (SAML Profiles 2.0 §4.4): a LogoutRequest from a registered SP, signed (§4.4.4.1: it
// "MUST be authenticated by the recipient"; over the browser bindings only a signature does that), read here; the
// LogoutResponse back to the SP's SingleLogoutService of its metadata, signed.
import { DOMImplementation, XMLSerializer } from '@xmldom/xmldom';
import type { Db } from '../../../storage/database.js';
import { findSamlServiceProviderRow } from '../../../storage/saml-service-providers.js';
import { samlSessionsNamed } from '../../../storage/saml-session-participants.js';
import type { EndedSession } from '../../../storage/sessions.js';
import type { ProviderContext } from '../../context.js';
import { endSessionBySid } from '../../logout/logout.js';
import type { SamlKeyPair } from '../credentials.js';
import { NS, STATUS } from '../namespaces.js';
import { SamlError } from '../saml-error.js';
import { attributeOf, childElements, MAX_MESSAGE_BYTES, onlyChild, parseUntrustedXml, textOf } from '../xml-reader.js';
import { readIncomingRequest, type IncomingRequest } from './incoming-message.js';
import { checkPostSignature, checkRedirectSignature, signedFrontChannelMessage, type FrontChannelMessage } from './message-signatures.js';
import { samlId } from './saml-response.js';
import { rowToServiceProvider, type SamlServiceProvider } from './service-providers.js';

export interface LogoutRequestMessage {
  id: string;
  sp: SamlServiceProvider;
  /** The SessionIndex values: our session's sid, as the assertion's AuthnStatement gave it. */
  sessionIndexes: string[];
  /** The NameID's value (Core §3.7.1), which names the principal as the SP was told at sign-in. */
  nameId: string | undefined;
  relayState: string | undefined;
}

export type SloInput = IncomingRequest;

/** The LogoutRequest, checked: a registered SP's, signed with its certificate, sent to this endpoint. */
export async function readLogoutRequest(db: Db, input: SloInput, sloUrl: string, now: Date): Promise<LogoutRequestMessage> {
  const { xml, relayState, params } = readIncomingRequest(input);
  const root = parseUntrustedXml(xml, MAX_MESSAGE_BYTES).documentElement!;
  if (root.namespaceURI !== NS.protocol || root.localName !== 'LogoutRequest')
    throw new SamlError('bad_message', 'the message is not a LogoutRequest');
  const id = attributeOf(root, 'ID');
  if (!id) throw new SamlError('bad_message', 'the LogoutRequest has no ID');
  const issuerElement = onlyChild(root, NS.assertion, 'Issuer');
  const row = issuerElement ? await findSamlServiceProviderRow(db, textOf(issuerElement)) : undefined;
  const read = row && rowToServiceProvider(row);
  if (!read || 'problem' in read) throw new SamlError('unknown_peer', 'the LogoutRequest comes from no registered service provider');
  const { sp } = read;
  const signed = params ? checkRedirectSignature(params, sp) : checkPostSignature(xml, root, sp);
  if (!signed) throw new SamlError('bad_signature', 'a LogoutRequest must be signed (Profiles §4.4.4.1)');
  const destination = attributeOf(root, 'Destination');
  if (destination !== undefined && destination !== sloUrl) throw new SamlError('bad_message', 'the Destination is not this endpoint');
  const notOnOrAfter = attributeOf(root, 'NotOnOrAfter');
  if (notOnOrAfter !== undefined && !Number.isNaN(Date.parse(notOnOrAfter)) && Date.parse(notOnOrAfter) < now.getTime() - 60_000) {
    throw new SamlError('bad_message', 'the LogoutRequest has expired');
  }
  const nameIdElement = onlyChild(root, NS.assertion, 'NameID');
  return {
    id,
    sp,
    sessionIndexes: childElements(root, NS.protocol, 'SessionIndex').map(textOf),
    nameId: nameIdElement ? textOf(nameIdElement) : undefined,
    relayState,
  };
}

/**
 * Ends the sessions a LogoutRequest names when the browser's cookie does not (Profiles §4.4.3.2): those in which this
 * SP was told the request's NameID (and SessionIndex, when it gives any), as recorded at sign-in. A LogoutRequest
 * posted from the SP's site is a cross-site POST and brings no SameSite=Lax session cookie. Returns the first ended.
 */
export async function endSessionsNamedBy(
  ctx: ProviderContext,
  message: LogoutRequestMessage,
  onLogoutsQueued: () => void,
): Promise<EndedSession | undefined> {
  if (message.nameId === undefined) return undefined;
  let first: EndedSession | undefined;
  for (const sid of await samlSessionsNamed(ctx.db, message.sp.entityId, message.nameId, message.sessionIndexes)) {
    const ended = await endSessionBySid(ctx, sid);
    if (ended && ended.queued > 0) onLogoutsQueued();
    first ??= ended;
  }
  return first;
}

/** Where the LogoutResponse goes: the SP's SingleLogoutService (Redirect preferred), or undefined when it has none. */
export type LogoutAnswer = FrontChannelMessage | { kind: 'none' };

export function logoutResponse(input: {
  issuer: string;
  request: LogoutRequestMessage;
  now: Date;
  key: SamlKeyPair;
  partial: boolean;
}): LogoutAnswer {
  const services = input.request.sp.role.singleLogoutServices;
  const service = services.find((s) => s.binding === 'redirect') ?? services.find((s) => s.binding === 'post');
  if (!service) return { kind: 'none' };
  const destination = service.responseLocation ?? service.location;
  const doc = new DOMImplementation().createDocument(NS.protocol, 'samlp:LogoutResponse', null);
  const root = doc.documentElement!;
  const id = samlId();
  root.setAttribute('ID', id);
  root.setAttribute('Version', '2.0');
  root.setAttribute('IssueInstant', input.now.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  root.setAttribute('Destination', destination);
  root.setAttribute('InResponseTo', input.request.id);
  const issuer = doc.createElementNS(NS.assertion, 'saml:Issuer');
  issuer.appendChild(doc.createTextNode(input.issuer));
  root.appendChild(issuer);
  const status = doc.createElementNS(NS.protocol, 'samlp:Status');
  const code = doc.createElementNS(NS.protocol, 'samlp:StatusCode');
  code.setAttribute('Value', STATUS.success);
  if (input.partial) {
    const sub = doc.createElementNS(NS.protocol, 'samlp:StatusCode');
    sub.setAttribute('Value', STATUS.partialLogout);
    code.appendChild(sub);
  }
  status.appendChild(code);
  root.appendChild(status);
  return signedFrontChannelMessage({
    binding: service.binding,
    name: 'SAMLResponse',
    xml: new XMLSerializer().serializeToString(doc),
    id,
    location: destination,
    relayState: input.request.relayState,
    key: input.key,
  });
}
