import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../../db';
import type { Mode } from '../../platform/tables';
import type { RefundRequestsTable, RefundRequestStatus } from '../tables';
import type { RefundRequestRow } from './model';

export interface RequestScope {
  storeId: string;
  /** null: any mode (the seller console). */
  mode: Mode | null;
  /** The API key's product range (null = every product): requests of orders outside it are "not found". */
  productIds: string[] | null;
}

export interface RequestListFilter extends RequestScope {
  status?: RefundRequestStatus;
  orderId?: string;
}

function scoped(db: Db, f: RequestScope) {
  let q = db
    .selectFrom('refund_requests as rr')
    .innerJoin('orders as o', 'o.id', 'rr.order_id')
    .where('rr.store_id', '=', f.storeId);
  if (f.mode) q = q.where('rr.mode', '=', f.mode);
  if (f.productIds) q = q.where('o.product_id', 'in', f.productIds.length ? f.productIds : ['']);
  return q;
}

function listQuery(db: Db, f: RequestListFilter) {
  let q = scoped(db, f);
  if (f.status) q = q.where('rr.status', '=', f.status);
  if (f.orderId) q = q.where('rr.order_id', '=', f.orderId);
  return q;
}

export async function countRequests(db: Db, f: RequestListFilter): Promise<number> {
  return Number((await listQuery(db, f).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Newest first by creation time; the time-sortable id breaks ties. */
export function pageRequests(db: Db, f: RequestListFilter, offset: number, limit: number): Promise<RefundRequestRow[]> {
  return listQuery(db, f).selectAll('rr').orderBy('rr.created_at', 'desc').orderBy('rr.id', 'desc').offset(offset).limit(limit).execute();
}

/**
 * The seller's work queue: undecided requests (`requested`, `held`), the statutory deadline first: those with an
 * auto-approval time soonest first, then the rest oldest first (nothing forces those, but a buyer is waiting).
 */
export function pageQueue(db: Db, f: RequestScope, offset: number, limit: number): Promise<Array<RefundRequestRow>> {
  return scoped(db, f)
    .selectAll('rr')
    
    .where('rr.status', 'in', ['requested', 'held'])
    .orderBy(sql`rr.auto_approve_at asc nulls last`)
    .orderBy('rr.requested_at', 'asc')
    .orderBy('rr.id', 'asc')
    .offset(offset)
    .limit(limit)
    .execute();
}

export async function countQueue(db: Db, f: RequestScope): Promise<number> {
  return Number((await scoped(db, f).where('rr.status', 'in', ['requested', 'held']).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

export function findRequest(db: Db, f: RequestScope, id: string): Promise<RefundRequestRow | undefined> {
  return scoped(db, f).selectAll('rr').where('rr.id', '=', id).executeTakeFirst();
}

/** The request, locked for the rest of the transaction (within the scope). */
export async function lockRequest(trx: Db, f: RequestScope, id: string): Promise<RefundRequestRow | undefined> {
  const found = await findRequest(trx, f, id);
  if (!found) return undefined;
  return trx.selectFrom('refund_requests').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function lockRequestById(trx: Db, id: string): Promise<RefundRequestRow | undefined> {
  return trx.selectFrom('refund_requests').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function findRequestById(db: Db, id: string): Promise<RefundRequestRow | undefined> {
  return db.selectFrom('refund_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

export function activeRequestOf(db: Db, orderId: string): Promise<RefundRequestRow | undefined> {
  return db.selectFrom('refund_requests').selectAll().where('order_id', '=', orderId).where('status', 'in', ['requested', 'held']).executeTakeFirst();
}

export function requestsOfOrder(db: Db, orderId: string): Promise<RefundRequestRow[]> {
  return db.selectFrom('refund_requests').selectAll().where('order_id', '=', orderId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export function insertRequest(trx: Db, row: Insertable<RefundRequestsTable>): Promise<RefundRequestRow> {
  return trx.insertInto('refund_requests').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateRequest(trx: Db, id: string, patch: Updateable<RefundRequestsTable>): Promise<RefundRequestRow> {
  return trx.updateTable('refund_requests').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function lockOrder(trx: Db, orderId: string) {
  return trx.selectFrom('orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirst();
}

export function findOrder(db: Db, orderId: string) {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
}

/** Whether any license of the order was ever activated (evidence the content was used). */
export async function orderUsed(db: Db, orderId: string): Promise<boolean> {
  const row = await db
    .selectFrom('license_activations as a')
    .innerJoin('licenses as l', 'l.id', 'a.license_id')
    .select('a.id')
    .where('l.order_id', '=', orderId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** What the receipt of a subscription's order states about the recurring payments (its row as it is now). */
export function subscriptionForReceipt(db: Db, subscriptionId: string) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'status', 'billing_interval', 'amount', 'current_period_end', 'cancel_at_period_end', 'ended_at', 'next_retry_at', 'pending_plan', 'price_change'])
    .where('id', '=', subscriptionId)
    .executeTakeFirst();
}

/** A refund of the order still `pending` or `unknown`, if any (a refund in flight blocks a new request). */
export function refundInFlightOf(db: Db, orderId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('order_refunds').select('id').where('order_id', '=', orderId).where('status', 'in', ['pending', 'unknown']).executeTakeFirst();
}

/** Refund records made for a request (by approvals), newest first. */
export function refundsOfRequest(db: Db, requestId: string) {
  return db
    .selectFrom('order_refunds')
    .select(['id', 'status', 'amount', 'refunded_at'])
    .where('refund_request_id', '=', requestId)
    .orderBy('created_at', 'desc')
    .execute();
}

/** Undecided statutory requests whose auto-approval time has come (of one subscription's orders, with `subscriptionId`). */
export function dueForAutoApproval(db: Db, now: Date, limit: number, subscriptionId?: string): Promise<Pick<RefundRequestRow, 'id'>[]> {
  let q = db.selectFrom('refund_requests').select('id');
  if (subscriptionId) {
    q = q.where((eb) =>
      eb.or([eb('subscription_id', '=', subscriptionId), eb('order_id', 'in', eb.selectFrom('orders').select('orders.id').where('orders.subscription_id', '=', subscriptionId))]),
    );
  }
  return q
    .where('status', 'in', ['requested', 'held'])
    // Statutory requests (제18조) and a portal cancel's request at the seller's deadline (cancelDecisionDeadline).
    .where((eb) => eb.or([eb('statutory', '=', true), eb('source', '=', 'subscription_cancel')]))
    .where('auto_approve_at', '<=', now)
    .where('approving_since', 'is', null)
    .orderBy('auto_approve_at')
    .limit(limit)
    .execute();
}

export function approvalsInFlight(db: Db, limit: number): Promise<Pick<RefundRequestRow, 'id'>[]> {
  return db.selectFrom('refund_requests').select('id').where('approving_since', 'is not', null).orderBy('approving_since').limit(limit).execute();
}

export function storeName(db: Db, storeId: string): Promise<string> {
  return db.selectFrom('stores').select('name').where('id', '=', storeId).executeTakeFirstOrThrow().then((r) => r.name);
}
