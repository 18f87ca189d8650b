// Repository for the SAML service providers each session signed in to (issue 39): one row per (session, SP), the
// NameID and SessionIndex of the newest assertion it got, gone with the session (ON DELETE CASCADE).
import type { Db } from './database.js';

export interface SamlSessionParticipant {
  entityId: string;
  nameId: string;
  nameIdFormat: string;
  sessionIndex: string;
}

/** Records (or refreshes, a later sign-in at the same SP) that the session `sid` signed in to the SP. */
export async function recordSamlSessionParticipant(db: Db, sid: string, p: SamlSessionParticipant, now: Date): Promise<void> {
  const values = { name_id: p.nameId, name_id_format: p.nameIdFormat, session_index: p.sessionIndex, created_at: now };
  await db
    .insertInto('saml_session_participants')
    .values({ sid, entity_id: p.entityId, ...values })
    .onConflict((oc) => oc.columns(['sid', 'entity_id']).doUpdateSet(values))
    .execute();
}

/**
 * The sessions in which the SP was told this NameID, limited to those `sessionIndexes` names when it names any
 * (SAML Core §3.7.1: without a SessionIndex a LogoutRequest means every session of the principal at that SP).
 */
export async function samlSessionsNamed(db: Db, entityId: string, nameId: string, sessionIndexes: readonly string[]): Promise<string[]> {
  let query = db.selectFrom('saml_session_participants').select('sid').where('entity_id', '=', entityId).where('name_id', '=', nameId);
  if (sessionIndexes.length > 0) query = query.where('session_index', 'in', [...sessionIndexes]);
  return (await query.orderBy('created_at').execute()).map((r) => r.sid);
}

/** The SPs the session signed in to, oldest first. */
export async function listSamlSessionParticipants(db: Db, sid: string): Promise<SamlSessionParticipant[]> {
  const rows = await db
    .selectFrom('saml_session_participants')
    .select(['entity_id', 'name_id', 'name_id_format', 'session_index'])
    .where('sid', '=', sid)
    .orderBy('created_at')
    .orderBy('entity_id')
    .execute();
  return rows.map((r) => ({ entityId: r.entity_id, nameId: r.name_id, nameIdFormat: r.name_id_format, sessionIndex: r.session_index }));
}
