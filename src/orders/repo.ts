import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { OrderRefundRow, OrderRow } from './model';
import { TOTAL_COUNT } from '../platform/http/pagination';
import type { LicenseRow } from '../licenses/repo';

export interface OrderFilter {
  storeId: string;
  mode: Mode;
  productIds: string[] | null;
}

export function findOrder(db: Db, f: OrderFilter, id: string): Promise<OrderRow | undefined> {
  let q = db.selectFrom('orders').selectAll().where('id', '=', id).where('store_id', '=', f.storeId).where('mode', '=', f.mode);
  if (f.productIds) q = q.where('product_id', 'in', f.productIds.length ? f.productIds : ['']);
  return q.executeTakeFirst();
}

function ordersQuery(db: Db, f: OrderFilter) {
  let q = db.selectFrom('orders').where('store_id', '=', f.storeId).where('mode', '=', f.mode);
  if (f.productIds) q = q.where('product_id', 'in', f.productIds.length ? f.productIds : ['']);
  return q;
}

export async function countOrders(db: Db, f: OrderFilter): Promise<number> {
  return Number((await ordersQuery(db, f).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Newest first by creation time; the time-sortable id breaks ties. */
export function pageOrders(db: Db, f: OrderFilter, offset: number, limit: number): Promise<Array<OrderRow & { total_count: string }>> {
  return ordersQuery(db, f).selectAll().select(TOTAL_COUNT).orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
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
