import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { OrderRefundRow, OrderRow } from './model';
import { TOTAL_COUNT } from '../platform/http/pagination';

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
