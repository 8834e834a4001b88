import type { AppDeps } from '../deps';
import { providerOfPayment } from '../payments';
import type { CashReceiptIssued, Outcome, PaymentProvider } from '../payments/provider';
import { decryptSecret, encryptSecret } from '../platform/crypto';
import { ApiError, validationError } from '../platform/errors';
import { MESSAGES } from '../platform/messages';
import type { Mode } from '../platform/tables';
import { loadOrderView } from '../orders/service';
import type { OrderRow } from '../orders/model';
import type { OrderView } from '../orders/schemas';
import { getModeSettings } from '../stores/service';
import { CASH_RECEIPT_SYNC_JOB, cashReceiptIssueKey, enqueueCashReceiptIssue, maskIdentity } from './cash-receipt';
import { writeEvent } from '../platform/events';
import { orderViewOf } from '../orders/service';
import * as repo from './seller-cash-receipt-repo';

/**
 * A 현금영수증 the seller issues afterwards (issue 32) for a paid 계좌이체 / 가상계좌 order that has none: the buyer chose
 * none under the 의무발행 threshold, or asks later. Through the order's gateway as a receipt of its own (Toss:
 * POST /v1/cash-receipts, https://docs.tosspayments.com/reference#현금영수증-발급-요청), for what is not refunded.
 *
 * Crash-safe in three steps, like a refund: (1) one transaction locks the order, checks it and writes the receipt as
 * `requested` with its Idempotency-Key (and the number, sealed, to send again); (2) the gateway is called outside any
 * transaction; (3) a second transaction records the answer. A crash or lost answer leaves `requested`: the next request
 * for the order, or the `checkout.cash-receipt.sync` job, sends the same key again, so Toss answers the first issue
 * and nothing is issued twice. A double click waits on the order's lock and finds the same `requested` row.
 *
 * Since issue 40 the same machinery issues the receipt asked with the payment (the buyer's number, or 의무발행 to
 * 010-000-1234; src/checkout/cash-receipt.ts writes its `requested` row and enqueues the job): every row with an
 * `issue_key` is a receipt of its own at the gateway. A refusal of such a receipt is kept as `failed` with the gateway's
 * code and message and announced by `cash_receipt.failed`; the seller retries it (`retryCashReceipt`, a fresh key
 * and orderId since the refused key would replay the refusal) or issues it by hand with another number
 * (`issueSellerCashReceipt` on a failed receipt). Only a seller's own first issue, refused, is dropped instead (the
 * seller sees the refusal at once and may type again).
 *
 * Refunds: the payment's cancel does not touch such a receipt, so a refund notes what it must still cover
 * (`target_amount`, src/orders/repo.ts followRefundOnCashReceipt) and `syncSellerCashReceipt` reduces it through the
 * gateway's cancel (Toss: POST /v1/cash-receipts/{receiptKey}/cancel with `amount`, or without for all of it).
 */

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export { CASH_RECEIPT_SYNC_JOB };
/** First retry of an unanswered issue or cancel; then the job's retry schedule. */
const SYNC_RETRY_MS = 60_000;

export interface SellerCashReceiptInput {
  type: '소득공제' | '지출증빙';
  /** As typed: phone or card number (소득공제), 사업자등록번호 (지출증빙); spaces and dashes are ignored. */
  customerIdentityNumber: string;
}

/**
 * The number for a 현금영수증 type: 소득공제 with a mobile phone number (01…, 10–11 digits) or a card number (13–19
 * digits), 지출증빙 with a 10-digit 사업자등록번호. The message names what to type, in Korean.
 */
export function checkCashReceiptIdentity(type: string, typed: string): { ok: true; type: '소득공제' | '지출증빙'; identity: string } | { ok: false; message: string } {
  const digits = typed.replace(/[\s-]/g, '');
  if (type === '소득공제') {
    if (!digits) return { ok: false, message: MESSAGES.checkout.cashReceiptIncomeRequired };
    if (/^01\d{8,9}$/.test(digits) || /^\d{13,19}$/.test(digits)) return { ok: true, type, identity: digits };
    return { ok: false, message: MESSAGES.checkout.cashReceiptIncomeInvalid };
  }
  if (type === '지출증빙') {
    if (!digits) return { ok: false, message: MESSAGES.checkout.cashReceiptExpenseRequired };
    if (/^\d{10}$/.test(digits)) return { ok: true, type, identity: digits };
    return { ok: false, message: MESSAGES.checkout.cashReceiptExpenseInvalid };
  }
  return { ok: false, message: MESSAGES.checkout.cashReceiptTypeInvalid };
}

/** The order's own gateway (its provider and Toss key pair), as a refund finds it. */
async function gatewayOf(deps: Deps, order: OrderRow): Promise<PaymentProvider | null> {
  return providerOfPayment(deps, order, async () => (await getModeSettings(deps.db, order.store_id, order.mode)).raw);
}

/**
 * Step 2: the issue call for a `requested` receipt, with its own key and number. Never throws. `resend`: an earlier
 * call may have reached the gateway, so not being able to ask now is not a refusal (the row must stay).
 */
async function sendIssue(deps: Deps, order: OrderRow, row: repo.CashReceiptRow, resend: boolean): Promise<Outcome<CashReceiptIssued>> {
  try {
    const provider = await gatewayOf(deps, order);
    if (!provider) {
      return resend ? { status: 'unknown', message: MESSAGES.refunds.providerNotConfigured } : { status: 'failed', code: 'PROVIDER_NOT_CONFIGURED', message: MESSAGES.refunds.providerNotConfigured };
    }
    return await provider.issueCashReceipt({
      // Toss asks a unique orderId per cash-receipt request ("각 주문마다 고유한 값"); the payment already used the order's
      // own id, so the receipt takes it with a suffix (one seller-issued receipt per order; the key guards retries).
      orderId: cashReceiptOrderId(order.id, row.attempts),
      orderName: order.product_name,
      amount: Number(row.amount),
      type: row.type,
      identity: decryptSecret(deps.config.masterKey, row.identity_sealed!).toString('utf8'),
      idempotencyKey: row.issue_key!,
    });
  } catch (err) {
    deps.log.warn({ err, orderId: order.id }, 'cash receipt issue call threw');
    return { status: 'unknown', message: 'gateway call threw' };
  }
}

/** Step 3: records the gateway's answer; a second answer for the same receipt (a double click) changes nothing. */
async function recordIssue(deps: Deps, orderId: string, outcome: Outcome<CashReceiptIssued>, issueKey: string): Promise<'issued' | 'failed' | 'unknown'> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await repo.lockIssuedReceipt(trx, orderId);
    // Already recorded (another process, a double click), or a newer attempt took over: this answer is not the row's.
    if (!row || row.status !== 'requested' || row.issue_key !== issueKey) return row?.status === 'failed' ? 'failed' : row ? 'issued' : 'failed';
    const now = deps.clock.now();
    if (outcome.status === 'succeeded') {
      const v = outcome.value;
      await repo.markIssued(trx, orderId, { receiptKey: v.receiptKey, issueNumber: v.issueNumber, receiptUrl: v.receiptUrl, amount: v.amount, identityMasked: v.identityMasked ?? null, issueStatus: v.issueStatus ?? null, now });
      // A refund recorded while the issue was under way: the receipt is reduced next.
      if (row.target_amount !== null && row.target_amount < v.amount) await enqueueSync(trx, deps, orderId, now);
      return 'issued';
    }
    if (outcome.status === 'failed') {
      if (row.requested_by === 'seller' && row.attempts <= 1) {
        // The seller's own first issue: nothing was issued, the seller sees the refusal and may correct the number.
        await repo.deleteRequested(trx, orderId);
        return 'failed';
      }
      // A receipt the order owes (the buyer's, 의무발행, or a retry): flagged for the seller, with Toss's own words.
      const failed = await repo.markFailed(trx, orderId, { code: outcome.code, message: outcome.message, now });
      const order = (await repo.findOrder(trx, orderId))!;
      const view = await orderViewOf(trx, deps, order);
      await writeEvent(trx, deps.clock, {
        storeId: order.store_id,
        mode: order.mode,
        type: 'cash_receipt.failed',
        data: { orderId, cashReceipt: view.cashReceipt ?? null, attempts: failed.attempts, order: view },
      });
      return 'failed';
    }
    await enqueueSync(trx, deps, orderId, new Date(now.getTime() + SYNC_RETRY_MS));
    return 'unknown';
  });
}

async function enqueueSync(trx: Deps['db'], deps: Deps, orderId: string, runAt: Date): Promise<void> {
  await enqueueCashReceiptIssue(trx, deps, orderId, runAt);
}

/** Enqueues the receipt's follow-up in the caller's transaction (a refund of an order with a receipt of its own). */
export async function enqueueCashReceiptSync(trx: Deps['db'], deps: Pick<AppDeps, 'clock'>, orderId: string): Promise<void> {
  await enqueueCashReceiptIssue(trx, deps, orderId);
}

/** What the order may still be issued a receipt for; refused (CASH_RECEIPT_NOT_ALLOWED) when nothing or not a paid bank order. */
function issuableAmount(order: OrderRow): number {
  const left = order.amount - (order.refunded_amount ?? 0);
  if (order.status !== 'paid' || (order.method !== 'transfer' && order.method !== 'virtual_account') || !order.provider_payment_key || left <= 0) {
    throw new ApiError('CASH_RECEIPT_NOT_ALLOWED', { details: { status: order.status, method: order.method } });
  }
  return left;
}

/** Steps 2 and 3 for a request made by the seller (API or dashboard): the gateway's answer, or its refusal as an error. */
async function issueNow(deps: Deps, first: { order: OrderRow; row: repo.CashReceiptRow; resend: boolean }): Promise<OrderView> {
  const outcome = await sendIssue(deps, first.order, first.row, first.resend);
  const recorded = await recordIssue(deps, first.order.id, outcome, first.row.issue_key!);
  if (recorded === 'failed' && outcome.status === 'failed') {
    throw new ApiError('PG_CASH_RECEIPT_FAILED', { details: { gatewayCode: outcome.code, gatewayMessage: outcome.message } });
  }
  if (recorded === 'unknown') throw new ApiError('PG_CASH_RECEIPT_AMBIGUOUS', { details: { orderId: first.order.id } });
  // Issued after a refund raced it: reduce it now rather than wait for the job.
  await syncCashReceipt(deps, first.order.id).catch((err) => deps.log.warn({ err, orderId: first.order.id }, 'cash receipt follow-up deferred to the job'));
  return (await loadOrderView(deps.db, first.order.id, deps))!;
}

/**
 * The seller issues a 현금영수증 for the order (dashboard, or POST /admin/v1/orders/{id}/cash-receipt). Answers the
 * Order with its `cashReceipt`. On an order whose receipt the gateway refused (`failed`), this issues it by hand with
 * the number and type typed now (a fresh key). Refused: ORDER_NOT_FOUND (another store or mode), VALIDATION_FAILED (the
 * number), CASH_RECEIPT_EXISTS (one was issued or is being issued), CASH_RECEIPT_NOT_ALLOWED (not a paid 계좌이체 /
 * 가상계좌 order, or refunded in full), PG_CASH_RECEIPT_FAILED (the gateway refused; a first seller issue is not kept,
 * a receipt the order owes stays `failed`), PG_CASH_RECEIPT_AMBIGUOUS (no answer; sending the request again, or the
 * job, finishes the same issue).
 */
export async function issueSellerCashReceipt(deps: Deps, storeId: string, mode: Mode, orderId: string, input: SellerCashReceiptInput): Promise<OrderView> {
  const checked = checkCashReceiptIdentity(input.type, input.customerIdentityNumber ?? '');
  const first = await deps.db.transaction().execute(async (trx) => {
    const order = await repo.lockOrder(trx, orderId);
    if (!order || order.store_id !== storeId || order.mode !== mode) throw new ApiError('ORDER_NOT_FOUND');
    const existing = await repo.findReceipt(trx, order.id);
    // A request still waiting for the gateway's answer (a double click, a retry after a crash): the same issue again.
    if (existing?.issue_key && existing.status === 'requested' && (existing.requested_by === 'seller' || order.status === 'paid')) return { order, row: existing, resend: true };
    if (existing && existing.status !== 'failed') throw new ApiError('CASH_RECEIPT_EXISTS', { details: { status: existing.status, requestedBy: existing.requested_by } });
    // One evidence per sale: a 세금계산서 asked or issued for the order (src/tax/invoices/) rules out a 현금영수증.
    if (await repo.hasTaxInvoice(trx, order.id)) throw new ApiError('CASH_RECEIPT_TAX_INVOICE_EXISTS');
    if (!checked.ok) throw validationError([{ field: 'customerIdentityNumber', message: checked.message }]);
    const left = issuableAmount(order);
    const now = deps.clock.now();
    if (existing) {
      // Issued by hand after a refusal: the number typed now, under the next attempt's key and orderId.
      const row = await repo.restartFailed(trx, order.id, { type: checked.type, identity_masked: maskIdentity(checked.identity), identity_sealed: encryptSecret(deps.config.masterKey, checked.identity), amount: left, now });
      return { order, row, resend: false };
    }
    const row = await repo.insertSellerReceipt(trx, {
      order_id: order.id,
      store_id: order.store_id,
      mode: order.mode,
      type: checked.type,
      identity_masked: maskIdentity(checked.identity),
      identity_sealed: encryptSecret(deps.config.masterKey, checked.identity),
      issue_key: cashReceiptIssueKey(order.id, 1),
      amount: left,
      now,
    });
    return { order, row, resend: false };
  });
  return issueNow(deps, first);
}

/**
 * The seller retries a refused receipt (dashboard) with the number it was asked for: a `failed` receipt is sent again
 * under the next attempt's key (the refused key would only replay the refusal). Idempotent: a double click finds the
 * retry `requested` and sends the same key again; an issued receipt is answered as it is. Errors as
 * `issueSellerCashReceipt`; CASH_RECEIPT_NOT_FOUND when the order has no receipt to retry.
 */
export async function retryCashReceipt(deps: Deps, storeId: string, mode: Mode, orderId: string): Promise<OrderView> {
  const first = await deps.db.transaction().execute(async (trx) => {
    const order = await repo.lockOrder(trx, orderId);
    if (!order || order.store_id !== storeId || order.mode !== mode) throw new ApiError('ORDER_NOT_FOUND');
    const existing = await repo.findReceipt(trx, order.id);
    if (!existing || !existing.issue_key || (existing.status !== 'failed' && existing.status !== 'requested')) {
      if (existing && existing.status !== 'failed' && existing.status !== 'requested') return { order, row: existing, done: true as const };
      throw new ApiError('CASH_RECEIPT_NOT_ALLOWED', { details: { status: existing?.status ?? null } });
    }
    if (existing.status === 'requested') {
      if (order.status !== 'paid') throw new ApiError('CASH_RECEIPT_NOT_ALLOWED', { details: { status: order.status, method: order.method } });
      return { order, row: existing, resend: true, done: false as const };
    }
    if (!existing.identity_sealed) throw new ApiError('CASH_RECEIPT_NOT_ALLOWED', { details: { status: existing.status } });
    const left = issuableAmount(order);
    const row = await repo.restartFailed(trx, order.id, { type: existing.type, identity_masked: existing.identity_masked, identity_sealed: existing.identity_sealed, amount: left, now: deps.clock.now() });
    return { order, row, resend: false, done: false as const };
  });
  if (first.done) return (await loadOrderView(deps.db, first.order.id, deps))!;
  return issueNow(deps, first);
}

/** Thrown by the job when the gateway could not answer: it retries later. */
export class CashReceiptRetryLater extends Error {}

/**
 * Brings a receipt of its own at the gateway (any row with an issue key: the buyer's, 의무발행, the seller's) in line:
 * sends an unanswered issue (same key) once the order is paid, then reduces or cancels it to what the order still has
 * paid after refunds (`target_amount`). Safe to run twice: each cancel's key is derived from the amount it leaves, and
 * the record only moves from the amount it started from.
 */
export async function syncCashReceipt(deps: Deps, orderId: string): Promise<void> {
  let row = await repo.findReceipt(deps.db, orderId);
  if (!row || !row.issue_key) return;
  const order = (await repo.findOrder(deps.db, orderId))!;
  if (row.status === 'requested') {
    // A 가상계좌 waiting for its deposit is issued after it (the deposit enqueues this job again).
    if (order.status === 'awaiting_deposit' || order.status === 'expired') return;
    const recorded = await recordIssue(deps, orderId, await sendIssue(deps, order, row, true), row.issue_key);
    if (recorded === 'unknown') throw new CashReceiptRetryLater('cash receipt issue unanswered');
    row = await repo.findReceipt(deps.db, orderId);
    if (!row || row.status === 'requested') return;
  }
  const covered = Number(row.amount ?? 0);
  const target = row.target_amount;
  if (target === null || target >= covered || row.status === 'canceled' || row.status === 'failed' || !row.receipt_key) return;
  const provider = await gatewayOf(deps, order);
  if (!provider) throw new CashReceiptRetryLater('no provider for the order');
  const cancel = await provider.cancelCashReceipt({ receiptKey: row.receipt_key, ...(target > 0 ? { amount: covered - target } : {}), idempotencyKey: `cash-receipt-cancel-${orderId}-${target}` });
  if (cancel.status === 'unknown') throw new CashReceiptRetryLater(cancel.message);
  if (cancel.status === 'failed') {
    deps.log.error({ orderId, gatewayCode: cancel.code }, 'the gateway refused to reduce a cash receipt');
    return;
  }
  await deps.db.transaction().execute((trx) => repo.markReduced(trx, orderId, covered, target, deps.clock.now()));
}
/** The name refunds use (issue 32). */
export const syncSellerCashReceipt = syncCashReceipt;

export function registerSellerCashReceiptJobs(deps: Deps & Pick<AppDeps, 'worker'>): void {
  deps.worker.registerJob(CASH_RECEIPT_SYNC_JOB, async (payload) => {
    await syncCashReceipt(deps, String(payload.orderId));
  });
}

/**
 * The orderId a separately issued 현금영수증 carries at the gateway: the order's id and `-cr`, `-cr2`… for a retry after a
 * refusal (Toss: 6–64 of [A-Za-z0-9-_.], "각 주문마다 고유한 값").
 */
export function cashReceiptOrderId(orderId: string, attempt = 1): string {
  return attempt <= 1 ? `${orderId}-cr` : `${orderId}-cr${attempt}`;
}
