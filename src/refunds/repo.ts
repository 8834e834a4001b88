import { sql, type Insertable } from 'kysely';
import type { Db } from '../db';
import type { OrderRefundsTable } from '../orders/tables';
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

export function lockOrderById(trx: Db, id: string): Promise<OrderRow | undefined> {
  return trx.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
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
  return Number((await listQuery(db, f).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
}

export function pageRefunds(db: Db, f: RefundListFilter, offset: number, limit: number): Promise<RefundRow[]> {
  return listQuery(db, f).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}
