// What a person reads when a SAML message is refused (issue 39): one sentence per SamlError code, from the catalogs
// in the page's language. The error's own description is English for logs and admins; it is logged, never shown.
import type { SamlError, SamlErrorCode } from '../../domain/saml/saml-error.js';
import type { MessageKey } from '../../i18n/catalog.js';
import type { Translate } from '../../i18n/translate.js';

/** Every code has its sentence: a new code without one fails the type check here. */
const SENTENCES: Readonly<Record<SamlErrorCode, MessageKey>> = {
  too_large: 'saml.refused.too_large',
  malformed_xml: 'saml.refused.malformed_xml',
  forbidden_markup: 'saml.refused.malformed_xml',
  bad_encoding: 'saml.refused.malformed_xml',
  not_metadata: 'saml.refused.bad_metadata',
  bad_metadata: 'saml.refused.bad_metadata',
  unknown_peer: 'saml.refused.unknown_peer',
  bad_signature: 'saml.refused.bad_signature',
  bad_message: 'saml.refused.bad_message',
  replayed: 'saml.refused.replayed',
  unsolicited: 'saml.refused.unsolicited',
  peer_status: 'saml.refused.peer_status',
};

export const samlRefusalText = (t: Translate, err: Pick<SamlError, 'code'>): string => t(SENTENCES[err.code]);
