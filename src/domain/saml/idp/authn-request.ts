// An AuthnRequest (SAML Core 2.0 §3.4.1) from a service provider, over HTTP-Redirect or HTTP-POST: decoded under the
// core's caps, its Issuer a registered SP, its signature checked with that SP's certificates only (required when
// its metadata says AuthnRequestsSigned), and the ACS it names one of its metadata's. Any refusal is a SamlError:
// the browser gets an error page and no response goes anywhere.
import type { Db } from '../../../storage/database.js';
import { findSamlServiceProviderRow } from '../../../storage/saml-service-providers.js';
import type { IndexedEndpoint } from '../metadata-reader.js';
import { BINDINGS, NS } from '../namespaces.js';
import { SamlError } from '../saml-error.js';
import { attributeOf, childElements, MAX_MESSAGE_BYTES, onlyChild, parseUntrustedXml, textOf } from '../xml-reader.js';
import { readIncomingRequest, type IncomingRequest } from './incoming-message.js';
import { checkPostSignature, checkRedirectSignature } from './message-signatures.js';
import { rowToServiceProvider, type SamlServiceProvider } from './service-providers.js';

export interface AuthnRequest {
  id: string;
  sp: SamlServiceProvider;
  /** Where the response goes: an HTTP-POST ACS of the SP's metadata. */
  acsUrl: string;
  relayState: string | undefined;
  forceAuthn: boolean;
  isPassive: boolean;
  /** RequestedAuthnContext's class references, when given. */
  requestedAuthnContext: string[];
  /** NameIDPolicy's Format, when given. */
  nameIdPolicyFormat: string | undefined;
}

/** Profiles §4.1.4.1: the ACS by URL (exactly as in metadata) or by index; else the SP's default. HTTP-POST only. */
function chooseAcs(request: Element, sp: SamlServiceProvider): string {
  const posts = sp.role.assertionConsumerServices.filter((a) => a.binding === 'post');
  const binding = attributeOf(request, 'ProtocolBinding');
  if (binding !== undefined && binding !== BINDINGS.post) throw new SamlError('bad_message', 'responses are sent over HTTP-POST only');
  const url = attributeOf(request, 'AssertionConsumerServiceURL');
  const index = attributeOf(request, 'AssertionConsumerServiceIndex');
  let chosen: IndexedEndpoint | undefined;
  if (url !== undefined) {
    chosen = posts.find((a) => a.location === url);
    if (!chosen) throw new SamlError('bad_message', "the AssertionConsumerServiceURL is not in the SP's metadata");
  } else if (index !== undefined) {
    chosen = posts.find((a) => String(a.index) === index);
    if (!chosen) throw new SamlError('bad_message', "the AssertionConsumerServiceIndex is not in the SP's metadata");
  } else {
    chosen = posts.find((a) => a.isDefault) ?? posts[0];
    if (!chosen) throw new SamlError('bad_message', "the SP's metadata has no HTTP-POST AssertionConsumerService");
  }
  return chosen.location;
}

/** The request, checked; `ssoUrl` is this endpoint (a Destination must name it). */
export async function readAuthnRequest(db: Db, input: IncomingRequest, ssoUrl: string): Promise<AuthnRequest> {
  const { xml, relayState, params } = readIncomingRequest(input);
  const root = parseUntrustedXml(xml, MAX_MESSAGE_BYTES).documentElement!;
  if (root.namespaceURI !== NS.protocol || root.localName !== 'AuthnRequest')
    throw new SamlError('bad_message', 'the message is not an AuthnRequest');
  const id = attributeOf(root, 'ID');
  if (!id) throw new SamlError('bad_message', 'the AuthnRequest has no ID');
  if (attributeOf(root, 'Version') !== '2.0') throw new SamlError('bad_message', 'the AuthnRequest is not SAML 2.0');
  const issuerElement = onlyChild(root, NS.assertion, 'Issuer');
  const issuer = issuerElement ? textOf(issuerElement) : '';
  if (issuer === '') throw new SamlError('unknown_peer', 'the AuthnRequest names no Issuer');
  const row = await findSamlServiceProviderRow(db, issuer);
  if (!row) throw new SamlError('unknown_peer', 'the AuthnRequest comes from no registered service provider');
  const read = rowToServiceProvider(row);
  if ('problem' in read) throw new SamlError('unknown_peer', 'the service provider is stored in a shape this version does not read');
  const { sp } = read;

  const signed = params ? checkRedirectSignature(params, sp) : checkPostSignature(xml, root, sp);
  // Metadata §2.4.4: AuthnRequestsSigned "indicates whether the <samlp:AuthnRequest> messages sent by this service
  // provider will be signed"; an unsigned one from such an SP is not its own.
  if (sp.role.authnRequestsSigned && !signed)
    throw new SamlError('bad_signature', 'the service provider signs its requests, and this one is not signed');

  // Core §3.2.1: "If [Destination] is present, the actual recipient MUST check that the URI reference identifies the
  // location at which the message was received."
  const destination = attributeOf(root, 'Destination');
  if (destination !== undefined && destination !== ssoUrl) throw new SamlError('bad_message', 'the Destination is not this endpoint');

  const acsUrl = chooseAcs(root, sp);
  const policy = onlyChild(root, NS.protocol, 'NameIDPolicy');
  const context = onlyChild(root, NS.protocol, 'RequestedAuthnContext');
  return {
    id,
    sp,
    acsUrl,
    relayState,
    forceAuthn: attributeOf(root, 'ForceAuthn') === 'true' || attributeOf(root, 'ForceAuthn') === '1',
    isPassive: attributeOf(root, 'IsPassive') === 'true' || attributeOf(root, 'IsPassive') === '1',
    requestedAuthnContext: context ? childElements(context, NS.assertion, 'AuthnContextClassRef').map(textOf) : [],
    nameIdPolicyFormat: policy ? attributeOf(policy, 'Format') : undefined,
  };
}
