import type { Selectable } from 'kysely';
import type { Db } from '../db';
import type { OrderRow } from '../orders/model';
import type { OrderCashReceiptsTable } from '../orders/tables';
import { cashReceiptIssueKey } from './cash-receipt';

// The queries of a 현금영수증 the seller issues afterwards (src/checkout/seller-cash-receipt.ts); writes run on the
// caller's transaction.

export type CashReceiptRow = Selectable<OrderCashReceiptsTable>;

export function lockOrder(trx: Db, orderId: string): Promise<OrderRow | undefined> {
  return trx.selectFrom('orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirst();
}

export function findOrder(db: Db, orderId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
}

export function findReceipt(db: Db, orderId: string): Promise<CashReceiptRow | undefined> {
  return db.selectFrom('order_cash_receipts').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}

/** The order's receipt of its own at the gateway (one with an issue key: the buyer's, 의무발행 or the seller's), locked. */
export function lockIssuedReceipt(trx: Db, orderId: string): Promise<CashReceiptRow | undefined> {
  return trx.selectFrom('order_cash_receipts').selectAll().where('order_id', '=', orderId).where('issue_key', 'is not', null).forUpdate().executeTakeFirst();
}

export async function insertSellerReceipt(
  trx: Db,
  v: Pick<CashReceiptRow, 'order_id' | 'store_id' | 'mode' | 'type' | 'identity_masked' | 'identity_sealed' | 'issue_key' | 'amount'> & { now: Date },
): Promise<CashReceiptRow> {
  return trx
    .insertInto('order_cash_receipts')
    .values({
      order_id: v.order_id,
      store_id: v.store_id,
      mode: v.mode,
      type: v.type,
      identity_masked: v.identity_masked,
      identity_sealed: v.identity_sealed,
      issue_key: v.issue_key,
      requested_by: 'seller',
      receipt_key: null,
      issue_number: null,
      receipt_url: null,
      amount: v.amount,
      target_amount: null,
      attempts: 1,
      status: 'requested',
      created_at: v.now,
      updated_at: v.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What the gateway answered: its receipt key, issue number, link, amount and (when it says) the masked number. */
export async function markIssued(
  trx: Db,
  orderId: string,
  v: { receiptKey: string; issueNumber: string | null; receiptUrl: string | null; amount: number; identityMasked?: string | null; issueStatus?: string | null; now: Date },
): Promise<CashReceiptRow> {
  return trx
    .updateTable('order_cash_receipts')
    .set({
      receipt_key: v.receiptKey,
      issue_number: v.issueNumber,
      receipt_url: v.receiptUrl,
      amount: v.amount,
      status: 'issued',
      identity_sealed: null,
      ...(v.identityMasked ? { identity_masked: v.identityMasked } : {}),
      issue_status: v.issueStatus ?? null,
      failure_code: null,
      failure_message: null,
      updated_at: v.now,
    })
    .where('order_id', '=', orderId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The gateway refused the issue: kept `failed` with its code and message (the sealed number stays for a retry). */
export async function markFailed(trx: Db, orderId: string, v: { code: string; message: string; now: Date }): Promise<CashReceiptRow> {
  return trx
    .updateTable('order_cash_receipts')
    .set({ status: 'failed', failure_code: v.code.slice(0, 100), failure_message: v.message.slice(0, 500), updated_at: v.now })
    .where('order_id', '=', orderId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A failed receipt sent again: `requested` under the next attempt's key, with the number and type given. */
export async function restartFailed(
  trx: Db,
  orderId: string,
  v: Pick<CashReceiptRow, 'type' | 'identity_masked' | 'identity_sealed' | 'amount'> & { now: Date },
): Promise<CashReceiptRow> {
  const row = await trx.selectFrom('order_cash_receipts').select('attempts').where('order_id', '=', orderId).where('status', '=', 'failed').executeTakeFirstOrThrow();
  const attempts = Math.max(1, row.attempts) + 1;
  return trx
    .updateTable('order_cash_receipts')
    .set({
      type: v.type,
      identity_masked: v.identity_masked,
      identity_sealed: v.identity_sealed,
      amount: v.amount,
      attempts,
      issue_key: cashReceiptIssueKey(orderId, attempts),
      status: 'requested',
      failure_code: null,
      failure_message: null,
      updated_at: v.now,
    })
    .where('order_id', '=', orderId)
    .where('status', '=', 'failed')
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteRequested(trx: Db, orderId: string): Promise<void> {
  await trx.deleteFrom('order_cash_receipts').where('order_id', '=', orderId).where('requested_by', '=', 'seller').where('status', '=', 'requested').execute();
}

/** Records a cancel at the gateway: the receipt covers `amount` now (0: canceled). Only if nobody recorded it first. */
export async function markReduced(trx: Db, orderId: string, from: number, amount: number, now: Date): Promise<void> {
  await trx
    .updateTable('order_cash_receipts')
    .set({ amount, status: amount > 0 ? 'partially_canceled' : 'canceled', updated_at: now })
    .where('order_id', '=', orderId)
    .where('amount', '=', from)
    .execute();
}

/** Whether a 세금계산서 was asked or issued for the order (a canceled request does not count). */
export async function hasTaxInvoice(db: Db, orderId: string): Promise<boolean> {
  const row = await db.selectFrom('tax_invoices').select('id').where('order_id', '=', orderId).where('kind', '=', 'original').where('status', '!=', 'canceled').executeTakeFirst();
  return !!row;
}
