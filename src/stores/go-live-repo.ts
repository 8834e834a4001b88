import type { Db } from '../db';

// Queries behind the go-live checklist: whether live money ever moved for a store.

/** Whether the store ever took a live payment (a paid order, refunded later or not). */
export async function hasLivePayment(db: Db, storeId: string): Promise<boolean> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('store_id', '=', storeId)
    .where('mode', '=', 'live')
    .where('paid_at', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a live refund of the store ever succeeded at the gateway. */
export async function hasLiveRefund(db: Db, storeId: string): Promise<boolean> {
  const row = await db
    .selectFrom('order_refunds')
    .select('id')
    .where('store_id', '=', storeId)
    .where('mode', '=', 'live')
    .where('status', '=', 'succeeded')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
