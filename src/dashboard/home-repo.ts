import { sql } from 'kysely';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';

/** The queries of the dashboard's Home page (figures of one store and mode). Every function takes the executor. */

/**
 * The one definition of "paid" behind every figure of Home (the windows' 결제 금액 and 주문 수, the 30-day chart): an
 * order of this store and mode whose payment went through (`paid`, or `refunded` later: its refunds are counted apart),
 * counted at its `paid_at`, from `from` up to `to` (now). Migration 133's trigger keeps the same definition in
 * home_daily_figures; change both together. A test clock's renewal carries the time its clock gave it: one dated past
 * now is counted when that time comes (futureTestClockPaid shows it meanwhile), so no figure holds a payment the chart
 * has no day for.
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

/**
 * Home's sums per KST day from `fromDay` to `toDay` (inclusive), from the figures migration 133's triggers keep as the
 * sales happen: at most 8 rows a day, so the cost does not grow with the number of orders. A day holds every payment,
 * refund and subscription dated on it, including those a test clock dated later than now today (see laterToday).
 * Days without any are absent.
 */
export async function dailyFigures(
  db: Db,
  storeId: string,
  mode: Mode,
  fromDay: string,
  toDay: string,
): Promise<Array<{ day: string; paid: number; orders: number; refunds: number; newSubscriptions: number }>> {
  const rows = await db
    .selectFrom('home_daily_figures')
    .select((eb) => [
      sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'),
      eb.fn.sum<number>('paid_amount').as('paid'),
      eb.fn.sum<number>('paid_orders').as('orders'),
      eb.fn.sum<number>('refunded_amount').as('refunds'),
      eb.fn.sum<number>('new_subscriptions').as('subs'),
    ])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay)
    .groupBy('day')
    .execute();
  return rows.map((r) => ({ day: r.day, paid: Number(r.paid), orders: Number(r.orders), refunds: Number(r.refunds), newSubscriptions: Number(r.subs) }));
}

/**
 * What today's row of dailyFigures holds that is not due yet: payments, refunds and subscriptions dated after `now`
 * and before `until` (the next KST midnight), which only a test clock moved ahead makes. Each is a range read of an
 * index on (store, mode, time) from now on, so it reads nothing but those rows.
 */
export async function laterToday(db: Db, storeId: string, mode: Mode, now: Date, until: Date): Promise<{ paid: number; orders: number; refunds: number; newSubscriptions: number }> {
  const paid = await paidOrders(db, storeId, mode, now, until)
    .where('paid_at', '>', now)
    .where('paid_at', '<', until)
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('amount'), sql<number>`0`).as('amount'), eb.fn.countAll<number>().as('orders')])
    .executeTakeFirstOrThrow();
  const refunds = await db
    .selectFrom('order_refunds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), sql<number>`0`).as('amount'))
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('status', '=', 'succeeded')
    .where('refunded_at', '>', now)
    .where('refunded_at', '<', until)
    .executeTakeFirstOrThrow();
  const subs = await db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('started_at', '>', now)
    .where('started_at', '<', until)
    .executeTakeFirstOrThrow();
  return { paid: Number(paid.amount), orders: Number(paid.orders), refunds: Number(refunds.amount), newSubscriptions: Number(subs.n) };
}

/**
 * Payments dated on KST days after `day` (a test clock moved ahead): from the per-day figures (home_daily_figures,
 * migration 133, whose fill took every day dated ahead), one row per such day and slot. Home adds laterToday's share
 * of today to it; both stay out of every figure until their time. It read the orders themselves, which grew with every
 * test-clock renewal (Home's p50 rose from 12 to 27 ms over 20 minutes of the soak's renewals, issue 43).
 */
export async function paidAfterDay(db: Db, storeId: string, mode: Mode, day: string): Promise<{ amount: number; orders: number }> {
  const r = await db
    .selectFrom('home_daily_figures')
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('paid_amount'), sql<number>`0`).as('amount'), eb.fn.coalesce(eb.fn.sum<number>('paid_orders'), sql<number>`0`).as('orders')])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('day', '>', day)
    .executeTakeFirstOrThrow();
  return { amount: Number(r.amount), orders: Number(r.orders) };
}

/**
 * Active subscriptions by billing interval, with the sum of their per-period amounts: from the figures a trigger keeps
 * (home_subscription_figures, migration 135), at most 2 × 8 rows however many subscriptions the store has.
 */
export async function activeSubscriptions(db: Db, storeId: string, mode: Mode): Promise<Array<{ interval: 'monthly' | 'yearly'; count: number; amount: number }>> {
  const rows = await db
    .selectFrom('home_subscription_figures')
    .select((eb) => ['billing_interval', eb.fn.sum<number>('active_count').as('n'), eb.fn.sum<number>('active_amount').as('amount')])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .groupBy('billing_interval')
    .execute();
  return rows.map((r) => ({ interval: r.billing_interval, count: Number(r.n ?? 0), amount: Number(r.amount ?? 0) }));
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
