// A SAMLRequest arriving at one of our IdP endpoints (SSO, SLO) over HTTP-Redirect (Bindings 2.0 §3.4.4: deflated in
// the query, whose raw octets a signature covers) or HTTP-POST (§3.5.4: base64 in a form field), with its RelayState
// (§3.4.3 / §3.5.3: at most 80 bytes). The caller checks the XML and the signature with the sender's certificates.
import { checkRelayState, decodePostMessage, decodeRedirectMessage } from '../bindings.js';
import { SamlError } from '../saml-error.js';
import { rawParams } from './message-signatures.js';

export type IncomingRequest = { binding: 'redirect'; rawQuery: string } | { binding: 'post'; SAMLRequest: string; RelayState?: string };

export interface ReadRequest {
  xml: string;
  relayState: string | undefined;
  /** The query's parameters as they arrived, for checkRedirectSignature; undefined over HTTP-POST. */
  params: ReturnType<typeof rawParams> | undefined;
}

export function readIncomingRequest(input: IncomingRequest): ReadRequest {
  let read: ReadRequest;
  if (input.binding === 'redirect') {
    const params = rawParams(input.rawQuery);
    const message = params.get('SAMLRequest');
    if (!message) throw new SamlError('bad_message', 'there is no SAMLRequest');
    read = { xml: decodeRedirectMessage(message.value), relayState: params.get('RelayState')?.value, params };
  } else {
    read = { xml: decodePostMessage(input.SAMLRequest), relayState: input.RelayState, params: undefined };
  }
  checkRelayState(read.relayState);
  return read;
}
