// The typed shape of every table, one interface per table, as Kysely sees them.
import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

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

/** Failed sign-in counters per account or client address (src/domain/sign-in-throttle.ts). */
export interface SignInThrottleTable {
  key: string;
  failures: number;
  locked_until: Timestamp;
  expires_at: Timestamp;
}

export interface Database {
  clients: ClientsTable;
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
}

export type ClientRow = Selectable<ClientsTable>;
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
