import type { Db } from '../db';
import type { CashReceiptIssued } from '../payments/provider';
import type { CheckoutAttempt } from './tables';
import type { OrderRow } from '../orders/model';
import { cashReceiptMandatory } from '../stores/repo';

/** 현금영수증 의무발행: from this amount a cash-type sale is issued one whatever the buyer chose (조세특례제한법 시행령 §121-3). */
export const CASH_RECEIPT_MANDATORY_MIN_AMOUNT = 100_000;
/** The National Tax Service's number for a self-issued (자진발급) 현금영수증 when the buyer gives none: 010-000-1234. */
export const NTS_SELF_ISSUE_NUMBER = '0100001234';

/**
 * The law for a 현금영수증 의무발행업종 store (stores.cash_receipt_mandatory): a 계좌이체 / 가상계좌 sale of 100,000원 or
 * more without the buyer's own 현금영수증 gets one as 소득공제 to the NTS self-issue number. Other sales are unchanged.
 */
export async function withMandatoryCashReceipt(db: Db, storeId: string, attempt: CheckoutAttempt, amount: number): Promise<CheckoutAttempt> {
  // A 세금계산서 asked instead is the sale's evidence: 의무발행 does not apply to a sale with a 세금계산서.
  if (attempt.cashReceipt || attempt.taxInvoice || (attempt.method !== 'transfer' && attempt.method !== 'virtual_account') || amount < CASH_RECEIPT_MANDATORY_MIN_AMOUNT) return attempt;
  if (!(await cashReceiptMandatory(db, storeId))) return attempt;
  return { ...attempt, cashReceipt: { type: '소득공제', identity: NTS_SELF_ISSUE_NUMBER, requestedBy: 'mandatory' } };
}

/** Whether a bank payment of `amount` on this store would be issued a 현금영수증 whatever the buyer chose (the page says so). */
export async function mandatoryCashReceiptApplies(db: Db, storeId: string, amount: number): Promise<boolean> {
  return amount >= CASH_RECEIPT_MANDATORY_MIN_AMOUNT && (await cashReceiptMandatory(db, storeId));
}

/**
 * 현금영수증 kept with the order (table order_cash_receipts, migration 071): what the buyer asked for at the payment,
 * and what the gateway issued (Toss's Payment.cashReceipt). The identity number is kept masked only.
 */
export function maskIdentity(identity: string): string {
  if (identity.length <= 4) return '*'.repeat(identity.length);
  return `${identity.slice(0, 3)}${'*'.repeat(identity.length - 7 > 0 ? identity.length - 7 : 0)}${identity.slice(-4)}`;
}

/** Records the order's 현금영수증 in the payment's transaction: requested (a 가상계좌 before its deposit) or issued. */
export async function recordCashReceipt(trx: Db, order: Pick<OrderRow, 'id' | 'store_id' | 'mode'>, attempt: CheckoutAttempt | null, issued: CashReceiptIssued | null, now: Date): Promise<void> {
  const asked = attempt?.cashReceipt ?? null;
  if (!asked && !issued) return;
  await trx
    .insertInto('order_cash_receipts')
    .values({
      order_id: order.id,
      store_id: order.store_id,
      mode: order.mode,
      type: issued?.type ?? asked!.type,
      identity_masked: asked ? maskIdentity(asked.identity) : null,
      requested_by: asked?.requestedBy ?? 'buyer',
      receipt_key: issued?.receiptKey ?? null,
      issue_number: issued?.issueNumber ?? null,
      receipt_url: issued?.receiptUrl ?? null,
      amount: issued?.amount ?? null,
      status: issued ? 'issued' : 'requested',
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('order_id').doNothing())
    .execute();
}

/** The gateway's current 현금영수증 (after a deposit, or after a cancel reduced it): issued, reduced or canceled. */
export async function updateCashReceipt(trx: Db, orderId: string, issued: CashReceiptIssued | null, paidAmount: number, now: Date): Promise<void> {
  const row = await trx.selectFrom('order_cash_receipts').selectAll().where('order_id', '=', orderId).executeTakeFirst();
  if (!row) return;
  if (!issued) {
    // Toss drops Payment.cashReceipt's amount to what remains; a fully canceled payment's receipt is canceled.
    if (row.status !== 'requested') await trx.updateTable('order_cash_receipts').set({ status: 'canceled', amount: 0, updated_at: now }).where('order_id', '=', orderId).execute();
    return;
  }
  const status = issued.amount <= 0 ? 'canceled' : issued.amount < paidAmount ? 'partially_canceled' : 'issued';
  await trx
    .updateTable('order_cash_receipts')
    .set({ type: issued.type, receipt_key: issued.receiptKey, issue_number: issued.issueNumber, receipt_url: issued.receiptUrl, amount: issued.amount, status, updated_at: now })
    .where('order_id', '=', orderId)
    .execute();
}
