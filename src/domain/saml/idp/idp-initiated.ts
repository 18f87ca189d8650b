// IdP-initiated sign-in (Profiles 2.0 §4.1.5 "unsolicited responses"): only to an SP whose settings allow it, at the
// default HTTP-POST ACS of its metadata, with no InResponseTo.
import type { Db } from '../../../storage/database.js';
import { findSamlServiceProviderRow } from '../../../storage/saml-service-providers.js';
import { checkRelayState } from '../bindings.js';
import { SamlError } from '../saml-error.js';
import { rowToServiceProvider } from './service-providers.js';
import type { SsoRequest } from './single-sign-on.js';

export async function idpInitiatedRequest(db: Db, entityId: string, relayState: string | undefined): Promise<SsoRequest> {
  const row = await findSamlServiceProviderRow(db, entityId);
  const read = row && rowToServiceProvider(row);
  if (!read || 'problem' in read) throw new SamlError('unknown_peer', 'no such service provider');
  const { sp } = read;
  if (!sp.idpInitiated) throw new SamlError('bad_message', 'this service provider does not accept sign-ins started here');
  checkRelayState(relayState);
  const posts = sp.role.assertionConsumerServices.filter((a) => a.binding === 'post');
  const acs = posts.find((a) => a.isDefault) ?? posts[0];
  if (!acs) throw new SamlError('bad_message', "the SP's metadata has no HTTP-POST AssertionConsumerService");
  return { sp, acsUrl: acs.location, relayState, minAuthTime: null, isPassive: false, requestedAuthnContext: [] };
}
