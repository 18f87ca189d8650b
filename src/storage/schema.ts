// The typed shape of every table, one interface per table, as Kysely sees them.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
type Json<T> = ColumnType<T, string, string>;

export interface ClientsTable {
  client_id: string;
  client_secret_hash: string | null;
  client_name: string | null;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  metadata: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Raised by a trigger on every update: what a cached copy of the row is checked against. */
  revision: ColumnType<number, never, never>;
  /** RFC 7592: SHA-256 of the registration access token of a self-registered client; null for seeded clients. */
  registration_access_token_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** RFC 7591 3.2.1 client_secret_expires_at; null: the secret does not expire. */
  client_secret_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The client registered itself (RFC 7591); false for clients an operator configured. Kept when the token is revoked. */
  self_registered: ColumnType<boolean, boolean | undefined, boolean>;
  /** A client_secret_jwt client's secret, sealed (src/domain/keys/sealed-secrets.ts): its HMAC key. Null otherwise. */
  client_secret_sealed: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
}

/** RFC 7523 3: the jti of each client assertion accepted, until the assertion expires. */
export interface ClientAssertionJtisTable {
  client_id: string;
  jti_hash: string;
  expires_at: Timestamp;
}

export interface UsersTable {
  id: string;
  username: string;
  password_hash: string;
  email: string | null;
  email_verified: boolean;
  claims: Json<Record<string, unknown>>;
  disabled_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The language the user last used the pages in (a src/i18n locale); null until they do. */
  locale: string | null;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_jwk: Json<Record<string, unknown>>;
  public_jwk: Json<Record<string, unknown>>;
  created_at: Timestamp;
  /** When the key starts signing; it is published from created_at. */
  activates_at: Timestamp;
}

export interface KeyEncryptionTable {
  id: ColumnType<boolean, boolean | undefined, never>;
  kdf: string;
  salt: string;
  created_at: Timestamp;
}

export interface SessionsTable {
  id_hash: string;
  /** The public session id: the `sid` claim of ID tokens and logout tokens (random by default). */
  sid: ColumnType<string, string | undefined, never>;
  user_id: string;
  auth_time: Timestamp;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  /** The device the session was signed in from (null for sessions older than device intelligence). */
  device_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** How the user signed in (OIDC Core 2 `amr`), e.g. ['pwd'] or ['pwd', 'otp']. */
  amr: ColumnType<string[], string[] | undefined, string[]>;
  /** Its authentication context class (OIDC Core 2 `acr`), when one is known: an upstream's, passed on. */
  acr: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ConsentsTable {
  user_id: string;
  client_id: string;
  scopes: string[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface InteractionsTable {
  id: string;
  binding_hash: string;
  client_id: string;
  request: Json<Record<string, unknown>>;
  created_at: Timestamp;
  expires_at: Timestamp;
  completed_at: Timestamp | null;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  redirect_uri_in_request: boolean;
  scope: string;
  nonce: string | null;
  code_challenge: string | null;
  auth_time: Timestamp;
  issued_at: Timestamp;
  expires_at: Timestamp;
  consumed_at: Timestamp | null;
  /** The session the code was issued in. */
  sid: ColumnType<string | null, string | null | undefined, string | null>;
  /** The session's amr and acr, for the ID token. */
  amr: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  acr: ColumnType<string | null, string | null | undefined, string | null>;
  /** RFC 8707 2.1: the resources the authorization request named. */
  resources: ColumnType<string[], string[] | undefined, string[]>;
  /** The claims request parameter (OIDC Core 5.5), reduced (src/domain/tokens/claims-request.ts); null: none. */
  claims: ColumnType<string | null, string | null | undefined, string | null>;
  /** RFC 9449 10: the thumbprint of the DPoP key the code is bound to (dpop_jkt); null: none. */
  dpop_jkt: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AccessTokensTable {
  token_hash: string;
  code_hash: string | null;
  client_id: string;
  /** Null for a client_credentials token (RFC 6749 4.4): it acts for the client, not for a user. */
  user_id: string | null;
  scope: string;
  issued_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  /** The refresh token family issued with it, if any: revoking the family revokes this token. */
  refresh_family_id: string | null;
  /** The resource server it is for (RFC 8707); null: this provider's userinfo. */
  audience: ColumnType<string | null, string | null | undefined, string | null>;
  /** The claims request of the authorization the token came from (OIDC Core 5.5), for userinfo; null: none. */
  claims: ColumnType<string | null, string | null | undefined, string | null>;
  /** RFC 9449 6: the thumbprint of the DPoP key it is bound to; null: a bearer token. */
  jkt: ColumnType<string | null, string | null | undefined, string | null>;
}

/** RFC 9449 11.1: the jti of each DPoP proof accepted, until its iat window has passed. */
export interface DpopProofJtisTable {
  jti_hash: string;
  expires_at: Timestamp;
}

/** An API that access tokens are issued for (RFC 8707, RFC 9068). */
export interface ResourceServersTable {
  identifier: string;
  name: string | null;
  scopes: string[];
  scope_descriptions: Json<Record<string, string>>;
  token_format: 'opaque' | 'jwt';
  access_token_ttl_seconds: number;
  signing_alg: string;
  /** Clients that may introspect the tokens issued for it (RFC 7662 2.1). */
  introspecting_clients: string[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RefreshTokensTable {
  token_hash: string;
  /** Every rotation of one grant shares the family id. */
  family_id: string;
  client_id: string;
  user_id: string;
  scope: string;
  auth_time: Timestamp;
  issued_at: Timestamp;
  expires_at: Timestamp;
  rotated_at: Timestamp | null;
  revoked_at: Timestamp | null;
  /** The session of the sign-in that began the family. */
  sid: ColumnType<string | null, string | null | undefined, string | null>;
  /** The amr and acr of that sign-in, kept for the ID tokens of every rotation. */
  amr: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  acr: ColumnType<string | null, string | null | undefined, string | null>;
  /** RFC 8707: the resources of the grant, which a refresh may narrow to. */
  resources: ColumnType<string[], string[] | undefined, string[]>;
  /** The claims request of the authorization (OIDC Core 5.5), kept for every rotation; null: none. */
  claims: ColumnType<string | null, string | null | undefined, string | null>;
  /** RFC 9449 5: a public client's refresh token is bound to the DPoP key of the request that got it. */
  jkt: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A client a session has signed in to. */
export interface SessionClientsTable {
  sid: string;
  client_id: string;
  created_at: Timestamp;
}

/** A logout token still to be delivered to a client's backchannel_logout_uri. */
export interface BackchannelLogoutsTable {
  id: ColumnType<string, string | undefined, never>;
  client_id: string;
  sub: string;
  sid: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  created_at: Timestamp;
}

/** Failed sign-in counters per account or client address (src/domain/accounts/sign-in-throttle.ts). */
export interface SignInThrottleTable {
  key: string;
  failures: number;
  locked_until: Timestamp;
  expires_at: Timestamp;
}

/** A device a user signs in from: the cookie as a digest, fingerprint and network as HMACs (src/domain/risk/). */
export interface DevicesTable {
  id: ColumnType<string, string | undefined, never>;
  user_id: string;
  cookie_hash: string;
  fingerprint: string;
  network_key: string;
  label: string;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  sign_in_count: ColumnType<number, number | undefined, number>;
  trusted: ColumnType<boolean, boolean | undefined, boolean>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A stored security event (sign-in allowed, challenged, blocked, new device, device revoked, ...). */
export interface SecurityEventsTable {
  /** bigint: pg returns it as a string. */
  id: ColumnType<string, never, never>;
  type: string;
  user_id: string | null;
  device_id: string | null;
  client_id: string | null;
  created_at: Timestamp;
  details: Json<Record<string, unknown>>;
}

/** A message to a user (one-time code, new-device notice) waiting for the notifier. */
export interface OutboxTable {
  id: ColumnType<string, never, never>;
  /** The user the message is for; null for a message to an address alone (`address`). */
  user_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Where to send it instead of the user's email (a sign-up's address, an invitation's). */
  address: ColumnType<string | null, string | null | undefined, string | null>;
  kind: string;
  payload: Json<Record<string, unknown>>;
  created_at: Timestamp;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Secrets generated once and shared by every instance (e.g. the device-fingerprint key). */
export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: Timestamp;
}

/** One password attempt, by pseudonymous keys (src/domain/risk/). */
export interface SignInAttemptsTable {
  id: ColumnType<string, never, never>;
  at: Timestamp;
  login_key: string;
  device_key: string;
  fingerprint_key: string;
  network_key: string;
  succeeded: ColumnType<boolean, boolean | undefined, boolean>;
  /** A failure of a login that signed in afterwards (a typo): still an attempt, no longer a failure. */
  excused: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface UserNetworksTable {
  user_id: string;
  network_key: string;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
}

export interface RiskRulesTable {
  id: ColumnType<string, string | undefined, never>;
  kind: 'device' | 'network' | 'username';
  value: string;
  effect: 'allow' | 'block';
  note: string | null;
  created_at: Timestamp;
}

/** A sign-in waiting for its second factor (src/domain/accounts/second-factor.ts). */
export interface SecondFactorChallengesTable {
  id_hash: string;
  user_id: string;
  /** `otp`: a code we sent through the outbox; `totp`: a code from the user's authenticator app. */
  method: 'otp' | 'totp';
  /** The sent code's keyed digest; null for `totp`. */
  code_hash: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  context: Json<Record<string, unknown>>;
  created_at: Timestamp;
  expires_at: Timestamp;
  consumed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A device authorization request of the device authorization grant (RFC 8628), by the digests of its codes. */
export interface DeviceAuthorizationsTable {
  device_code_hash: string;
  user_code_hash: string;
  client_id: string;
  scope: string;
  /** A short display name of the requesting device ("Firefox on Linux"), never its user agent. */
  device_label: string;
  requested_at: Timestamp;
  expires_at: Timestamp;
  interval_seconds: number;
  last_polled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_poll_too_fast: ColumnType<boolean, boolean | undefined, boolean>;
  status: ColumnType<'pending' | 'approved' | 'denied', 'pending' | undefined, 'approved' | 'denied'>;
  binding_hash: ColumnType<string | null, string | null | undefined, string | null>;
  user_id: ColumnType<string | null, string | null | undefined, string | null>;
  sid: ColumnType<string | null, string | null | undefined, string | null>;
  auth_time: ColumnType<Date | null, Date | null | undefined, Date | null>;
  amr: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  acr: ColumnType<string | null, string | null | undefined, string | null>;
  decided_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  consumed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  issued_access_token_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** RFC 8707 2.1: the resources the device authorization request named. */
  resources: ColumnType<string[], string[] | undefined, string[]>;
}

/** A user's authenticator app (src/domain/accounts/authenticator.ts); the secret only as an encrypted envelope. */
export interface TotpAuthenticatorsTable {
  user_id: string;
  secret: Json<Record<string, unknown>>;
  created_at: Timestamp;
  confirmed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** bigint: pg returns it as a string. */
  last_used_step: ColumnType<string | null, string | null | undefined, string | null>;
  failed_attempts: ColumnType<number, number | undefined, number>;
  locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Password reset links, by the digest of their token (src/storage/password-resets.ts). */
export interface PasswordResetsTable {
  id: ColumnType<string, never, never>;
  token_digest: string;
  user_id: string;
  password_fingerprint: Buffer;
  interaction_id: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Sign-ups waiting for their email to be verified (src/storage/signups.ts). */
export interface SignupsTable {
  id: string;
  token_digest: string;
  code_digest: string;
  code_failures: ColumnType<number, number | undefined, number>;
  email: string;
  username: string;
  password_hash: string;
  claims: Json<Record<string, unknown>>;
  interaction_id: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface SignupInvitationsTable {
  token_digest: string;
  email: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface EmailChangesTable {
  id: ColumnType<string, never, never>;
  token_digest: string;
  user_id: string;
  new_email: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Ended by a recovery or the notice's cancel link (migration 20261203010000). */
  ended_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  cancel_digest: string | null;
}

/** A user's passkey (src/domain/accounts/passkeys.ts): a WebAuthn credential's public key and what its assertions said last. */
export interface PasskeysTable {
  id: ColumnType<string, string | undefined, never>;
  user_id: string;
  /** base64url */
  credential_id: string;
  /** The COSE_Key of the credential public key. */
  public_key: ColumnType<Uint8Array, Uint8Array, never>;
  /** bigint: pg returns it as a string. */
  sign_count: ColumnType<string, string | number, string | number>;
  transports: string[];
  name: string;
  aaguid: string;
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  created_at: Timestamp;
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A challenge of a passkey ceremony, by its digest and the digest of the browser binding it was issued to. */
export interface PasskeyChallengesTable {
  binding_hash: string;
  purpose: 'registration' | 'sign-in' | 'second-factor' | 'link-proof';
  challenge_hash: string;
  user_id: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  consumed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** RFC 9126: a pushed authorization request, under the digest of its request_uri (src/storage/pushed-requests.ts). */
export interface PushedAuthorizationRequestsTable {
  request_uri_hash: string;
  client_id: string;
  params: Json<Record<string, string | string[]>>;
  expires_at: Timestamp;
  consumed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface Database {
  clients: ClientsTable;
  client_assertion_jtis: ClientAssertionJtisTable;
  resource_servers: ResourceServersTable;
  dpop_proof_jtis: DpopProofJtisTable;
  users: UsersTable;
  signing_keys: SigningKeysTable;
  key_encryption: KeyEncryptionTable;
  sessions: SessionsTable;
  consents: ConsentsTable;
  interactions: InteractionsTable;
  authorization_codes: AuthorizationCodesTable;
  access_tokens: AccessTokensTable;
  refresh_tokens: RefreshTokensTable;
  sign_in_throttle: SignInThrottleTable;
  session_clients: SessionClientsTable;
  backchannel_logouts: BackchannelLogoutsTable;
  devices: DevicesTable;
  security_events: SecurityEventsTable;
  outbox: OutboxTable;
  server_secrets: ServerSecretsTable;
  sign_in_attempts: SignInAttemptsTable;
  user_networks: UserNetworksTable;
  risk_rules: RiskRulesTable;
  second_factor_challenges: SecondFactorChallengesTable;
  device_authorizations: DeviceAuthorizationsTable;
  totp_authenticators: TotpAuthenticatorsTable;
  password_resets: PasswordResetsTable;
  signups: SignupsTable;
  signup_invitations: SignupInvitationsTable;
  email_changes: EmailChangesTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
  pushed_authorization_requests: PushedAuthorizationRequestsTable;
}

export type ClientRow = Selectable<ClientsTable>;
export type ResourceServerRow = Selectable<ResourceServersTable>;
export type NewClientRow = Insertable<ClientsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SigningKeyRow = Selectable<SigningKeysTable>;
export type KeyEncryptionRow = Selectable<KeyEncryptionTable>;
export type SessionRow = Selectable<SessionsTable>;
export type InteractionRow = Selectable<InteractionsTable>;
export type AuthorizationCodeRow = Selectable<AuthorizationCodesTable>;
export type AccessTokenRow = Selectable<AccessTokensTable>;
export type RefreshTokenRow = Selectable<RefreshTokensTable>;
export type BackchannelLogoutRow = Selectable<BackchannelLogoutsTable>;
export type DeviceRow = Selectable<DevicesTable>;
export type SecurityEventRow = Selectable<SecurityEventsTable>;
export type OutboxRow = Selectable<OutboxTable>;
export type RiskRuleRow = Selectable<RiskRulesTable>;
export type DeviceAuthorizationRow = Selectable<DeviceAuthorizationsTable>;
export type TotpAuthenticatorRow = Selectable<TotpAuthenticatorsTable>;
export type PasskeyRow = Selectable<PasskeysTable>;

/** An LDAP or Active Directory server the password form checks passwords against (src/domain/directories/). */
export interface DirectoriesTable {
  id: string;
  display_name: string;
  /** The order in which sign-ins search the directories, lowest first. */
  position: number;
  enabled: boolean;
  /** The validated entry without its bind password (src/domain/directories/directory-settings.ts); validated again when read. */
  settings: Json<Record<string, unknown>>;
  /** The service account's password, sealed (src/domain/keys/sealed-secrets.ts, purpose 'directory-bind'). */
  bind_password_sealed: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A local user provisioned from a directory entry, by the entry's stable identifier (entryUUID, objectGUID). */
export interface DirectoryLinksTable {
  directory_id: string;
  external_id: string;
  user_id: string;
  /** The entry's DN when the user last signed in: refreshed each time, never what the link is keyed on. */
  dn: string;
  last_synced_at: Timestamp;
}

// The directory tables, merged into the Database interface above.
export interface Database {
  directories: DirectoriesTable;
  directory_links: DirectoryLinksTable;
}

export type DirectoryRow = Selectable<DirectoriesTable>;
export type DirectoryLinkRow = Selectable<DirectoryLinksTable>;

// --- Upstream connections (issue 19): declared here at the end; `Database` below merges into the one above. ---

/** An upstream identity provider (src/storage/connections.ts); its client secret sealed. */
export interface ConnectionsTable {
  id: string;
  display_name: string;
  icon: string | null;
  kind: string;
  preset: string | null;
  issuer: string | null;
  authorization_endpoint: string | null;
  token_endpoint: string | null;
  userinfo_endpoint: string | null;
  client_id: string;
  client_secret_sealed: Json<Record<string, unknown>> | null;
  scopes: string[];
  claim_mapping: Json<Record<string, unknown>>;
  provisioning: string;
  email_domains: ColumnType<string[], string[] | undefined, string[]>;
  trust_amr: ColumnType<boolean, boolean | undefined, boolean>;
  /** Keep each sign-in's upstream tokens on the link, sealed. */
  store_tokens: ColumnType<boolean, boolean | undefined, boolean>;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** Kind saml only (issue 39): the IdP's metadata and the attribute mapping, versioned (src/domain/saml/sp/saml-settings.ts). */
  saml: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An upstream account (connection, sub) linked to a local user. */
export interface ConnectionLinksTable {
  connection_id: string;
  subject: string;
  user_id: string;
  created_at: Timestamp;
  last_used_at: Timestamp;
  provisioned: ColumnType<boolean, boolean | undefined, boolean>;
  /** The last sign-in's upstream tokens, sealed (purpose upstream-tokens); null unless the connection stores them. */
  tokens_sealed: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  tokens_stored_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A sign-in sent upstream, until its callback (src/storage/upstream-logins.ts). */
export interface UpstreamLoginsTable {
  state_hash: string;
  browser_hash: string;
  connection_id: string;
  /** The interaction a sign-in resumes; null for a link started from the account page. */
  interaction_id: string | null;
  /** The signed-in user a link from the account page is for; null for a sign-in. */
  link_user_id: ColumnType<string | null, string | null | undefined, string | null>;
  nonce: string;
  verifier_sealed: Json<Record<string, unknown>>;
  expires_at: Timestamp;
  consumed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A link waiting for the person to prove they own the local account. */
export interface ConnectionLinkProofsTable {
  id_hash: string;
  browser_hash: string;
  connection_id: string;
  subject: string;
  user_id: string;
  interaction_id: string;
  expires_at: Timestamp;
  consumed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The callback's upstream tokens, sealed, carried to the link once it is made. */
  tokens_sealed: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
}

export interface Database {
  connections: ConnectionsTable;
  connection_links: ConnectionLinksTable;
  upstream_logins: UpstreamLoginsTable;
  connection_link_proofs: ConnectionLinkProofsTable;
}

export type ConnectionRow = Selectable<ConnectionsTable>;
export type ConnectionLinkRow = Selectable<ConnectionLinksTable>;

/** A webhook subscription (src/storage/webhooks.ts): where events go, which ones, and whether it is paused. */
export interface WebhookSubscriptionsTable {
  id: string;
  url: string;
  event_types: string[];
  /** The HMAC key of the signatures, sealed (src/domain/keys/sealed-secrets.ts, purpose webhook-secret). */
  secret_sealed: Json<Record<string, unknown>>;
  description: string | null;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  paused_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  pause_reason: ColumnType<string | null, string | null | undefined, string | null>;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  failing_since: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_success_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One event owed to one subscription; `id` is stable across retries, `seq` orders a subscription's queue. */
export interface WebhookDeliveriesTable {
  id: ColumnType<string, string | undefined, never>;
  seq: ColumnType<string, never, never>;
  /** Taken as the inserting transaction commits: a subscription's deliveries go in this order. */
  position: ColumnType<string, never, never>;
  subscription_id: string;
  event_id: string;
  event_type: string;
  payload: Json<Record<string, unknown>>;
  status: ColumnType<'pending' | 'delivered', 'pending' | 'delivered' | undefined, 'pending' | 'delivered'>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  last_status: ColumnType<number | null, number | null | undefined, number | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  delivered_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface Database {
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type WebhookSubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

// Groups and console roles (issue 20, migrations/20261128000000_groups.sql).

/** A group of users, named uniquely in any case. */
export interface GroupsTable {
  id: string;
  name: string;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GroupMembersTable {
  group_id: string;
  user_id: string;
  added_at: Timestamp;
}

/** A group whose members a group-restricted client admits. */
export interface ClientAllowedGroupsTable {
  client_id: string;
  group_id: string;
}

/** The console roles a user may hold. */
export type AdminRole = 'admin' | 'auditor';

export interface ClientsTable {
  /** The client admits only members of its client_allowed_groups (none left: nobody). */
  group_restricted: ColumnType<boolean, boolean | undefined, boolean>;
}

/** A user's console role: admin (everything), auditor (read only); no row: none. */
export interface UserRolesTable {
  user_id: string;
  role: AdminRole;
  granted_at: Timestamp;
}

export interface Database {
  groups: GroupsTable;
  group_members: GroupMembersTable;
  client_allowed_groups: ClientAllowedGroupsTable;
  user_roles: UserRolesTable;
}

export type GroupRow = Selectable<GroupsTable>;

/** One admin change, by whom and from where (src/storage/audit-records.ts). */
export interface AdminAuditRecordsTable {
  id: Generated<string>;
  occurred_at: Timestamp;
  actor_kind: string;
  actor_id: string;
  origin: string | null;
  event: string;
  target_type: string;
  target_id: string;
  changes: Json<Record<string, unknown>>;
}

/** A create's Idempotency-Key and the answer it replays (src/storage/idempotency-keys.ts). */
export interface AdminIdempotencyKeysTable {
  principal: string;
  key: string;
  request_hash: string;
  status: ColumnType<number | null, number | null | undefined, number | null>;
  response: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface Database {
  admin_audit_records: AdminAuditRecordsTable;
  admin_idempotency_keys: AdminIdempotencyKeysTable;
}

export type AdminAuditRecordRow = Selectable<AdminAuditRecordsTable>;

/** What a SCIM client knows of a user beyond the users table (RFC 7643 3.1 externalId; src/storage/scim-users.ts). */
export interface ScimUsersTable {
  user_id: string;
  external_id: string | null;
  updated_at: Timestamp;
}

export interface Database {
  scim_users: ScimUsersTable;
}

/** A web console session, by the digest of its cookie (src/storage/console-sessions.ts). */
export interface ConsoleSessionsTable {
  id_hash: string;
  /** Its public id in the session lists (migrations/20261203020000_console_session_sid.sql), made by the database. */
  sid: Generated<string>;
  user_id: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface Database {
  console_sessions: ConsoleSessionsTable;
}

/** A long-lived SCIM token, by name, found by the digest of its value (src/storage/scim-tokens.ts). */
export interface ScimTokensTable {
  name: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

export interface Database {
  scim_tokens: ScimTokensTable;
}

export type ScimTokenRow = Selectable<ScimTokensTable>;

/** SCIM's externalId of a group (RFC 7643 3.1), beside the groups table (migrations/20261129030200_scim_groups.sql). */
export interface ScimGroupsTable {
  group_id: string;
  external_id: string | null;
}

export interface Database {
  scim_groups: ScimGroupsTable;
}

/** Where the purge's walk of each table stands, shared by every instance (src/storage/purge.ts). */
export interface PurgeCursorsTable {
  table_name: string;
  position: Timestamp;
  walk_started_at: Timestamp;
}

export interface Database {
  purge_cursors: PurgeCursorsTable;
}

/** A SAML signing key pair of the provider as an identity provider (issue 39), rotated like signing_keys. */
export interface SamlKeysTable {
  /** The SHA-256 thumbprint of the certificate (hex). */
  id: string;
  /** The PKCS#8 PEM as a sealed secret (storage/sealed-secret.ts). */
  private_key: Json<unknown>;
  certificate_pem: string;
  created_at: Timestamp;
  /** When the key starts signing; it is published from created_at. */
  activates_at: Timestamp;
}

/** A SAML service provider the provider signs people in to, registered from its metadata. */
export interface SamlServiceProvidersTable {
  entity_id: string;
  metadata_xml: string;
  metadata_url: string | null;
  name_id_format: string;
  attributes: Json<unknown>;
  sign_assertion: boolean;
  sign_response: boolean;
  encrypt_assertion: boolean;
  idp_initiated: boolean;
  group_restricted: ColumnType<boolean, boolean | undefined, boolean>;
  encryption_algorithm: ColumnType<string, string | undefined, string>;
  metadata_refreshed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SamlSpAllowedGroupsTable {
  entity_id: string;
  group_id: string;
}

/** A SAML service provider a session has signed in to, with what a LogoutRequest to it names (issue 39). */
export interface SamlSessionParticipantsTable {
  sid: string;
  entity_id: string;
  name_id: string;
  name_id_format: string;
  session_index: string;
  created_at: Timestamp;
}

export interface Database {
  saml_keys: SamlKeysTable;
  saml_service_providers: SamlServiceProvidersTable;
  saml_sp_allowed_groups: SamlSpAllowedGroupsTable;
  saml_session_participants: SamlSessionParticipantsTable;
}

export type SamlKeyRow = Selectable<SamlKeysTable>;
export type SamlServiceProviderRow = Selectable<SamlServiceProvidersTable>;

/** An assertion ID a SAML connection's IdP sent (issue 39), kept until its NotOnOrAfter so that it is used once. */
export interface SamlAssertionsTable {
  connection_id: string;
  assertion_id: string;
  expires_at: Timestamp;
}

export interface Database {
  saml_assertions: SamlAssertionsTable;
}

// Organizations (issue 40, migrations/20261208100000_organizations.sql). Declared here at the end; the interfaces
// named again below merge into the ones above.

type NullableRef = ColumnType<string | null, string | null | undefined, string | null>;

/** A customer of a B2B product: slug, display name, branding and policies (src/domain/organizations/). */
export interface OrganizationsTable {
  id: string;
  slug: string;
  display_name: string;
  branding: Json<Record<string, unknown>>;
  policies: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A role an organization defines beside admin and member. */
export interface OrganizationRolesTable {
  organization_id: string;
  name: string;
  description: string | null;
  created_at: Timestamp;
}

/** How a membership came. */
export type MembershipSource = 'admin' | 'invitation' | 'domain' | 'scim' | 'connection';

/** A user's membership of an organization, with roles by name. */
export interface OrganizationMembersTable {
  organization_id: string;
  user_id: string;
  roles: ColumnType<string[], string[] | undefined, string[]>;
  source: MembershipSource;
  joined_at: Timestamp;
}

/** A domain an organization claims; verified once its TXT record held the token. */
export interface OrganizationDomainsTable {
  organization_id: string;
  domain: string;
  verification_token: string;
  verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  checked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  check_failures: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
}

/** An invitation by email; only the link token's hash is kept. */
export interface OrganizationInvitationsTable {
  id: string;
  organization_id: string;
  email: string;
  roles: ColumnType<string[], string[] | undefined, string[]>;
  token_hash: string;
  invited_by: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  accepted_by: NullableRef;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface Database {
  organizations: OrganizationsTable;
  organization_roles: OrganizationRolesTable;
  organization_members: OrganizationMembersTable;
  organization_domains: OrganizationDomainsTable;
  organization_invitations: OrganizationInvitationsTable;
}

export type OrganizationRow = Selectable<OrganizationsTable>;
export type OrganizationMemberRow = Selectable<OrganizationMembersTable>;
export type OrganizationDomainRow = Selectable<OrganizationDomainsTable>;
export type OrganizationInvitationRow = Selectable<OrganizationInvitationsTable>;
export type OrganizationRoleRow = Selectable<OrganizationRolesTable>;

/** Whether a client's sign-ins name an organization. */
export type OrganizationUsage = 'none' | 'allow' | 'require';

export interface ClientsTable {
  organization_usage: ColumnType<OrganizationUsage, OrganizationUsage | undefined, OrganizationUsage>;
  /** A management-API client limited to this organization (delegated administration); null: the whole provider. */
  admin_organization_id: NullableRef;
}
export interface ConnectionsTable {
  /** The organization the connection belongs to: offered only to sign-ins for it or its domains. */
  organization_id: NullableRef;
}
export interface InteractionsTable {
  organization_id: NullableRef;
}
export interface AuthorizationCodesTable {
  organization_id: NullableRef;
}
export interface RefreshTokensTable {
  organization_id: NullableRef;
}
export interface AccessTokensTable {
  organization_id: NullableRef;
}
export interface ScimTokensTable {
  /** A SCIM token limited to provisioning into this organization; null: the whole provider. */
  organization_id: NullableRef;
}
export interface AdminAuditRecordsTable {
  organization_id: NullableRef;
}
export interface SecurityEventsTable {
  organization_id: NullableRef;
}
export interface WebhookSubscriptionsTable {
  /** Only events of this organization; null: every event. */
  organization_id: NullableRef;
}
