import { keptRowCount } from '../db/row-counts';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { OrderRefundRow, OrderRow } from './model';
import { sql, type Selectable } from 'kysely';
import type { OrderCashReceiptsTable, OrderStatus, OrderVirtualAccountsTable } from './tables';
import type { LicenseRow } from '../licenses/repo';

export interface OrderFilter {
  storeId: string;
  mode: Mode;
  productIds: string[] | null;
}

/** An order by id alone, whatever its store, mode or product (for other modules' use cases; no range check). */
export function findOrderById(db: Db, orderId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
}

export function findOrder(db: Db, f: OrderFilter, id: string): Promise<OrderRow | undefined> {
  let q = db.selectFrom('orders').selectAll().where('id', '=', id).where('store_id', '=', f.storeId).where('mode', '=', f.mode);
  if (f.productIds) q = q.where('product_id', 'in', f.productIds.length ? f.productIds : ['']);
  return q.executeTakeFirst();
}

/**
 * The seller dashboard's search: `q` is an order id (exact) or a part of the buyer's e-mail or name (case-insensitive);
 * `status`; `from`/`to` bound the creation time (from inclusive, to exclusive); `subscriptionId` its orders.
 */
export interface OrderSearch {
  q?: string;
  status?: OrderStatus;
  from?: Date;
  to?: Date;
  subscriptionId?: string;
}

/** An order id as newId('ord') makes it: the prefix and a 26-character Crockford base32 body (any case typed). */
const ORDER_ID = /^ord_[0-9a-hjkmnp-tv-z]{26}$/i;
/** A whole e-mail address (local part, @, a domain with a dot; no spaces, no LIKE wildcards needed). */
const FULL_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;

/** LIKE's own wildcards in what the seller typed match themselves, not any text. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export function ordersQuery(db: Db, f: OrderFilter, s: OrderSearch = {}) {
  let q = db.selectFrom('orders').where('store_id', '=', f.storeId).where('mode', '=', f.mode);
  if (f.productIds) q = q.where('product_id', 'in', f.productIds.length ? f.productIds : ['']);
  const text = s.q?.trim();
  if (text && ORDER_ID.test(text)) {
    // A whole order id: the primary key, nothing else (no e-mail or name contains one).
    q = q.where('id', '=', text.toLowerCase());
  } else if (text && FULL_EMAIL.test(text)) {
    // A whole e-mail address: that buyer's orders exactly (any case), by orders_buyer_email_idx instead of a substring
    // scan of every order of the store. `a@b.com` no longer also finds `xa@b.com`; a part of an address still does below.
    q = q.where(sql<string>`lower(buyer_email)`, '=', text.toLowerCase());
  } else if (text) {
    const pattern = `%${likeEscape(text)}%`;
    q = q.where((eb) => eb.or([eb('id', '=', text), eb('buyer_email', 'ilike', pattern), eb('buyer_name', 'ilike', pattern)]));
  }
  if (s.status) q = q.where('status', '=', s.status);
  if (s.from) q = q.where('created_at', '>=', s.from);
  if (s.to) q = q.where('created_at', '<', s.to);
  if (s.subscriptionId) q = q.where('subscription_id', '=', s.subscriptionId);
  return q;
}

/** A filter whose total row_counts keeps: the store and mode, and at most a status. */
const isKeptFilter = (f: OrderFilter, s: OrderSearch) => !f.productIds && !s.q && !s.from && !s.to && !s.subscriptionId;

export async function countOrders(db: Db, f: OrderFilter, s: OrderSearch = {}): Promise<number> {
  // The whole store's orders (the API's list): the kept count, not a count of every order.
  if (isKeptFilter(f, s)) return keptRowCount(db, 'orders', f.storeId, f.mode, s.status ?? '');
  return Number((await ordersQuery(db, f, s).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** The matching orders counted up to `upTo` at most: reads at most `upTo` index entries however many orders match. */
export async function countOrdersUpTo(db: Db, f: OrderFilter, s: OrderSearch, upTo: number): Promise<number> {
  // Unfiltered (or by status only), the kept count answers: the bounded count read `upTo` index entries (10,001 on the
  // dashboard) for every page, which the big store's EXPLAIN check listed as a read of the whole store.
  if (isKeptFilter(f, s)) return Math.min(upTo, await keptRowCount(db, 'orders', f.storeId, f.mode, s.status ?? ''));
  const matching = ordersQuery(db, f, s).select(sql<number>`1`.as('one')).limit(upTo).as('matching');
  return Number((await db.selectFrom(matching).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Newest first by creation time; the time-sortable id breaks ties. */
export function pageOrders(db: Db, f: OrderFilter, offset: number, limit: number, s: OrderSearch = {}): Promise<Array<OrderRow>> {
  return ordersQuery(db, f, s).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

/** The columns an export writes, and no others: not the sale's terms, metadata or snapshots, read only to be dropped. */
export const ORDER_EXPORT_COLUMNS = [
  'id', 'mode', 'status', 'product_name', 'product_id', 'plan_id', 'billing_interval', 'amount', 'refunded_amount', 'method',
  'buyer_name', 'buyer_email', 'buyer_phone', 'coupon', 'paid_at', 'refunded_at', 'created_at',
] as const;
export type OrderExportRow = Pick<OrderRow, (typeof ORDER_EXPORT_COLUMNS)[number]>;

/**
 * Every matching order in batches, newest first, without OFFSET: each batch continues after the last (created_at, id)
 * seen, so a long export neither slows down page by page nor skips or repeats a row when new orders arrive meanwhile.
 */
export async function* scanOrders(db: Db, f: OrderFilter, s: OrderSearch, batch = 500): AsyncGenerator<OrderExportRow[]> {
  // The cursor keeps created_at as PostgreSQL's text: a Date holds milliseconds, the column microseconds, and a cursor
  // rounded to the millisecond would skip rows created in the same millisecond after it.
  let after: { created_at: string; id: string } | null = null;
  for (;;) {
    let q = ordersQuery(db, f, s).select(ORDER_EXPORT_COLUMNS).select(sql<string>`created_at::text`.as('cursor_at'));
    if (after) {
      const a = after;
      // `created_at <= cursor` is what the index can range over; the OR alone was only a filter, so every batch read
      // every newer order again (a million-order export: two thousand batches, each slower than the last).
      q = q
        .where('created_at', '<=', sql<Date>`${a.created_at}::timestamptz`)
        .where((eb) => eb.or([eb('created_at', '<', sql<Date>`${a.created_at}::timestamptz`), eb('id', '<', a.id)]));
    }
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(batch).execute();
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batch) return;
    const last = rows[rows.length - 1];
    after = { created_at: last.cursor_at, id: last.id };
  }
}

/** Refund records of the given orders (one query for a whole page). */
export async function refundsOf(db: Db, orderIds: string[]): Promise<Map<string, OrderRefundRow[]>> {
  const out = new Map<string, OrderRefundRow[]>();
  if (orderIds.length === 0) return out;
  const rows = await db.selectFrom('order_refunds').selectAll().where('order_id', 'in', orderIds).orderBy('created_at').execute();
  for (const r of rows) out.set(r.order_id, [...(out.get(r.order_id) ?? []), r]);
  return out;
}

/**
 * The licenses of the given orders in one query: those issued for an order, and for subscription orders those of
 * the subscription (a renewal extends the first order's license instead of issuing another). Oldest first.
 */
export async function licensesOf(db: Db, orders: Array<Pick<OrderRow, 'id' | 'subscription_id'>>): Promise<Map<string, LicenseRow[]>> {
  const out = new Map<string, LicenseRow[]>();
  if (orders.length === 0) return out;
  const ids = orders.map((o) => o.id);
  const subs = [...new Set(orders.map((o) => o.subscription_id).filter((x): x is string => x !== null))];
  const rows = await db
    .selectFrom('licenses')
    .selectAll()
    .where((eb) => (subs.length ? eb.or([eb('order_id', 'in', ids), eb('subscription_id', 'in', subs)]) : eb('order_id', 'in', ids)))
    .orderBy('issued_at')
    .orderBy('id')
    .execute();
  for (const o of orders) {
    out.set(
      o.id,
      rows.filter((l) => l.order_id === o.id || (o.subscription_id !== null && l.subscription_id === o.subscription_id)),
    );
  }
  return out;
}

/** The 가상계좌 of these orders (one query; none asked when the list is empty). */
export async function virtualAccountsOf(db: Db, orderIds: string[]) {
  if (!orderIds.length) return new Map<string, Selectable<OrderVirtualAccountsTable>>();
  const rows = await db.selectFrom('order_virtual_accounts').selectAll().where('order_id', 'in', orderIds).execute();
  return new Map(rows.map((r) => [r.order_id, r]));
}

/** The 현금영수증 of these orders (one query; none asked when the list is empty). */
export async function cashReceiptsOf(db: Db, orderIds: string[]) {
  if (!orderIds.length) return new Map<string, Selectable<OrderCashReceiptsTable>>();
  const rows = await db.selectFrom('order_cash_receipts').selectAll().where('order_id', 'in', orderIds).execute();
  return new Map(rows.map((r) => [r.order_id, r]));
}

/**
 * A refund reduces the order's issued 현금영수증 to what is still paid, or cancels it when nothing is (Toss cancels or
 * reduces the receipt with the payment's cancel: "결제 및 부분 취소 건에 대한 현금영수증", Payment.cashReceipts,
 * https://docs.tosspayments.com/reference#payment-객체). A receipt not issued yet (a 가상계좌 before its deposit) is left.
 */
export async function followRefundOnCashReceipt(db: Db, orderId: string, stillPaid: number, now: Date): Promise<{ sellerReceipt: boolean }> {
  await db
    .updateTable('order_cash_receipts')
    .set({ amount: stillPaid, status: stillPaid > 0 ? 'partially_canceled' : 'canceled', updated_at: now })
    .where('order_id', '=', orderId)
    .where('issue_key', 'is', null)
    .where('status', 'in', ['issued', 'partially_canceled'])
    .execute();
  // A receipt the seller issued afterwards is its own at the gateway: the payment's cancel leaves it, so what it must
  // still cover is noted here and the gateway's cash-receipt cancel is called outside the transaction
  // (src/checkout/seller-cash-receipt.ts).
  const seller = await db
    .updateTable('order_cash_receipts')
    .set({ target_amount: stillPaid, updated_at: now })
    .where('order_id', '=', orderId)
    // A receipt of its own at the gateway: the seller's (issue 32), or since issue 40 the buyer's and 의무발행.
    .where('issue_key', 'is not', null)
    .where('status', '!=', 'canceled')
    .returning('order_id')
    .executeTakeFirst();
  return { sellerReceipt: !!seller };
}
