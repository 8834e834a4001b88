import type { Insertable } from 'kysely';
import type { Db } from '../db';
import type { MemberRole, StoreMembersTable } from './tables';

/** store_members queries. Every function takes the executor. */

export async function insertMember(db: Db, row: Insertable<StoreMembersTable>): Promise<void> {
  await db.insertInto('store_members').values(row).execute();
}

export async function findMemberByEmail(db: Db, storeId: string, email: string) {
  return db.selectFrom('store_members').selectAll().where('store_id', '=', storeId).where('email', '=', email).executeTakeFirst();
}

/** Active members with this e-mail in any store, oldest first (the sign-in form needs no store id). */
export async function activeMembersByEmail(db: Db, email: string) {
  return db.selectFrom('store_members').selectAll().where('email', '=', email).where('disabled_at', 'is', null).orderBy('created_at').orderBy('id').limit(20).execute();
}

export async function findMember(db: Db, storeId: string, id: string) {
  return db.selectFrom('store_members').selectAll().where('store_id', '=', storeId).where('id', '=', id).executeTakeFirst();
}

export async function listMembers(db: Db, storeId: string) {
  return db.selectFrom('store_members').selectAll().where('store_id', '=', storeId).orderBy('created_at').orderBy('id').execute();
}

export async function countActiveOwners(db: Db, storeId: string): Promise<number> {
  const r = await db
    .selectFrom('store_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .where('role', '=', 'owner')
    .where('disabled_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function lockMembersOfStore(db: Db, storeId: string): Promise<void> {
  // Serializes role changes and disables of one store, so two owners cannot demote each other to none at once.
  await db.selectFrom('stores').select('id').where('id', '=', storeId).forUpdate().execute();
}

export async function updateMember(db: Db, id: string, set: Partial<{ role: MemberRole; password_hash: string; disabled_at: Date | null; name: string }>): Promise<void> {
  await db.updateTable('store_members').set(set).where('id', '=', id).execute();
}

export async function deleteSessionsOfMember(db: Db, memberId: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('member_id', '=', memberId).execute();
}

/** The store's name (mail to a member names the store); throws when there is no such store. */
export async function storeName(db: Db, storeId: string): Promise<{ name: string }> {
  return db.selectFrom('stores').select('name').where('id', '=', storeId).executeTakeFirstOrThrow();
}

export async function storeExists(db: Db, storeId: string): Promise<boolean> {
  return !!(await db.selectFrom('stores').select('id').where('id', '=', storeId).executeTakeFirst());
}

/** The e-mails of the store's members who can still sign in (test-mode mail copies go to these only). */
export async function activeMemberEmails(db: Db, storeId: string): Promise<string[]> {
  const rows = await db.selectFrom('store_members').select('email').where('store_id', '=', storeId).where('disabled_at', 'is', null).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => r.email);
}
