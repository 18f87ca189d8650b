// What an interaction keeps of the authorization request it serves, and the shapes it is stored in (read back through
// them by src/storage/interactions.ts): during a rolling restart an instance may read what another version wrote.
import { LOCALES } from '../../i18n/catalog.js';
import {
  arrayOf,
  boolean,
  nullable,
  number,
  object,
  oneOf,
  optional,
  string,
  type Shape,
  type VersionedShapes,
} from '../../storage/json-shape.js';
import { PROMPT_VALUES, type ApiScope, type AuthorizationRequest } from './authorization-request.js';
import { RESPONSE_MODES } from './authorization-response.js';
import { SUPPORTED_SCOPES } from '../scope.js';

/** What an interaction keeps of the authorization request it serves. */
export interface StoredInteraction {
  request: AuthorizationRequest;
  /** Epoch milliseconds; a session signed in before this cannot serve the request. */
  minAuthTime: number | null;
  forceConsent: boolean;
}

/** Version 1; rows written before versions were kept have the same fields and no `v`. */
const INTERACTION_V1: Shape<StoredInteraction> = object<StoredInteraction>({
  request: object<AuthorizationRequest>({
    clientId: string,
    redirectUri: string,
    redirectUriInRequest: boolean,
    scopes: arrayOf(oneOf(SUPPORTED_SCOPES)),
    state: nullable(string),
    nonce: nullable(string),
    codeChallenge: nullable(string),
    prompts: arrayOf(oneOf(PROMPT_VALUES)),
    maxAge: nullable(number),
    loginHint: nullable(string),
    responseMode: oneOf(RESPONSE_MODES),
    idTokenHint: nullable(string),
    // Added after version 1 was first written: a row without it predates self-registered clients being marked.
    unverifiedClient: optional(string),
    // Added after version 1 was first written: a row without it was started before the pages spoke ui_locales.
    uiLocale: optional(oneOf(LOCALES)),
    // Added after version 1 was first written: FAPI 2.0 clients' requests (their codes live 60 s at most).
    fapi2: optional(boolean),
    // Added after version 1 was first written (RFC 8707): absent in rows of requests that named no resource.
    resources: optional(arrayOf(string)),
    apiScopes: optional(arrayOf(object<ApiScope>({ name: string, description: string }))),
    // Added after version 1 was first written: a row without it was started before the claims parameter (OIDC Core 5.5).
    claims: optional(nullable(string)),
    // Added after version 1 was first written (issue 19): the upstream connection an idp_hint named.
    idpHint: optional(string),
    // Added after version 1 was first written (RFC 9449 10): the DPoP key a request's dpop_jkt bound its code to.
    dpopJkt: optional(string),
    // Added after version 1 was first written (issue 40): the organization the request named. The interaction's
    // organization_id column is what the pages read (it also holds one picked after the sign-in).
    organizationId: optional(string),
  }),
  minAuthTime: nullable(number),
  forceConsent: boolean,
});

export const STORED_INTERACTION: VersionedShapes<StoredInteraction> = { 1: INTERACTION_V1 };
