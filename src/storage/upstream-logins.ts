// Repository for sign-ins sent to an upstream provider and links waiting for their proof (issue 19): each found by
// the digest of its secret, used once by one conditional UPDATE ... RETURNING, gone when it expires (purge.ts).
import type { Db } from './database.js';
import { writeSealedSecret, type SealedSecret } from './sealed-secret.js';

export interface NewUpstreamLogin {
  stateHash: string;
  browserHash: string;
  connectionId: string;
  /** Exactly one of the two (the table's CHECK): the interaction a sign-in resumes, or the user a link is for. */
  interactionId: string | null;
  linkUserId: string | null;
  nonce: string;
  verifierSealed: SealedSecret;
  expiresAt: Date;
}

export async function insertUpstreamLogin(db: Db, l: NewUpstreamLogin): Promise<void> {
  await db
    .insertInto('upstream_logins')
    .values({
      state_hash: l.stateHash,
      browser_hash: l.browserHash,
      connection_id: l.connectionId,
      interaction_id: l.interactionId,
      link_user_id: l.linkUserId,
      nonce: l.nonce,
      verifier_sealed: writeSealedSecret(l.verifierSealed),
      expires_at: l.expiresAt,
    })
    .execute();
}

export interface ConsumedUpstreamLogin {
  browserHash: string;
  interactionId: string | null;
  linkUserId: string | null;
  nonce: string;
  verifierSealed: unknown;
}

/** Uses the live login of this state at this connection: its row once, undefined when unknown, used or expired. */
export async function consumeUpstreamLogin(
  db: Db,
  stateHash: string,
  connectionId: string,
  now: Date,
): Promise<ConsumedUpstreamLogin | undefined> {
  const row = await db
    .updateTable('upstream_logins')
    .set({ consumed_at: now })
    .where('state_hash', '=', stateHash)
    .where('connection_id', '=', connectionId)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['browser_hash', 'interaction_id', 'link_user_id', 'nonce', 'verifier_sealed'])
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    browserHash: row.browser_hash,
    interactionId: row.interaction_id,
    linkUserId: row.link_user_id,
    nonce: row.nonce,
    verifierSealed: row.verifier_sealed,
  };
}

export interface NewLinkProof {
  idHash: string;
  browserHash: string;
  connectionId: string;
  subject: string;
  userId: string;
  interactionId: string;
  expiresAt: Date;
  /** The callback's upstream tokens, sealed for the link, when its connection keeps them. */
  tokensSealed?: SealedSecret | undefined;
}

export async function insertLinkProof(db: Db, p: NewLinkProof): Promise<void> {
  await db
    .insertInto('connection_link_proofs')
    .values({
      id_hash: p.idHash,
      browser_hash: p.browserHash,
      connection_id: p.connectionId,
      subject: p.subject,
      user_id: p.userId,
      interaction_id: p.interactionId,
      expires_at: p.expiresAt,
      tokens_sealed: p.tokensSealed === undefined ? null : writeSealedSecret(p.tokensSealed),
    })
    .execute();
}

export interface LiveLinkProof {
  browserHash: string;
  connectionId: string;
  subject: string;
  userId: string;
  interactionId: string;
  tokensSealed: Record<string, unknown> | null;
}

/** The live proof (not used, not expired), for the page that asks for it. */
export async function findLiveLinkProof(db: Db, idHash: string, now: Date): Promise<LiveLinkProof | undefined> {
  const row = await db
    .selectFrom('connection_link_proofs')
    .select(['browser_hash', 'connection_id', 'subject', 'user_id', 'interaction_id', 'tokens_sealed'])
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    browserHash: row.browser_hash,
    connectionId: row.connection_id,
    subject: row.subject,
    userId: row.user_id,
    interactionId: row.interaction_id,
    tokensSealed: row.tokens_sealed,
  };
}

/** Uses the proof once; false when another request used it first. */
export async function consumeLinkProof(db: Db, idHash: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('connection_link_proofs')
    .set({ consumed_at: now })
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id_hash')
    .executeTakeFirst();
  return row !== undefined;
}
