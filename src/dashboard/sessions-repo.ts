import type { Insertable } from 'kysely';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { DashboardSessionsTable } from './tables';

/** dashboard_sessions queries. Every function takes the executor. */

export async function insertSession(db: Db, row: Insertable<DashboardSessionsTable>): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

/** The session with its member and store, by the token's hash. */
export async function findSessionByHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('store_members as m', 'm.id', 's.member_id')
    .innerJoin('stores as st', 'st.id', 's.store_id')
    .select(['s.id as session_id', 's.mode', 's.expires_at', 'm.id as member_id', 'm.store_id', 'm.email', 'm.name', 'm.role', 'm.disabled_at', 'st.name as store_name'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id', '=', sessionId).execute();
}

export async function updateSessionMode(db: Db, sessionId: string, mode: Mode): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ mode }).where('id', '=', sessionId).execute();
}

export async function deleteExpiredSessions(db: Db, now: Date): Promise<number> {
  const r = await db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}
