import type { Mode } from '../platform/tables';
import { sql } from 'kysely';
import type { Db } from '../db';
import { jsonb } from '../db';
import type { OrderRow } from '../orders/model';
import type { SessionRow } from './model';
import type { CheckoutAttempt, PaymentInFlight } from './tables';

// The payment path's queries (complete.ts, reconcile.ts); every write runs on the caller's transaction.

/** Locks the session row for the rest of the caller's transaction (one attempt at a time; see completePayment). */
export function lockSession(trx: Db, id: string): Promise<SessionRow | undefined> {
  return trx.selectFrom('checkout_sessions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** A session without a lock (reconciliation reads first, then settles in its own locking transaction). */
export function findSession(db: Db, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The session whose reserved order id a gateway payment names (Toss's orderId), within one store and mode. */
export function findSessionByPendingOrderId(db: Db, storeId: string, mode: Mode, orderId: string): Promise<SessionRow | undefined> {
  return db.selectFrom('checkout_sessions').selectAll().where('pending_order_id', '=', orderId).where('store_id', '=', storeId).where('mode', '=', mode).executeTakeFirst();
}

/** The product's name, which a first charge to a billing key sends as its orderName. */
export function findProductName(db: Db, productId: string): Promise<{ name: string }> {
  return db.selectFrom('products').select('name').where('id', '=', productId).executeTakeFirstOrThrow();
}

/** The product's status and the refund terms a payment taken now is sold under (kept on the order: src/orders/terms.ts). */
export function findProductStatus(trx: Db, productId: string) {
  return trx
    .selectFrom('products')
    .select(['id', 'status', 'refund_days', 'penalty_rate', 'clawback_disclosed', 'trial_offered', 'usage_restriction_marked', 'license_mode', 'plans'])
    .where('id', '=', productId)
    .executeTakeFirstOrThrow();
}

export function findProductNameAndType(trx: Db, productId: string) {
  return trx.selectFrom('products').select(['name', 'type']).where('id', '=', productId).executeTakeFirstOrThrow();
}

/** Marks the payment `confirming` with its reservation and the attempt's lock (until `lockedUntil`). */
export async function markAttemptStarted(trx: Db, sessionId: string, payment: PaymentInFlight, attempt: CheckoutAttempt, lockedUntil: Date): Promise<void> {
  await trx
    .updateTable('checkout_sessions')
    .set({ payment: jsonb(payment), attempt: jsonb(attempt), attempt_locked_until: lockedUntil })
    .where('id', '=', sessionId)
    .execute();
}

/** An order as the payment path inserts it (`receipt_token` is filled by its column default). */
export type NewOrder = Omit<OrderRow, 'receipt_token'>;

/** Inserts the paid order; `metadata`, `coupon` and `terms` are written as jsonb. Columns in the order of `order`'s keys. */
export function insertOrder(trx: Db, order: NewOrder): Promise<OrderRow> {
  return trx
    .insertInto('orders')
    .values({ ...order, metadata: jsonb(order.metadata), coupon: jsonb(order.coupon), terms: jsonb(order.terms) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function markSessionCompleted(trx: Db, sessionId: string, orderId: string, now: Date): Promise<void> {
  await trx
    .updateTable('checkout_sessions')
    .set({ status: 'completed', order_id: orderId, completed_at: now, payment: jsonb(null), attempt_locked_until: null })
    .where('id', '=', sessionId)
    .execute();
}

/** Frees the session for another attempt (the payment in flight is gone). */
export async function clearSessionPayment(trx: Db, sessionId: string): Promise<void> {
  await trx.updateTable('checkout_sessions').set({ payment: jsonb(null), attempt_locked_until: null }).where('id', '=', sessionId).execute();
}

/** Stores the payment in flight as `unknown` (its reservation kept) and drops the attempt's lock. */
export async function markPaymentUnknown(trx: Db, sessionId: string, payment: PaymentInFlight): Promise<void> {
  await trx.updateTable('checkout_sessions').set({ payment: jsonb({ ...payment, state: 'unknown' }), attempt_locked_until: null }).where('id', '=', sessionId).execute();
}

/** Up to 100 sessions whose `confirming` payment's lock ran out by `now`. */
export function findStaleAttempts(db: Db, now: Date): Promise<Array<{ id: string }>> {
  return db
    .selectFrom('checkout_sessions')
    .select('id')
    .where('payment', 'is not', null)
    .where('attempt_locked_until', '<=', now)
    .where(sql<string>`payment->>'state'`, '=', 'confirming')
    .limit(100)
    .execute();
}
