import { sql, type Insertable } from 'kysely';
import { keptRowCount } from '../db/row-counts';
import type { Db } from '../db';
import type { OrderRefundsTable } from '../orders/tables';
import type { SettlementOrdersTable, SettlementRoundsTable } from './tables';
import type { OrderRow } from '../orders/model';
import type { Mode } from '../platform/tables';
import type { RefundRow, RefundStatus } from './model';

export interface OrderScope {
  storeId: string;
  mode: Mode;
  /** null: every product; else only these (others are "not found"). */
  productIds: string[] | null;
}

/** The order, locked for the rest of the transaction; undefined when absent or outside the scope. */
export function lockOrder(trx: Db, f: OrderScope, id: string): Promise<OrderRow | undefined> {
  let q = trx.selectFrom('orders').selectAll().where('id', '=', id).where('store_id', '=', f.storeId).where('mode', '=', f.mode);
  if (f.productIds) q = q.where('product_id', 'in', f.productIds.length ? f.productIds : ['']);
  return q.forUpdate().executeTakeFirst();
}

/** An order of the store and mode by id (Toss's orderId is our order id), unlocked. */
export function findOrderInStore(db: Db, storeId: string, mode: Mode, id: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).where('store_id', '=', storeId).where('mode', '=', mode).executeTakeFirst();
}

/** The gateway cancel transaction keys already recorded as refunds of the order. */
/** PayPal orders: the cents already given back (succeeded refunds), for the next refund's share (src/payments/foreign.ts). */
export async function presentmentRefunded(db: Db, orderId: string): Promise<number> {
  const r = await db
    .selectFrom('order_refunds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>('presentment_amount'), eb.val(0)).as('n'))
    .where('order_id', '=', orderId)
    .where('status', '=', 'succeeded')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function gatewayTransactionKeys(db: Db, orderId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('order_refunds').select('gateway_transaction_key').where('order_id', '=', orderId).where('gateway_transaction_key', 'is not', null).execute();
  return new Set(rows.map((r) => r.gateway_transaction_key!));
}

export function lockOrderById(trx: Db, id: string): Promise<OrderRow | undefined> {
  return trx.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The order of a refund, locked (one statement: the refund's order id is looked up inside). */
export function lockOrderOfRefund(trx: Db, refundId: string): Promise<OrderRow | undefined> {
  return trx
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', (eb) => eb.selectFrom('order_refunds').select('order_refunds.order_id').where('order_refunds.id', '=', refundId))
    .forUpdate()
    .executeTakeFirst();
}

/** What blocks a new refund of the order besides its own state, in one round trip (see hasActiveRequest / hasRefundInFlight). */
export async function refundBlockers(db: Db, orderId: string, exceptRequestId: string | null): Promise<{ activeRequest: boolean; refundInFlight: boolean }> {
  const r = await sql<{ active_request: boolean; in_flight: boolean }>`
    select
      exists (select 1 from refund_requests where order_id = ${orderId} and status in ('requested', 'held') and (${exceptRequestId}::text is null or id <> ${exceptRequestId})) as active_request,
      exists (select 1 from order_refunds where order_id = ${orderId} and status in ('pending', 'unknown')) as in_flight`.execute(db);
  const row = r.rows[0];
  return { activeRequest: row.active_request, refundInFlight: row.in_flight };
}

/** An active (requested or held) refund request of the order, other than `exceptId`. */
export async function hasActiveRequest(db: Db, orderId: string, exceptId: string | null): Promise<boolean> {
  let q = db.selectFrom('refund_requests').select('id').where('order_id', '=', orderId).where('status', 'in', ['requested', 'held']);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

export async function hasRefundInFlight(db: Db, orderId: string): Promise<boolean> {
  const r = await db.selectFrom('order_refunds').select('id').where('order_id', '=', orderId).where('status', 'in', ['pending', 'unknown']).limit(1).executeTakeFirst();
  return r !== undefined;
}

export async function insertRefund(trx: Db, row: Insertable<OrderRefundsTable>): Promise<RefundRow> {
  return trx.insertInto('order_refunds').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findByRequestKey(db: Db, storeId: string, mode: Mode, requestKey: string): Promise<RefundRow | undefined> {
  return db.selectFrom('order_refunds').selectAll().where('store_id', '=', storeId).where('mode', '=', mode).where('request_key', '=', requestKey).executeTakeFirst();
}

export function findRefund(db: Db, id: string): Promise<RefundRow | undefined> {
  return db.selectFrom('order_refunds').selectAll().where('id', '=', id).executeTakeFirst();
}

export function lockRefund(trx: Db, id: string): Promise<RefundRow | undefined> {
  return trx.selectFrom('order_refunds').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function updateRefund(
  trx: Db,
  id: string,
  patch: { status?: RefundStatus; refunded_at?: Date | null; failure_code?: string | null; error?: string | null; reconcile_attempts?: number; updated_at: Date },
): Promise<RefundRow> {
  return trx.updateTable('order_refunds').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function recordRefunded(trx: Db, orderId: string, v: { refundedAmount: number; status: 'paid' | 'refunded'; at: Date }): Promise<void> {
  await trx.updateTable('orders').set({ refunded_amount: v.refundedAmount, status: v.status, refunded_at: v.at, updated_at: v.at }).where('id', '=', orderId).execute();
}

/**
 * Revokes every license the order issued that is not revoked yet (a full refund takes the product back). Pending
 * seller-issued licenses are revoked too, which stops their license.issue requests. Returns how many.
 */
export async function revokeOrderLicenses(trx: Db, orderId: string, at: Date, reason: string): Promise<number> {
  const rows = await trx
    .updateTable('licenses')
    .set({ status: 'revoked', revoked_at: at, revoke_reason: reason, updated_at: at })
    .where('order_id', '=', orderId)
    .where('status', '<>', 'revoked')
    .returning('id')
    .execute();
  return rows.length;
}

/** Refunds left `pending` since before `before`: their process died between recording and the gateway's answer. */
export function stalePending(db: Db, before: Date, limit: number): Promise<Pick<RefundRow, 'id'>[]> {
  return db.selectFrom('order_refunds').select('id').where('status', '=', 'pending').where('updated_at', '<', before).orderBy('updated_at').limit(limit).execute();
}

/** The order of a refund being reconciled (unlocked read; reconciliation runs outside a transaction). */
export function getOrder(db: Db, id: string): Promise<OrderRow> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * Counts a reconciliation attempt in the row itself (`+ 1` in SQL, so two reconcilers at once count two). Leaves
 * `updated_at` alone (the stale-pending sweep reads it).
 */
export async function countReconcileAttempt(db: Db, id: string): Promise<void> {
  await db.updateTable('order_refunds').set((eb) => ({ reconcile_attempts: eb('reconcile_attempts', '+', 1) })).where('id', '=', id).execute();
}

/** Flags a refund whose gateway total does not match our records (`RECONCILE_MISMATCH`), for the seller to check. */
export async function flagReconcileMismatch(db: Db, id: string, error: string, now: Date): Promise<void> {
  await db
    .updateTable('order_refunds')
    .set({
      failure_code: 'RECONCILE_MISMATCH',
      error,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

export interface RefundListFilter {
  storeId: string;
  mode?: Mode;
  orderId?: string;
  status?: RefundStatus;
}

function listQuery(db: Db, f: RefundListFilter) {
  let q = db.selectFrom('order_refunds').where('store_id', '=', f.storeId);
  if (f.mode) q = q.where('mode', '=', f.mode);
  if (f.orderId) q = q.where('order_id', '=', f.orderId);
  if (f.status) q = q.where('status', '=', f.status);
  return q;
}

export async function countRefunds(db: Db, f: RefundListFilter): Promise<number> {
  if (!f.orderId) return keptRowCount(db, 'order_refunds', f.storeId, f.mode, f.status ?? '');
  return Number((await listQuery(db, f).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
}

export function pageRefunds(db: Db, f: RefundListFilter, offset: number, limit: number): Promise<RefundRow[]> {
  return listQuery(db, f).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

// ---------- settlement ----------

export interface SettlementCandidate {
  id: string;
  amount: number;
  refunded_amount: number | null;
  paid_at: Date | null;
  refund_days: number;
}

/**
 * Unsettled paid (or since refunded) orders of a store and mode paid up to `paidBefore`, locked so a refund of one of
 * them waits for the round (and then answers REFUND_SETTLED). Orders with a refund in flight or an active refund
 * request are left out: their outcome is not known yet.
 */
export async function lockSettlementCandidates(
  trx: Db,
  storeId: string,
  mode: Mode,
  paidBefore: Date,
  page?: { after: { paid_at: Date; id: string } | null; limit: number },
): Promise<SettlementCandidate[]> {
  let q = trx
    .selectFrom('orders')
    // The window is the order's own (its terms as sold), not the product's as it is now.
    .select(['orders.id', 'orders.amount', 'orders.refunded_amount', 'orders.paid_at', sql<number>`(orders.terms->>'refundDays')::int`.as('refund_days')])
    .where('orders.store_id', '=', storeId)
    .where('orders.mode', '=', mode)
    .where('orders.status', 'in', ['paid', 'refunded'])
    .where('orders.settlement_id', 'is', null)
    .where('orders.paid_at', '<=', paidBefore)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('order_refunds').select('order_refunds.id').whereRef('order_refunds.order_id', '=', 'orders.id').where('order_refunds.status', 'in', ['pending', 'unknown']))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('refund_requests').select('refund_requests.id').whereRef('refund_requests.order_id', '=', 'orders.id').where('refund_requests.status', 'in', ['requested', 'held']))),
    );
  // A batch: the next `limit` candidates after the last one read (paid_at, id), so a batch whose orders all fall
  // inside their window does not stop the ones after it.
  const a = page?.after;
  if (a) q = q.where((eb) => eb.or([eb('orders.paid_at', '>', a.paid_at), eb.and([eb('orders.paid_at', '=', a.paid_at), eb('orders.id', '>', a.id)])]));
  q = q.orderBy('orders.paid_at').orderBy('orders.id');
  if (page) q = q.limit(page.limit);
  return q.forUpdate('orders').execute();
}

/** Stores and modes that have unsettled paid orders from before `paidBefore` (the weekly job's work list). */
export function storesWithUnsettled(db: Db, paidBefore: Date): Promise<Array<{ store_id: string; mode: Mode }>> {
  return db
    .selectFrom('orders')
    .select(['store_id', 'mode'])
    .distinct()
    .where('status', 'in', ['paid', 'refunded'])
    .where('settlement_id', 'is', null)
    .where('paid_at', '<=', paidBefore)
    .execute();
}

/**
 * The round a run continues or skips: the weekly job's round of the period (open or closed), or for the console the
 * store's open console round (left open by a crash between batches).
 */
export function roundToResume(db: Db, storeId: string, mode: Mode, source: 'job' | 'console', periodKey: string | null) {
  let q = db.selectFrom('settlement_rounds').select(['id', 'cutoff', 'closed_at']).where('store_id', '=', storeId).where('mode', '=', mode).where('source', '=', source);
  q = periodKey !== null && source === 'job' ? q.where('period_key', '=', periodKey) : q.where('closed_at', 'is', null);
  return q.orderBy('created_at').executeTakeFirst();
}

/** Adds one batch's figures to its round (in the batch's transaction). */
export async function addToRound(trx: Db, id: string, add: { order_count: number; gross: number; refunds: number; fees: number; net: number }): Promise<void> {
  await trx
    .updateTable('settlement_rounds')
    .set((eb) => ({
      order_count: eb('order_count', '+', add.order_count),
      gross: eb('gross', '+', add.gross),
      refunds: eb('refunds', '+', add.refunds),
      fees: eb('fees', '+', add.fees),
      net: eb('net', '+', add.net),
    }))
    .where('id', '=', id)
    .execute();
}

export async function closeRound(trx: Db, id: string, at: Date): Promise<void> {
  await trx.updateTable('settlement_rounds').set({ closed_at: at }).where('id', '=', id).where('closed_at', 'is', null).execute();
}

export async function insertRound(trx: Db, row: Insertable<SettlementRoundsTable>): Promise<void> {
  await trx.insertInto('settlement_rounds').values(row).execute();
}

export async function insertRoundOrders(trx: Db, lines: Insertable<SettlementOrdersTable>[]): Promise<void> {
  for (let i = 0; i < lines.length; i += 500) await trx.insertInto('settlement_orders').values(lines.slice(i, i + 500)).execute();
}

/** From now on these orders answer REFUND_SETTLED. */
export async function markSettled(trx: Db, roundId: string, orderIds: string[], at: Date): Promise<void> {
  for (let i = 0; i < orderIds.length; i += 500) {
    await trx.updateTable('orders').set({ settlement_id: roundId, updated_at: at }).where('id', 'in', orderIds.slice(i, i + 500)).execute();
  }
}

/** A closed round (an open one is still being filled and is not shown). */
export function findRound(db: Db, storeId: string, id: string) {
  return db.selectFrom('settlement_rounds').selectAll().where('id', '=', id).where('store_id', '=', storeId).where('closed_at', 'is not', null).executeTakeFirst();
}

export function roundOrders(db: Db, roundId: string) {
  return db
    .selectFrom('settlement_orders')
    .innerJoin('orders', 'orders.id', 'settlement_orders.order_id')
    .select(['settlement_orders.order_id', 'orders.paid_at', 'settlement_orders.gross', 'settlement_orders.refunded', 'settlement_orders.fee', 'settlement_orders.net'])
    .where('settlement_orders.round_id', '=', roundId)
    .orderBy('orders.paid_at')
    .orderBy('settlement_orders.order_id')
    .execute();
}

function roundsQuery(db: Db, storeId: string, mode: Mode | undefined) {
  let q = db.selectFrom('settlement_rounds').where('store_id', '=', storeId).where('closed_at', 'is not', null);
  if (mode) q = q.where('mode', '=', mode);
  return q;
}

export async function countRounds(db: Db, storeId: string, mode: Mode | undefined): Promise<number> {
  return Number((await roundsQuery(db, storeId, mode).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
}

export function pageRounds(db: Db, storeId: string, mode: Mode | undefined, offset: number, limit: number) {
  return roundsQuery(db, storeId, mode).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}
