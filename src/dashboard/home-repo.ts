import { sql } from 'kysely';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';

/** The queries of the dashboard's Home page (figures of one store and mode). Every function takes the executor. */

/**
 * The one definition of "paid" behind every figure of Home (the windows' 결제 금액 and 주문 수, the 30-day chart): an
 * order of this store and mode whose payment went through (`paid`, or `refunded` later: its refunds are counted apart,
 * under refundsSince), counted at its `paid_at`, from `from` up to `to` (now). A test clock's renewal carries the time
 * its clock gave it: one dated past now is counted when that time comes (futureTestClockPaid shows it meanwhile), so
 * no figure holds a payment the chart has no day for.
 */
function paidOrders(db: Db, storeId: string, mode: Mode, from: Date, to: Date) {
  return db
    .selectFrom('orders')
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('status', 'in', ['paid', 'refunded'])
    .where('paid_at', '>=', from)
    .where('paid_at', '<=', to);
}

export async function paidSince(db: Db, storeId: string, mode: Mode, from: Date, now: Date): Promise<{ amount: number; orders: number }> {
  const r = await paidOrders(db, storeId, mode, from, now)
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('amount'), sql<number>`0`).as('amount'), eb.fn.countAll<number>().as('orders')])
    .executeTakeFirstOrThrow();
  return { amount: Number(r.amount), orders: Number(r.orders) };
}

/** Payments dated after now (a test clock moved ahead): left out of every figure until their time, counted here. */
export async function futureTestClockPaid(db: Db, storeId: string, mode: Mode, now: Date): Promise<{ amount: number; orders: number }> {
  const r = await paidOrders(db, storeId, mode, new Date(now.getTime() + 1), new Date('9999-12-31T00:00:00Z'))
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('amount'), sql<number>`0`).as('amount'), eb.fn.countAll<number>().as('orders')])
    .executeTakeFirstOrThrow();
  return { amount: Number(r.amount), orders: Number(r.orders) };
}

export async function refundsSince(db: Db, storeId: string, mode: Mode, from: Date, now: Date): Promise<number> {
  const r = await db
    .selectFrom('order_refunds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), sql<number>`0`).as('amount'))
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('status', '=', 'succeeded')
    .where('refunded_at', '>=', from)
    .where('refunded_at', '<=', now)
    .executeTakeFirstOrThrow();
  return Number(r.amount);
}

export async function subscriptionsStartedSince(db: Db, storeId: string, mode: Mode, from: Date, now: Date): Promise<number> {
  const r = await db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('started_at', '>=', from)
    .where('started_at', '<=', now)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Active subscriptions by billing interval, with the sum of their per-period amounts. */
export async function activeSubscriptions(db: Db, storeId: string, mode: Mode): Promise<Array<{ interval: 'monthly' | 'yearly'; count: number; amount: number }>> {
  const rows = await db
    .selectFrom('subscriptions')
    .select((eb) => ['billing_interval', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('amount').as('amount')])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('status', '=', 'active')
    .groupBy('billing_interval')
    .execute();
  return rows.map((r) => ({ interval: r.billing_interval, count: Number(r.n), amount: Number(r.amount ?? 0) }));
}

/** Requests waiting for the seller: statutory ones first, the nearest deadline (auto-approval) first. */
export async function waitingRefundRequests(db: Db, storeId: string, mode: Mode, limit: number) {
  return db
    .selectFrom('refund_requests')
    .select(['id', 'order_id', 'amount', 'status', 'statutory', 'requested_at', 'auto_approve_at', sql<string>`count(*) over ()`.as('total_count')])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('status', 'in', ['requested', 'held'])
    .orderBy('statutory', 'desc')
    .orderBy(sql`auto_approve_at asc nulls last`)
    .orderBy('requested_at')
    .limit(limit)
    .execute();
}

export async function failingEndpoints(db: Db, storeId: string, mode: Mode) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'status', 'failing_since', 'disabled_reason'])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where((eb) => eb.or([eb('failing_since', 'is not', null), eb('status', '=', 'disabled')]))
    .orderBy('failing_since')
    .limit(20)
    .execute();
}

/** Paid amount per KST calendar day from `from` up to now (the same orders as paidSince; days without payments are absent). */
export async function paidPerDay(db: Db, storeId: string, mode: Mode, from: Date, now: Date): Promise<Array<{ day: string; amount: number }>> {
  const day = sql<string>`to_char(paid_at at time zone 'Asia/Seoul', 'YYYY-MM-DD')`;
  const rows = await paidOrders(db, storeId, mode, from, now)
    .select((eb) => [day.as('day'), eb.fn.sum<number>('amount').as('amount')])
    .groupBy(day)
    .execute();
  return rows.map((r) => ({ day: r.day, amount: Number(r.amount) }));
}
