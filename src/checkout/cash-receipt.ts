import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { enqueueJob } from '../jobs/queue';
import { encryptSecret } from '../platform/crypto';
import type { CashReceiptIssued } from '../payments/provider';
import type { CheckoutAttempt } from './tables';
import type { OrderRow } from '../orders/model';
import { cashReceiptMandatory } from '../stores/repo';

/**
 * 현금영수증 의무발행: from this amount (VAT included) a cash-type sale is issued one whatever the buyer chose — from the
 * statute: 소득세법 제162조의3 ④ (법인세법 제117조의2 ④), within 5 days to 010-000-1234 per 소득세법 시행령 제210조의3.
 */
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

/**
 * Records the order's 현금영수증 in the payment's transaction (issue 40). Toss's payment window takes the receipt type
 * only, never the number, so it is told 미발행 (src/pages/pay/toss-view.ts) and the receipt asked on our page — the
 * buyer's number, or 의무발행 to 010-000-1234 — is issued through POST /v1/cash-receipts afterwards: the row is written
 * here `requested` with its Idempotency-Key and the number sealed, BEFORE any call, and a job sends it (at once for a
 * transfer, after the deposit for a 가상계좌; src/checkout/seller-cash-receipt.ts). A crash between the call and its
 * record leaves `requested`, and the job sends the same key again: Toss answers the first issue, never a second.
 * `issued`: the gateway already reports a receipt for the payment (an older window that issued one): that is recorded
 * as the gateway says, and nothing more is issued.
 */
export async function recordCashReceipt(
  trx: Db,
  deps: Pick<AppDeps, 'clock' | 'config'>,
  order: Pick<OrderRow, 'id' | 'store_id' | 'mode' | 'amount' | 'status'>,
  attempt: CheckoutAttempt | null,
  issued: CashReceiptIssued | null,
  now: Date,
): Promise<void> {
  const asked = attempt?.cashReceipt ?? null;
  if (!asked && !issued) return;
  if (issued) {
    await trx
      .insertInto('order_cash_receipts')
      .values({
        order_id: order.id,
        store_id: order.store_id,
        mode: order.mode,
        type: issued.type,
        identity_masked: issued.identityMasked ?? (asked ? maskIdentity(asked.identity) : null),
        requested_by: asked?.requestedBy ?? 'buyer',
        receipt_key: issued.receiptKey,
        issue_number: issued.issueNumber,
        receipt_url: issued.receiptUrl,
        amount: issued.amount,
        status: 'issued',
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('order_id').doNothing())
      .execute();
    return;
  }
  const inserted = await trx
    .insertInto('order_cash_receipts')
    .values({
      order_id: order.id,
      store_id: order.store_id,
      mode: order.mode,
      type: asked!.type,
      identity_masked: maskIdentity(asked!.identity),
      identity_sealed: encryptSecret(deps.config.masterKey, asked!.identity),
      issue_key: cashReceiptIssueKey(order.id, 1),
      attempts: 1,
      requested_by: asked!.requestedBy,
      receipt_key: null,
      issue_number: null,
      receipt_url: null,
      amount: order.amount,
      status: 'requested',
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('order_id').doNothing())
    .returning('order_id')
    .executeTakeFirst();
  if (inserted && order.status === 'paid') await enqueueCashReceiptIssue(trx, deps, order.id);
}

/**
 * A 가상계좌's deposit, in its transaction: the receipt asked with the payment is sent now (the job), or — when the
 * gateway reports one issued with the deposit (an older window's choice) — recorded as the gateway says.
 */
export async function cashReceiptOnDeposit(trx: Db, deps: Pick<AppDeps, 'clock'>, order: Pick<OrderRow, 'id' | 'amount'>, issued: CashReceiptIssued | null, now: Date): Promise<void> {
  if (issued) return updateCashReceipt(trx, order.id, issued, order.amount, now);
  const row = await trx.selectFrom('order_cash_receipts').select(['status', 'issue_key']).where('order_id', '=', order.id).executeTakeFirst();
  if (row?.status === 'requested' && row.issue_key) await enqueueCashReceiptIssue(trx, deps, order.id);
}

/** The Idempotency-Key of an issue attempt: the same on every resend of that attempt, a new one for a retry after a refusal. */
export function cashReceiptIssueKey(orderId: string, attempt: number): string {
  return attempt <= 1 ? `cash-receipt-${orderId}` : `cash-receipt-${orderId}-${attempt}`;
}

/** The job that sends a `requested` receipt (and later reduces it after refunds), enqueued in the caller's transaction. */
export const CASH_RECEIPT_SYNC_JOB = 'checkout.cash-receipt.sync';
export async function enqueueCashReceiptIssue(trx: Db, deps: Pick<AppDeps, 'clock'>, orderId: string, runAt?: Date): Promise<void> {
  await enqueueJob(trx, deps.clock, { name: CASH_RECEIPT_SYNC_JOB, payload: { orderId }, ...(runAt ? { runAt } : {}), dedupeKey: `${CASH_RECEIPT_SYNC_JOB}:${orderId}` });
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
