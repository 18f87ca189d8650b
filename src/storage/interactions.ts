// Repository for pending authorization requests that wait on the user (sign-in, consent).
// The request is stored as versioned JSON and checked field by field when read back (src/storage/json-shape.ts):
// during a rolling restart an instance may read what another version wrote.
import { PROMPT_VALUES, type ApiScope, type AuthorizationRequest } from '../domain/authorization/authorization-request.js';
import { RESPONSE_MODES } from '../domain/authorization/authorization-response.js';
import { SUPPORTED_SCOPES } from '../domain/authorization/scope.js';
import { LOCALES } from '../i18n/catalog.js';
import { sql } from 'kysely';
import type { Db } from './database.js';
import { arrayOf, boolean, nullable, number, object, oneOf, optional, readVersioned, string, type Shape } from './json-shape.js';
import type { InteractionRow } from './schema.js';

/** What an interaction keeps of the authorization request it serves. */
export interface StoredInteraction {
  request: AuthorizationRequest;
  /** Epoch milliseconds; a session signed in before this cannot serve the request. */
  minAuthTime: number | null;
  forceConsent: boolean;
}

/** The current shape, written with `v: 1`; rows written before versions were kept have the same fields and no `v`. */
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
  }),
  minAuthTime: nullable(number),
  forceConsent: boolean,
});

export interface NewInteraction {
  id: string;
  bindingHash: string;
  clientId: string;
  stored: StoredInteraction;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertInteraction(db: Db, i: NewInteraction): Promise<void> {
  await db
    .insertInto('interactions')
    .values({
      id: i.id,
      binding_hash: i.bindingHash,
      client_id: i.clientId,
      request: JSON.stringify({ v: 1, ...i.stored }),
      created_at: i.createdAt,
      expires_at: i.expiresAt,
    })
    .execute();
}

export type FoundInteraction = Omit<InteractionRow, 'request'> & {
  /** Its client is limited to groups now (src/domain/groups/allowed-groups.ts): read with the row, not after it. */
  client_group_restricted: boolean;
  /** Its client requires a second factor now (`require_mfa` metadata, src/domain/accounts/second-factor-policy.ts). */
  client_require_mfa: boolean;
} & ({ readable: true; stored: StoredInteraction } | { readable: false; reason: string });

/** The row, with its stored request checked; `readable: false` (and why, never a value) when it does not fit. */
export async function findInteraction(db: Db, id: string): Promise<FoundInteraction | undefined> {
  const row = await db
    .selectFrom('interactions as i')
    .leftJoin('clients as c', 'c.client_id', 'i.client_id')
    .selectAll('i')
    .select(sql<boolean>`coalesce(c.group_restricted, false)`.as('client_group_restricted'))
    .select(sql<boolean>`coalesce(c.metadata->'require_mfa' = 'true'::jsonb, false)`.as('client_require_mfa'))
    .where('i.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { request, ...rest } = row;
  const read = readVersioned(request, { 1: INTERACTION_V1 });
  return read.ok ? { ...rest, readable: true, stored: read.value } : { ...rest, readable: false, reason: read.reason };
}

/** Marks the interaction done; false when another request completed it first. */
export async function completeInteraction(db: Db, id: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('interactions')
    .set({ completed_at: now })
    .where('id', '=', id)
    .where('completed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
