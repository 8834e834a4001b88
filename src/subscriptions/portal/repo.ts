import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db';
import type { SubscriptionRow } from '../model';
import type { SubscriptionFilter } from '../repo';
import type { PortalCardUpdatesTable, PortalSessionsTable } from '../cancel/tables';

/**
 * The buyer portal's queries: the subscription a portal link by e-mail opens, the portal sessions (migration 009)
 * and the card registrations started from the portal (migration 010).
 */

/** The buyer's newest active or past-due subscription in the key's range (the portal link by email). */
export function latestLiveSubscriptionOfBuyer(db: Db, f: SubscriptionFilter, email: string): Promise<SubscriptionRow | undefined> {
  let q = db
    .selectFrom('subscriptions')
    .selectAll()
    .where('store_id', '=', f.storeId)
    .where('mode', '=', f.mode)
    .where('status', 'in', ['active', 'past_due'])
    .where((eb) => eb(eb.fn('lower', ['buyer_email']), '=', email.toLowerCase()));
  if (f.productIds) q = q.where('product_id', 'in', f.productIds.length ? f.productIds : ['']);
  return q.orderBy('started_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
}

export function insertPortalSession(db: Db, row: Insertable<PortalSessionsTable>): Promise<Selectable<PortalSessionsTable>> {
  return db.insertInto('portal_sessions').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findPortalSessionByTokenHash(db: Db, tokenHash: string): Promise<Selectable<PortalSessionsTable> | undefined> {
  return db.selectFrom('portal_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

// ---------- card registrations (migration 010) ----------

export async function insertCardUpdate(db: Db, row: Insertable<PortalCardUpdatesTable>): Promise<void> {
  await db.insertInto('portal_card_updates').values(row).execute();
}

/** The open, unexpired card registration of this portal session with this state hash (read only). */
export function findOpenCardUpdate(db: Db, portalSessionId: string, stateHash: string, now: Date) {
  return db
    .selectFrom('portal_card_updates')
    .selectAll()
    .where('state_hash', '=', stateHash)
    .where('portal_session_id', '=', portalSessionId)
    .where('status', '=', 'open')
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Takes (uses up) an open card registration: a conditional update, so of two redirects carrying the same state only
 * one gets the row back. Returns the subscription it was opened for, or undefined (unknown, foreign, used, expired).
 */
export function takeCardUpdate(db: Db, portalSessionId: string, stateHash: string, status: 'used' | 'failed', now: Date) {
  return db
    .updateTable('portal_card_updates')
    .set({ status, used_at: now })
    .where('state_hash', '=', stateHash)
    .where('portal_session_id', '=', portalSessionId)
    .where('status', '=', 'open')
    .where('expires_at', '>', now)
    .returning(['id', 'subscription_id'])
    .executeTakeFirst();
}
