import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { BuyerSessionsTable, BuyerSignInLinksTable } from './tables';

// The buyer sign-in's queries (migration 077), and the reads of a buyer's orders, licences and refund requests.

export type BuyerSessionRow = Selectable<BuyerSessionsTable>;

export async function storeExists(db: Db, storeId: string): Promise<boolean> {
  return !!(await db.selectFrom('stores').select('id').where('id', '=', storeId).executeTakeFirst());
}

/** Whether the address bought anything (any order that reached payment) in the store and mode, case aside. */
export async function hasOrders(db: Db, storeId: string, mode: Mode, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where((eb) => eb(eb.fn('lower', ['buyer_email']), '=', email))
    .where('status', 'in', ['paid', 'refunded', 'awaiting_deposit'])
    .limit(1)
    .executeTakeFirst();
  return !!row;
}

export async function insertSignInLink(db: Db, row: Insertable<BuyerSignInLinksTable>): Promise<void> {
  await db.insertInto('buyer_sign_in_links').values(row).execute();
}

/**
 * Uses up a sign-in link: a conditional update, so of two clicks (or two processes) only one gets the row back.
 * Unknown, used, expired or another store's or mode's link: undefined.
 */
export function takeSignInLink(db: Db, o: { storeId: string; mode: Mode; tokenHash: string; now: Date }) {
  return db
    .updateTable('buyer_sign_in_links')
    .set({ used_at: o.now })
    .where('token_hash', '=', o.tokenHash)
    .where('store_id', '=', o.storeId)
    .where('mode', '=', o.mode)
    .where('used_at', 'is', null)
    .where('expires_at', '>', o.now)
    .returning(['id', 'email'])
    .executeTakeFirst();
}

export async function insertSession(db: Db, row: Insertable<BuyerSessionsTable>): Promise<void> {
  await db.insertInto('buyer_sessions').values(row).execute();
}

export function findOpenSession(db: Db, o: { storeId: string; mode: Mode; tokenHash: string; now: Date }): Promise<BuyerSessionRow | undefined> {
  return db
    .selectFrom('buyer_sessions')
    .selectAll()
    .where('token_hash', '=', o.tokenHash)
    .where('store_id', '=', o.storeId)
    .where('mode', '=', o.mode)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', o.now)
    .executeTakeFirst();
}

export async function endSession(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('buyer_sessions').set({ ended_at: now }).where('id', '=', id).where('ended_at', 'is', null).execute();
}

/** The buyer's orders that reached payment (or await a 가상계좌 deposit) in the session's store and mode: newest 50. */
export function buyerOrderIds(db: Db, s: Pick<BuyerSessionRow, 'store_id' | 'mode' | 'email'>): Promise<Array<{ id: string }>> {
  return db
    .selectFrom('orders')
    .select('id')
    .where('store_id', '=', s.store_id)
    .where('mode', '=', s.mode)
    .where((eb) => eb(eb.fn('lower', ['buyer_email']), '=', s.email))
    .where('status', 'in', ['paid', 'refunded', 'awaiting_deposit'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(50)
    .execute();
}

/** A licence of one of the buyer's orders (store, mode and address checked), with what the app API looks it up by. */
export function findBuyerLicense(db: Db, s: Pick<BuyerSessionRow, 'store_id' | 'mode' | 'email'>, licenseId: string) {
  return db
    .selectFrom('licenses')
    .innerJoin('orders', 'orders.id', 'licenses.order_id')
    .select(['licenses.id', 'licenses.key_hash', 'licenses.product_id'])
    .where('licenses.id', '=', licenseId)
    .where('licenses.store_id', '=', s.store_id)
    .where('licenses.mode', '=', s.mode)
    .where((eb) => eb(eb.fn('lower', ['orders.buyer_email']), '=', s.email))
    .executeTakeFirst();
}

/** The refund requests of the given orders, newest first (what the buyer filed on the receipts). */
export function refundRequestsOf(db: Db, orderIds: string[]) {
  if (orderIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('refund_requests')
    .select(['id', 'order_id', 'status', 'amount', 'requested_at'])
    .where('order_id', 'in', orderIds)
    .orderBy('requested_at', 'desc')
    .execute();
}

/** The buyer's subscriptions in the session's store and mode (every product), newest first. */
export function buyerSubscriptions(db: Db, s: Pick<BuyerSessionRow, 'store_id' | 'mode' | 'email'>) {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('store_id', '=', s.store_id)
    .where('mode', '=', s.mode)
    .where((eb) => eb(eb.fn('lower', ['buyer_email']), '=', s.email))
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(50)
    .execute();
}

/** Deletes links and sessions that ended before `before` (they open nothing; the addresses in them need not be kept). */
export async function purgeEnded(db: Db, before: Date): Promise<number> {
  const links = await db.deleteFrom('buyer_sign_in_links').where('expires_at', '<', before).executeTakeFirst();
  const sessions = await db
    .deleteFrom('buyer_sessions')
    .where((eb) => eb.or([eb('expires_at', '<', before), eb('ended_at', '<', before)]))
    .executeTakeFirst();
  return Number(links.numDeletedRows ?? 0) + Number(sessions.numDeletedRows ?? 0);
}
