import type { Insertable } from 'kysely';
import type { Db } from '../../db';
import type { Mode } from '../../platform/tables';
import type { DashboardSessionsTable } from '../tables';

/** dashboard_sessions queries. Every function takes the executor. */

export async function insertSession(db: Db, row: Insertable<DashboardSessionsTable>): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

/**
 * The session with its member and store, by the token's hash; with the session's second-factor state, the member's
 * factors (a confirmed authenticator app, how many passkeys) and the store's policy, so every request can enforce it.
 */
export async function findSessionByHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('store_members as m', 'm.id', 's.member_id')
    .innerJoin('stores as st', 'st.id', 's.store_id')
    .leftJoin('store_security as sec', 'sec.store_id', 's.store_id')
    .select(['s.id as session_id', 's.mode', 's.expires_at', 's.last_seen_at', 's.second_factor_pending', 's.second_factor_at', 'm.id as member_id', 'm.store_id', 'm.email', 'm.name', 'm.role', 'm.disabled_at', 'st.name as store_name', 'sec.two_factor_policy'])
    .select((eb) => [
      eb.exists(eb.selectFrom('member_totp as t').select('t.member_id').whereRef('t.member_id', '=', 'm.id').where('t.confirmed_at', 'is not', null)).as('has_totp'),
      eb.selectFrom('member_passkeys as p').select((e) => e.fn.countAll<number>().as('n')).whereRef('p.member_id', '=', 'm.id').as('passkeys'),
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks the session seen now, at most once a minute (a write per request would cost every page). */
export async function touchSession(db: Db, sessionId: string, now: Date): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: now }).where('id', '=', sessionId).where('last_seen_at', '<', new Date(now.getTime() - 60_000)).execute();
}

/** The second factor was given: the session is complete, under a new token, and its step-up window opens now. */
export async function completeSecondFactor(db: Db, sessionId: string, set: { token_hash?: string; expires_at?: Date; now: Date }): Promise<boolean> {
  const r = await db
    .updateTable('dashboard_sessions')
    .set({ second_factor_pending: false, second_factor_at: set.now, ...(set.token_hash ? { token_hash: set.token_hash } : {}), ...(set.expires_at ? { expires_at: set.expires_at } : {}) })
    .where('id', '=', sessionId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function listSessionsOfMember(db: Db, memberId: string, now: Date) {
  return db
    .selectFrom('dashboard_sessions')
    .select(['id', 'created_at', 'last_seen_at', 'expires_at', 'ip', 'user_agent', 'mode', 'second_factor_pending'])
    .where('member_id', '=', memberId)
    .where('expires_at', '>', now)
    .orderBy('last_seen_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Ends one of a member's sessions; false when it is not theirs or already ended. */
export async function deleteSessionOfMember(db: Db, memberId: string, sessionId: string): Promise<boolean> {
  const r = await db.deleteFrom('dashboard_sessions').where('member_id', '=', memberId).where('id', '=', sessionId).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0) > 0;
}

/** Ends every session of a member but `keep` (null: all of them); returns how many ended. */
export async function deleteOtherSessions(db: Db, memberId: string, keep: string | null): Promise<number> {
  let q = db.deleteFrom('dashboard_sessions').where('member_id', '=', memberId);
  if (keep) q = q.where('id', '<>', keep);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
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
