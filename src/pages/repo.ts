import type { Db } from '../db';
import { jsonb } from '../db';
import type { ProductRow } from '../catalog/model';
import type { CheckoutAttempt } from '../checkout/tables';
import type { SessionRow } from '../checkout/model';
import type { OrderRow } from '../orders/model';
import type { SubscriptionRow } from '../subscriptions/model';
import type { PortalSessionRow } from '../subscriptions/portal/service';

// The payment page's and the buyer portal's reads and writes (on the checkout, catalog, store and subscription tables).

/** The session again after a stale attempt was recovered (it exists: it was just read). */
export function findSessionOrThrow(db: Db, id: string): Promise<SessionRow> {
  return db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export function findProductById(db: Db, id: string): Promise<ProductRow> {
  return db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export function findStoreName(db: Db, storeId: string): Promise<{ name: string }> {
  return db.selectFrom('stores').select('name').where('id', '=', storeId).executeTakeFirstOrThrow();
}

/** Keeps the buyer's checked input on the session, open sessions only. */
export async function saveOpenSessionAttempt(db: Db, sessionId: string, attempt: CheckoutAttempt): Promise<void> {
  await db.updateTable('checkout_sessions').set({ attempt: jsonb(attempt) }).where('id', '=', sessionId).where('status', '=', 'open').execute();
}

/**
 * The language the buyer pays in becomes the session's (and so the order's: its receipt link and mails), unless the
 * seller fixed one at creation. Open sessions only; a no-op when it is already that language.
 */
export async function setOpenSessionLocale(db: Db, sessionId: string, locale: 'ko' | 'en'): Promise<void> {
  await db.updateTable('checkout_sessions').set({ locale }).where('id', '=', sessionId).where('status', '=', 'open').where('locale_fixed', '=', false).where('locale', '<>', locale).execute();
}

/** The amount of the subscription's refund request still waiting for the seller (`requested` or `held`), if any. */
export function findPendingRefundRequest(db: Db, subscriptionId: string): Promise<{ amount: number } | undefined> {
  return db.selectFrom('refund_requests').select('amount').where('subscription_id', '=', subscriptionId).where('status', 'in', ['requested', 'held']).executeTakeFirst();
}

/** The buyer's subscriptions (e-mail compared case-insensitively) in the session's store, mode and product range: newest 20. */
export function buyerSubscriptions(db: Db, s: Pick<PortalSessionRow, 'store_id' | 'mode' | 'buyer_email' | 'product_ids'>): Promise<SubscriptionRow[]> {
  let q = db
    .selectFrom('subscriptions')
    .selectAll()
    .where('store_id', '=', s.store_id)
    .where('mode', '=', s.mode)
    .where((eb) => eb(eb.fn('lower', ['buyer_email']), '=', s.buyer_email.toLowerCase()));
  if (s.product_ids) q = q.where('product_id', 'in', s.product_ids.length ? s.product_ids : ['']);
  return q.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(20).execute();
}

export function findProductPlans(db: Db, productId: string) {
  return db.selectFrom('products').select('plans').where('id', '=', productId).executeTakeFirst();
}

/** Paid and refunded orders of the given subscriptions, newest 50. */
export function subscriptionOrders(db: Db, subscriptionIds: string[]): Promise<OrderRow[]> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('subscription_id', 'in', subscriptionIds)
    .where('status', 'in', ['paid', 'refunded'])
    .orderBy('created_at', 'desc')
    .limit(50)
    .execute();
}

/** The store an order belongs to (the receipt page knows the order by its token only). */
export async function storeIdOfOrder(db: Db, orderId: string): Promise<string | null> {
  return (await db.selectFrom('orders').select('store_id').where('id', '=', orderId).executeTakeFirst())?.store_id ?? null;
}
