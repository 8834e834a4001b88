import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db';
import { jsonb } from '../../db';
import type { OrderRefundRow, OrderRow } from '../../orders/model';
import type { RefundRequestRow } from '../../refunds/requests/model';
import type { RefundRequestsTable } from '../../refunds/tables';
import type { SubscriptionCancellationsTable } from './tables';

/**
 * The cancellation's queries (service.ts, preview.ts, immediate.ts, refunds.ts): its claim rows
 * (`subscription_cancellations`) and what it reads of orders, refunds, refund requests, products and licenses. Each
 * takes the executor, so the cancel's transactions (holding the subscription's row lock) compose them.
 */

export type CancellationRow = Selectable<SubscriptionCancellationsTable>;

/** The immediate cancellation in progress (`refunding`, whatever its lease) of a subscription, if any. */
export function openCancellation(db: Db, subscriptionId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('subscription_cancellations').select('id').where('subscription_id', '=', subscriptionId).where('status', '=', 'refunding').executeTakeFirst();
}

export type CancelOrderRow = Pick<
  OrderRow,
  'id' | 'amount' | 'refunded_amount' | 'paid_at' | 'period_start' | 'period_end' | 'subscription_event' | 'settlement_id' | 'status' | 'terms' | 'billing_interval'
>;

// ---------- reading the inputs of a preview ----------

/** The subscription's paid (or refunded) orders, what a cancel preview is computed from. */
export function cancelOrdersOf(db: Db, subscriptionId: string): Promise<CancelOrderRow[]> {
  return db
    .selectFrom('orders')
    .select(['id', 'amount', 'refunded_amount', 'paid_at', 'period_start', 'period_end', 'subscription_event', 'settlement_id', 'status', 'terms', 'billing_interval'])
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', ['paid', 'refunded'])
    .execute();
}

/** Orders among these with a refund `pending` or `unknown` (one row per such refund). `orderIds` must not be empty. */
export function refundsInFlightOf(db: Db, orderIds: string[]): Promise<Array<Pick<OrderRefundRow, 'order_id'>>> {
  return db.selectFrom('order_refunds').select('order_id').where('order_id', 'in', orderIds).where('status', 'in', ['pending', 'unknown']).execute();
}

/** Activation times of the licenses of the subscription or of these orders (`orderIds` must not be empty). */
export function licenseUsageOf(db: Db, subscriptionId: string, orderIds: string[]): Promise<Array<{ activated_at: Date; last_verified_at: Date | null }>> {
  return db
    .selectFrom('license_activations as a')
    .innerJoin('licenses as l', 'l.id', 'a.license_id')
    .select(['a.activated_at', 'a.last_verified_at'])
    .where((eb) => eb.or([eb('l.subscription_id', '=', subscriptionId), eb('l.order_id', 'in', orderIds)]))
    .execute();
}

/** A paid (or refunded) order of the subscription with an amount whose period covers `now`, if any. */
export function orderCoveringNow(db: Db, subscriptionId: string, now: Date): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('orders')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', ['paid', 'refunded'])
    .where('period_start', '<=', now)
    .where('period_end', '>', now)
    .where('amount', '>', 0)
    .executeTakeFirst();
}

// ---------- ending a subscription on cancel ----------

/**
 * The subscription's licenses stop with it: active ones of the subscription or of its orders, unless already
 * expired, expire `now` (one statement; the orders are a subquery).
 */
export async function expireLicensesOnCancel(trx: Db, subscriptionId: string, now: Date): Promise<void> {
  const orderIds = trx.selectFrom('orders').select('id').where('subscription_id', '=', subscriptionId);
  await trx
    .updateTable('licenses')
    .set({ expires_at: now, updated_at: now })
    .where((eb) => eb.or([eb('subscription_id', '=', subscriptionId), eb('order_id', 'in', orderIds)]))
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}

// ---------- the claim (subscription_cancellations) ----------

/** The subscription's unfinished (`refunding`) claim, whatever its lease. Read under the subscription's row lock. */
export function findRefundingCancellation(trx: Db, subscriptionId: string): Promise<CancellationRow | undefined> {
  return trx.selectFrom('subscription_cancellations').selectAll().where('subscription_id', '=', subscriptionId).where('status', '=', 'refunding').executeTakeFirst();
}

/** Takes over a claim whose lease ran out: a new lease until `lockedUntil`. */
export async function renewCancellationLease(trx: Db, id: string, lockedUntil: Date, now: Date): Promise<void> {
  await trx.updateTable('subscription_cancellations').set({ locked_until: lockedUntil, updated_at: now }).where('id', '=', id).execute();
}

/** Inserts a claim (at most one `refunding` per subscription by a unique index: a second insert fails with 23505). */
export async function insertCancellation(trx: Db, row: Insertable<SubscriptionCancellationsTable>): Promise<void> {
  await trx.insertInto('subscription_cancellations').values(row).execute();
}

export function lockCancellation(trx: Db, id: string): Promise<CancellationRow> {
  return trx.selectFrom('subscription_cancellations').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

export async function completeCancellation(trx: Db, id: string, refundedOrderIds: string[], now: Date): Promise<void> {
  await trx
    .updateTable('subscription_cancellations')
    .set({ status: 'completed', refunded_order_ids: jsonb(refundedOrderIds), locked_until: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Updates a claim only while it is still `refunding` (a conditional update). */
export async function updateRefundingCancellation(db: Db, id: string, patch: Updateable<SubscriptionCancellationsTable>): Promise<void> {
  await db.updateTable('subscription_cancellations').set(patch).where('id', '=', id).where('status', '=', 'refunding').execute();
}

/** Claims still `refunding` whose lease ran out (or was released). */
export function staleCancellations(db: Db, now: Date, limit: number): Promise<Array<Pick<CancellationRow, 'subscription_id' | 'reason' | 'actor'>>> {
  return db
    .selectFrom('subscription_cancellations')
    .select(['subscription_id', 'reason', 'actor'])
    .where('status', '=', 'refunding')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .limit(limit)
    .execute();
}

// ---------- the refunds module's tables, as the cancel reads and files them ----------

/** Refunds of these orders made for a subscription cancel since `since`, not failed (`orderIds` must not be empty). */
export function cancelRefundsOf(db: Db, orderIds: string[], since: Date): Promise<Array<Pick<OrderRefundRow, 'order_id' | 'status'>>> {
  return db
    .selectFrom('order_refunds')
    .select(['order_id', 'status'])
    .where('order_id', 'in', orderIds)
    .where('source', '=', 'subscription_cancel')
    .where('created_at', '>=', since)
    .where('status', '<>', 'failed')
    .execute();
}

/** The newest active (requested or held) refund request of the subscription or one of its orders. */
export function findActiveRefundRequest(db: Db, subscriptionId: string, orderIds: string[]): Promise<RefundRequestRow | undefined> {
  return db
    .selectFrom('refund_requests')
    .selectAll()
    .where('status', 'in', ['requested', 'held'])
    .where((eb) => (orderIds.length ? eb.or([eb('subscription_id', '=', subscriptionId), eb('order_id', 'in', orderIds)]) : eb('subscription_id', '=', subscriptionId)))
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

export async function insertCancelRefundRequest(trx: Db, row: Insertable<RefundRequestsTable>): Promise<RefundRequestRow> {
  return trx.insertInto('refund_requests').values(row).returningAll().executeTakeFirstOrThrow();
}

// ---------- a portal cancel waiting for the seller (src/subscriptions/cancel/withdrawal.ts) ----------

export function findRefundRequest(db: Db, id: string): Promise<RefundRequestRow | undefined> {
  return db.selectFrom('refund_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The refund requests filed by the subscription's latest portal cancel that waited for the seller (the requests a
 * completed claim with `refund_request_id` filed in its own transaction, so created at the claim's time).
 */
export async function pendingCancelRequests(db: Db, subscriptionId: string): Promise<Array<Pick<RefundRequestRow, 'id' | 'status' | 'statutory' | 'order_id' | 'amount' | 'auto_approve_at'>>> {
  const claim = await db
    .selectFrom('subscription_cancellations')
    .select(['created_at'])
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'completed')
    .where('refund_request_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!claim) return [];
  return db
    .selectFrom('refund_requests')
    .select(['id', 'status', 'statutory', 'order_id', 'amount', 'auto_approve_at'])
    .where('subscription_id', '=', subscriptionId)
    .where('source', '=', 'subscription_cancel')
    .where('created_at', '>=', claim.created_at)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
