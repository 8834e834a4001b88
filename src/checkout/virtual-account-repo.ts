import type { Selectable } from 'kysely';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { OrderVirtualAccountsTable } from '../orders/tables';
import type { OrderRow } from '../orders/model';

// The queries of 가상계좌 (src/checkout/virtual-account.ts); every write runs on the caller's transaction.

export type VirtualAccountRow = Selectable<OrderVirtualAccountsTable>;

export async function insertVirtualAccount(trx: Db, row: Omit<VirtualAccountRow, 'created_at' | 'updated_at'> & { created_at: Date }): Promise<void> {
  await trx.insertInto('order_virtual_accounts').values({ ...row, updated_at: row.created_at }).execute();
}

export function findVirtualAccount(db: Db, orderId: string): Promise<VirtualAccountRow | undefined> {
  return db.selectFrom('order_virtual_accounts').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}

export function findVirtualAccountInStore(db: Db, storeId: string, mode: Mode, orderId: string): Promise<VirtualAccountRow | undefined> {
  return db.selectFrom('order_virtual_accounts').selectAll().where('order_id', '=', orderId).where('store_id', '=', storeId).where('mode', '=', mode).executeTakeFirst();
}

export async function virtualAccountsOf(db: Db, orderIds: string[]): Promise<Map<string, VirtualAccountRow>> {
  if (!orderIds.length) return new Map();
  const rows = await db.selectFrom('order_virtual_accounts').selectAll().where('order_id', 'in', orderIds).execute();
  return new Map(rows.map((r) => [r.order_id, r]));
}

/** Locks a 가상계좌 order still waiting for its deposit; undefined once it moved on (paid, expired). */
export function lockAwaitingOrder(trx: Db, orderId: string): Promise<OrderRow | undefined> {
  return trx.selectFrom('orders').selectAll().where('id', '=', orderId).where('status', '=', 'awaiting_deposit').forUpdate().executeTakeFirst();
}

export async function markOrderDeposited(trx: Db, orderId: string, now: Date): Promise<OrderRow> {
  await trx.updateTable('order_virtual_accounts').set({ deposited_at: now, updated_at: now }).where('order_id', '=', orderId).execute();
  return trx.updateTable('orders').set({ status: 'paid', paid_at: now, updated_at: now }).where('id', '=', orderId).returningAll().executeTakeFirstOrThrow();
}

export async function markOrderExpired(trx: Db, orderId: string, now: Date): Promise<OrderRow> {
  await trx.updateTable('order_virtual_accounts').set({ expired_at: now, updated_at: now }).where('order_id', '=', orderId).execute();
  return trx.updateTable('orders').set({ status: 'expired', updated_at: now }).where('id', '=', orderId).returningAll().executeTakeFirstOrThrow();
}

/** Orders whose 가상계좌 is past its due date and still waiting (the expiry task). */
export function findOverdue(db: Db, now: Date, limit = 100): Promise<Array<{ order_id: string }>> {
  return db
    .selectFrom('order_virtual_accounts')
    .innerJoin('orders', 'orders.id', 'order_virtual_accounts.order_id')
    .select('order_virtual_accounts.order_id')
    .where('order_virtual_accounts.due_at', '<=', now)
    .where('order_virtual_accounts.deposited_at', 'is', null)
    .where('order_virtual_accounts.expired_at', 'is', null)
    .where('orders.status', '=', 'awaiting_deposit')
    .orderBy('order_virtual_accounts.due_at')
    .limit(limit)
    .execute();
}

export async function setRefundAccount(db: Db, orderId: string, v: { bankCode: string; accountSealed: string; holderName: string; at: Date }): Promise<void> {
  await db
    .updateTable('order_virtual_accounts')
    .set({ refund_bank_code: v.bankCode, refund_account_sealed: v.accountSealed, refund_holder_name: v.holderName, refund_account_at: v.at, updated_at: v.at })
    .where('order_id', '=', orderId)
    .execute();
}

/** The refund account of a non-가상계좌 order (a 휴대폰 결제 after its month; migration 107). */
export function findOtherRefundAccount(db: Db, orderId: string) {
  return db.selectFrom('order_refund_accounts').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}

export async function upsertOtherRefundAccount(db: Db, v: { orderId: string; storeId: string; mode: Mode; bankCode: string; accountSealed: string; holderName: string; at: Date }): Promise<void> {
  await db
    .insertInto('order_refund_accounts')
    .values({ order_id: v.orderId, store_id: v.storeId, mode: v.mode, refund_bank_code: v.bankCode, refund_account_sealed: v.accountSealed, refund_holder_name: v.holderName, created_at: v.at, updated_at: v.at })
    .onConflict((oc) => oc.column('order_id').doUpdateSet({ refund_bank_code: v.bankCode, refund_account_sealed: v.accountSealed, refund_holder_name: v.holderName, updated_at: v.at }))
    .execute();
}

export function findOrderRow(db: Db, orderId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
}

/** The 현금영수증 the buyer asked for with a 가상계좌 payment, while it is not issued yet (null otherwise). */
export async function requestedCashReceiptType(db: Db, orderId: string): Promise<'소득공제' | '지출증빙' | null> {
  // Only a receipt left to the payment window (before issue 40); one with an issue key is issued on its own after the deposit.
  const row = await db.selectFrom('order_cash_receipts').select(['type', 'status', 'issue_key']).where('order_id', '=', orderId).executeTakeFirst();
  return row?.status === 'requested' && !row.issue_key ? row.type : null;
}
