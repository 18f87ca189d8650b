// Repository for users (the people who sign in).
import { sql } from 'kysely';
import type { Db } from './database.js';
import type { NewUserRow, UserRow, UserUpdate } from './schema.js';

/** The user whose username, or else whose email, is `login` (both case-insensitive). */
export function findUserByLogin(db: Db, login: string): Promise<UserRow | undefined> {
  const needle = login.toLowerCase();
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb(sql`lower(username)`, '=', needle), eb(sql`lower(email)`, '=', needle)]))
    .orderBy(sql`lower(username) = ${needle}`, 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function findUserByUsername(db: Db, username: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where(sql`lower(username)`, '=', username.toLowerCase()).executeTakeFirst();
}

export function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(db: Db, row: NewUserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function updateUser(db: Db, id: string, changes: UserUpdate): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}
