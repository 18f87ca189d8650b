// A SAMLResponse at our ACS (SAML Profiles 4.1.4.3, 4.1.4.5), checked before anything is believed: size cap and no
// DTD before parsing; then node-saml (service-provider.ts) for the signature by the connection's certificates, by the
// reference that is the assertion it reads, and the audience; then here, on the injected clock: the issuer, the
// bearer SubjectConfirmation's Recipient, NotOnOrAfter and InResponseTo, the Conditions' validity window, the
// response's Destination and InResponseTo. What comes out is read from the signed assertion only.
import type { Profile } from '@node-saml/node-saml';
import type { Connection } from '../../connections/connection.js';
import { decodePostMessage } from '../bindings.js';
import { NS } from '../namespaces.js';
import { loadNodeSaml, serviceProvider } from './service-provider.js';
import type { SamlCredentials, SamlKeyPair } from '../credentials.js';
import { SamlError } from '../saml-error.js';
import { samlAcsUrl } from './sp-urls.js';
import { MAX_MESSAGE_BYTES, parseUntrustedXml } from '../xml-reader.js';

/** The clocks of the IdP and ours may differ by this much (SAML Core 2.5.1.2 leaves it to the relying party). */
export const CLOCK_SKEW_MS = 60_000;
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

export interface VerifiedAssertion {
  assertionId: string;
  /** Until when the assertion ID is kept against a replay. */
  notOnOrAfter: Date;
  nameId: string;
  nameIdFormat: string | null;
  attributes: Record<string, string[]>;
  /** The response answered this request ID; null for an unsolicited response. */
  inResponseTo: string | null;
}

type Xml2Js = Record<string, unknown> & { $?: Record<string, string>; _?: string };
const first = (v: unknown): Xml2Js | undefined => (Array.isArray(v) ? (v[0] as Xml2Js | undefined) : undefined);
const all = (v: unknown): Xml2Js[] => (Array.isArray(v) ? (v as Xml2Js[]) : []);

function instant(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  // SAML Core 1.3.3: xs:dateTime in UTC.
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) throw new SamlError('bad_message', `${what} is not a UTC dateTime`);
  return Date.parse(value);
}

async function validate(
  issuer: string,
  connection: Connection,
  signing: SamlKeyPair,
  decryption: SamlKeyPair | undefined,
  samlResponse: string,
  requestId: string | null,
): Promise<Profile> {
  try {
    const sp = await serviceProvider(issuer, connection, { signing, decryption }, { requestId });
    const { profile } = await sp.validatePostResponseAsync({ SAMLResponse: samlResponse });
    if (!profile) throw new SamlError('bad_message', 'the response carries no assertion');
    return profile;
  } catch (err) {
    if (err instanceof SamlError) throw err;
    if (err instanceof (await loadNodeSaml()).SamlStatusError)
      throw new SamlError('peer_status', 'the IdP answered with a status other than Success');
    throw new SamlError('bad_message', `node-saml refused the response: ${(err as Error).message.slice(0, 160)}`);
  }
}

/** Checks the posted SAMLResponse as described above; throws SamlError. */
export async function verifySamlResponse(
  input: { issuer: string; connection: Connection; credentials: SamlCredentials; now: Date },
  samlResponse: string,
  requestId: string | null,
): Promise<VerifiedAssertion> {
  const { issuer, connection, now } = input;
  const settings = connection.saml!;
  const acs = samlAcsUrl(issuer, connection.id);
  const xml = decodePostMessage(samlResponse);
  const root = parseUntrustedXml(xml, MAX_MESSAGE_BYTES).documentElement;
  if (root.namespaceURI !== NS.protocol || root.localName !== 'Response')
    throw new SamlError('bad_message', 'the message is not a samlp:Response');
  // SAML Core 3.2.2: "If [Destination is] present, the actual recipient MUST check that the URI reference identifies
  // the location at which the message was received."
  const destination = root.getAttribute('Destination');
  if (destination !== null && destination !== '' && destination !== acs)
    throw new SamlError('bad_message', 'the Destination is not our ACS');
  const responseInResponseTo = root.getAttribute('InResponseTo') || null;
  // Profiles 4.1.4.5 / 4.1.5: a response to our request names it; an unsolicited one names none.
  if (requestId === null && responseInResponseTo !== null)
    throw new SamlError('unsolicited', 'the response answers a request this browser did not send');
  if (requestId !== null && responseInResponseTo !== null && responseInResponseTo !== requestId)
    throw new SamlError('bad_message', 'the response answers another request');

  const signing = await input.credentials.signing();
  const decryptionKeys = xml.includes('EncryptedAssertion') ? await input.credentials.decryption() : [];
  let profile: Profile | undefined;
  for (let i = 0; profile === undefined; i++) {
    try {
      profile = await validate(issuer, connection, signing, decryptionKeys[i], samlResponse, requestId);
    } catch (err) {
      // An encrypted assertion is tried with each of our decryption keys, current first.
      if (i + 1 >= decryptionKeys.length) throw err;
    }
  }

  const assertion = (profile.getAssertion?.() as { Assertion?: Xml2Js } | undefined)?.Assertion;
  if (!assertion?.$) throw new SamlError('bad_message', 'the signed assertion cannot be read');
  const assertionId = assertion.$.ID;
  if (!assertionId) throw new SamlError('bad_message', 'the assertion has no ID');
  // SAML Core 2.3.3 / Profiles 4.1.4.2: the assertion's Issuer is the IdP's entityID.
  if (first(assertion.Issuer)?._ !== settings.idpEntityId)
    throw new SamlError('bad_message', 'the assertion Issuer is not the connection IdP');

  const nowMs = now.getTime();
  // Profiles 4.1.4.2: at least one bearer SubjectConfirmation whose data has our ACS as Recipient, a NotOnOrAfter,
  // and the request's ID as InResponseTo (when there was a request); NotBefore is not allowed on it.
  const subject = first(assertion.Subject);
  const confirmations = all(subject?.SubjectConfirmation).filter((c) => c.$?.Method === BEARER);
  let confirmedUntil: number | undefined;
  const refusals: string[] = [];
  for (const c of confirmations) {
    const data = first(c.SubjectConfirmationData)?.$ ?? {};
    const until = instant(data.NotOnOrAfter, 'SubjectConfirmationData NotOnOrAfter');
    if (data.Recipient !== acs) refusals.push('Recipient is not our ACS');
    else if (until === undefined) refusals.push('no NotOnOrAfter');
    else if (nowMs - CLOCK_SKEW_MS >= until) refusals.push('expired');
    else if (data.NotBefore !== undefined) refusals.push('NotBefore on a bearer confirmation');
    else if (requestId !== null ? data.InResponseTo !== requestId : data.InResponseTo !== undefined) refusals.push('InResponseTo');
    else {
      confirmedUntil = until;
      break;
    }
  }
  if (confirmedUntil === undefined)
    throw new SamlError('bad_message', `no bearer SubjectConfirmation holds (${refusals.join(', ') || 'none present'})`);

  // SAML Core 2.5.1.2: NotBefore and NotOnOrAfter of the Conditions; 2.5.1.4: our entityID among the audiences
  // (node-saml checked the AudienceRestriction).
  const conditions = all(assertion.Conditions);
  if (conditions.length !== 1) throw new SamlError('bad_message', 'the assertion has no single Conditions');
  const notBefore = instant(conditions[0]!.$?.NotBefore, 'Conditions NotBefore');
  const notOnOrAfter = instant(conditions[0]!.$?.NotOnOrAfter, 'Conditions NotOnOrAfter');
  if (notBefore !== undefined && nowMs + CLOCK_SKEW_MS < notBefore) throw new SamlError('bad_message', 'the assertion is not valid yet');
  if (notOnOrAfter !== undefined && nowMs - CLOCK_SKEW_MS >= notOnOrAfter) throw new SamlError('bad_message', 'the assertion has expired');

  const nameId = first(subject?.NameID);
  const nameIdValue = profile.nameID;
  if (typeof nameIdValue !== 'string' || nameIdValue.length === 0 || nameIdValue.length > 512 || nameId?._ !== nameIdValue)
    throw new SamlError('bad_message', 'the assertion has no NameID');
  const attributes: Record<string, string[]> = {};
  for (const [name, value] of Object.entries((profile.attributes as Record<string, unknown> | undefined) ?? {})) {
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    if (values.length > 0) attributes[name] = values;
  }
  return {
    assertionId,
    notOnOrAfter: new Date(Math.max(confirmedUntil, notOnOrAfter ?? 0) + CLOCK_SKEW_MS),
    nameId: nameIdValue,
    nameIdFormat: nameId.$?.Format ?? null,
    attributes,
    inResponseTo: requestId,
  };
}
