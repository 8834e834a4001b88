import { followRefundOnCashReceipt } from '../orders/repo';
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { enqueueJob } from '../jobs/queue';
import { loadOrderView } from '../orders/service';
import type { OrderRow } from '../orders/model';
import type { OrderView } from '../orders/schemas';
import type { RefundSource } from '../orders/tables';
import { providerOfPayment, providerTraits } from '../payments';
import type { Outcome, RefundResult } from '../payments/provider';
import { ApiError } from '../platform/errors';
import { writeEvent } from '../platform/events';
import { newId } from '../platform/ids';
import type { Mode } from '../platform/tables';
import { getModeSettings } from '../stores/service';
import { refundAccountOf } from '../checkout/virtual-account';
import { enqueueCashReceiptSync, syncSellerCashReceipt } from '../checkout/seller-cash-receipt';
import { receiptUrl } from '../orders/model';
import { fullOnlyMethodName, methodRefundRule } from './method-rules';
import { afterRefund, assertRefundable, DEFAULT_GATEWAY_REASON, refundableAmount, refundView, type RefundRow, type RefundView } from './model';
import * as repo from './repo';
import { formatUsd, refundPresentmentCents } from '../payments/foreign';
import { afterOrderRefunded } from '../subscriptions/cancel/withdrawal';
import { MESSAGES } from '../platform/messages';
import { counter } from '../platform/metrics-registry';

export { refundableAmount } from './model';
export type { RefundView, RefundStatus } from './model';
export type { OrderView } from '../orders/schemas';
export type { RefundSource } from '../orders/tables';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export const RECONCILE_JOB = 'refunds.reconcile';
/** First look at an unknown refund; then the job retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
export const RECONCILE_DELAY_MS = 60_000;

export interface RefundOrderInput {
  storeId: string;
  mode: Mode;
  orderId: string;
  /** The API key's product range; null = every product. An order outside it answers ORDER_NOT_FOUND. */
  productIds?: string[] | null;
  /** Integer won; default everything still refundable. */
  amount?: number;
  reason?: string | null;
  /** A full refund revokes the order's licenses unless this is true. */
  keepLicenses?: boolean;
  /** Set when approving a refund request: that request does not count as pending, and the refund links to it. */
  refundRequestId?: string | null;
  source: RefundSource;
  /**
   * The caller's idempotency key (the API's Idempotency-Key). A second call with the same key does not refund again:
   * it answers the first refund's current state (200 once it succeeded, PG_REFUND_FAILED / PG_REFUND_AMBIGUOUS
   * otherwise), or IDEMPOTENCY_KEY_CONFLICT when the key was used for another order or amount.
   */
  requestKey?: string | null;
  /**
   * With `requestKey`: a second call with the same key answers the first refund as it stands (`replayed: true`,
   * whatever its status, even `pending` while the first call still waits on the gateway) instead of its error.
   * The dashboard's form uses it so a double submit shows the refund in progress or made, never a 5xx.
   */
  answerReplay?: boolean;
}

export interface RefundOrderResult {
  refund: RefundView;
  order: OrderView;
  /** Set when `answerReplay` answered an earlier refund made with the same `requestKey`. */
  replayed?: boolean;
}

/**
 * Refunds (part of) a paid order, in three steps that survive a crash between any two of them:
 * 1. one transaction locks the order, runs the documented checks (see `assertRefundable`) and records a `pending`
 *    refund with its gateway idempotency key;
 * 2. the gateway is asked outside any transaction;
 * 3. a second transaction records the outcome: succeeded (order updated, licenses revoked on a full refund,
 *    `order.refunded` in the outbox), failed (PG_REFUND_FAILED) or unknown (PG_REFUND_AMBIGUOUS; the
 *    `refunds.reconcile` job settles it). A process dying after step 1 leaves `pending`, which a sweep hands to
 *    the same reconciliation.
 */
export async function refundOrder(deps: Deps, input: RefundOrderInput): Promise<RefundOrderResult> {
  const first = await deps.db.transaction().execute(async (trx) => {
    const order = await repo.lockOrder(trx, { storeId: input.storeId, mode: input.mode, productIds: input.productIds ?? null }, input.orderId);
    if (order && input.requestKey) {
      const earlier = await repo.findByRequestKey(trx, input.storeId, input.mode, input.requestKey);
      if (earlier) {
        if (earlier.order_id !== order.id || (input.amount !== undefined && input.amount !== earlier.amount)) throw new ApiError('IDEMPOTENCY_KEY_CONFLICT');
        return { order, refund: earlier, replay: true };
      }
    }
    const blockers = order ? await repo.refundBlockers(trx, order.id, input.refundRequestId ?? null) : { activeRequest: false, refundInFlight: false };
    const amount = assertRefundable({ order, amount: input.amount, ...blockers });
    // PayPal (issue 41): the seller refunds won; the dollars given back are fixed here, before the gateway is called, as
    // the same fraction of the order (rounded half up to the cent), the last refund taking every cent left.
    let presentmentAmount: number | null = null;
    if (order!.presentment_currency && order!.presentment_amount != null) {
      const refundedCents = await repo.presentmentRefunded(trx, order!.id);
      presentmentAmount = refundPresentmentCents({ krw: order!.amount, cents: order!.presentment_amount }, { krw: order!.refunded_amount ?? 0, cents: refundedCents }, amount);
      if (presentmentAmount <= 0) throw new ApiError('REFUND_AMOUNT_INVALID', { message: MESSAGES.refunds.presentmentTooSmall(formatUsd(1)) });
    }
    const now = deps.clock.now();
    // The method's own money rules (issue 41): 휴대폰 and 상품권 refund only in full; a 휴대폰 결제 after its KST month and
    // a deposited 가상계좌 go back only to the buyer's own account (Toss's refundReceiveAccount).
    const rule = methodRefundRule(order!, now);
    const left = refundableAmount(order!);
    if (rule.fullOnly && amount !== left) {
      throw new ApiError('REFUND_PARTIAL_NOT_ALLOWED', { message: MESSAGES.refunds.partialNotAllowed(fullOnlyMethodName(order!.method), left), details: { method: order!.method, refundableAmount: left } });
    }
    if (rule.needsAccount && order!.provider_payment_key && !(await refundAccountOf(trx, deps.config.masterKey, order!.id))) {
      throw new ApiError('REFUND_ACCOUNT_REQUIRED', {
        ...(rule.needsAccount === 'phone_after_month' ? { message: MESSAGES.refunds.phoneAccountRequired } : {}),
        details: { receiptUrl: receiptUrl(deps.config.publicBaseUrl, order!.id, order!.receipt_token), reason: rule.needsAccount },
      });
    }
    const id = newId('rf', deps.clock);
    const refund = await repo.insertRefund(trx, {
      presentment_amount: presentmentAmount,
      id,
      order_id: order!.id,
      store_id: order!.store_id,
      mode: order!.mode,
      amount,
      reason: input.reason ? input.reason : null,
      status: 'pending',
      // One key per refund record, reused by every retry of this refund and only of this one.
      provider_idempotency_key: `refund-${id}`,
      error: null,
      refund_request_id: input.refundRequestId ?? null,
      keep_licenses: input.keepLicenses ?? false,
      source: input.source,
      request_key: input.requestKey ?? null,
      created_at: now,
      refunded_at: null,
      updated_at: now,
    });
    return { order: order!, refund, replay: false };
  });

  const { order } = first;
  if (first.replay && input.answerReplay) {
    return { refund: refundView(first.refund), order: (await loadOrderView(deps.db, order.id, deps))!, replayed: true };
  }
  const { row: settled, order: after } = first.replay
    ? { row: first.refund, order: null }
    : await settle(deps, first.refund.id, await askGateway(deps, order, first.refund));
  const view = refundView(settled);
  if (settled.status === 'failed') {
    throw new ApiError('PG_REFUND_FAILED', { details: { refundId: settled.id, gatewayCode: settled.failure_code, gatewayMessage: settled.error } });
  }
  if (settled.status === 'unknown' || settled.status === 'pending') {
    throw new ApiError('PG_REFUND_AMBIGUOUS', { details: { refundId: settled.id } });
  }
  // A 현금영수증 of its own at the gateway (the seller's, or since issue 40 the buyer's and 의무발행) follows the refund at
  // once (the queued job is the fallback; a receipt that came with the payment followed the payment's cancel).
  let synced = false;
  const cr = after?.cashReceipt;
  if (cr && (cr.requestedBy === 'seller' || cr.status === 'issued' || cr.status === 'partially_canceled')) {
    synced = await syncSellerCashReceipt(deps, order.id).then(
      () => true,
      (err) => (deps.log.warn({ err, orderId: order.id }, 'cash receipt follow-up deferred to the job'), false),
    );
  }
  // The order as the succeeding transaction left it (a replay reads it afresh).
  const orderView = after && !synced ? after : await loadOrderView(deps.db, order.id, deps);
  return { refund: view, order: orderView! };
}

/** The refund call to the order's own gateway. Never throws: anything unexpected reads as `unknown`. */
export async function askGateway(deps: Deps, order: OrderRow, refund: RefundRow): Promise<Outcome<RefundResult>> {
  try {
    // The order's provider and credential set (a subscription's may be the 자동결제 one), not the store's current
    // choice: a refund goes back where the money came from.
    const provider = await providerOfPayment(deps, order, async () => (await getModeSettings(deps.db, order.store_id, order.mode)).raw);
    if (!provider || !order.provider_payment_key) {
      return { status: 'failed', code: 'PROVIDER_NOT_CONFIGURED', message: MESSAGES.refunds.providerNotConfigured };
    }
    // A partial cancel on top of one made elsewhere (Toss's merchant admin) would refund the buyer twice for one
    // intention. Toss's `refundableAmount` guard is deprecated (https://docs.tosspayments.com/reference#결제-취소: use
    // the Idempotency-Key instead, which only stops retries), so the balance is read from Toss first and the refund is
    // refused when it is not what our books say. A full refund needs no look: Toss refuses more than it holds.
    const ours = refundableAmount(order);
    // A PayPal order's balance at Toss is in US cents: held against the cents our books still hold.
    const presentment = order.presentment_currency && refund.presentment_amount != null ? { amount: refund.presentment_amount, currency: order.presentment_currency } : null;
    const oursAtGateway = presentment ? order.presentment_amount! - (await repo.presentmentRefunded(deps.db, order.id)) : ours;
    if (providerTraits(order.provider).checksBalanceBeforePartialRefund && refund.amount < ours) {
      const look = await provider.lookupPayment(order.provider_payment_key);
      if (look.status === 'succeeded' && look.value.balanceAmount !== oursAtGateway) {
        return { status: 'failed', code: 'NOT_MATCHES_REFUNDABLE_AMOUNT', message: MESSAGES.refunds.gatewayBalanceDiffers(look.value.balanceAmount, oursAtGateway) };
      }
      // Toss's own word on the payment (Payment.isPartialCancelable false: only a full cancel), whatever the method.
      if (look.status === 'succeeded' && look.value.partialCancelable === false) {
        return { status: 'failed', code: 'NOT_PARTIAL_CANCELABLE', message: MESSAGES.refunds.gatewayNotPartialCancelable };
      }
    }
    // Where the money goes back: the buyer's account for a deposited 가상계좌 and for a 휴대폰 결제 after its KST month.
    const needsAccount = methodRefundRule(order, refund.created_at).needsAccount;
    return await provider.refund({
      paymentKey: order.provider_payment_key,
      amount: refund.amount,
      reason: refund.reason ?? DEFAULT_GATEWAY_REASON,
      idempotencyKey: refund.provider_idempotency_key,
      refundReceiveAccount: needsAccount ? await refundAccountOf(deps.db, deps.config.masterKey, order.id) : null,
      presentment,
    });
  } catch (err) {
    deps.log.warn({ err, refundId: refund.id }, 'refund gateway call threw');
    return { status: 'unknown', message: MESSAGES.refunds.providerCallFailed };
  }
}

/**
 * Records a gateway outcome for a pending or unknown refund. Safe to call twice (a late answer after
 * reconciliation, two reconcilers): a refund already succeeded or failed is returned unchanged.
 */
export async function settleRefund(deps: Deps, refundId: string, outcome: Outcome<RefundResult>): Promise<RefundRow> {
  return (await settle(deps, refundId, outcome)).row;
}

/** settleRefund, also handing back the Order as a success left it (null otherwise). */
async function settle(deps: Deps, refundId: string, outcome: Outcome<RefundResult>): Promise<{ row: RefundRow; order: OrderView | null }> {
  let before: RefundRow['status'] | null = null;
  const result = await deps.db.transaction().execute(async (trx) => {
    // The order first, then the refund: the same lock order as refundOrder's first transaction.
    const order = await repo.lockOrderOfRefund(trx, refundId);
    const refund = await repo.lockRefund(trx, refundId);
    if (!order || !refund) throw new Error(`refund ${refundId} not found`);
    before = refund.status;
    if (refund.status !== 'pending' && refund.status !== 'unknown') return { row: refund, order: null };
    const now = deps.clock.now();
    if (outcome.status === 'succeeded') return recordSucceeded(trx, deps, order, refund, now);
    if (outcome.status === 'failed') {
      return { row: await repo.updateRefund(trx, refund.id, { status: 'failed', failure_code: outcome.code, error: outcome.message, updated_at: now }), order: null };
    }
    const row = await repo.updateRefund(trx, refund.id, { status: 'unknown', error: outcome.message, updated_at: now });
    await enqueueJob(trx, deps.clock, {
      name: RECONCILE_JOB,
      payload: { refundId: refund.id },
      runAt: new Date(now.getTime() + RECONCILE_DELAY_MS),
      dedupeKey: `${RECONCILE_JOB}:${refund.id}`,
    });
    return { row, order: null };
  });
  // Once committed: each answer that moved the refund (an unknown staying unknown is not counted again).
  if (result.row.status !== before) countRefund(result.row);
  return result;
}

/** Refunds by the outcome recorded (succeeded, failed, unknown) and where they came from (api, console, refund_request, …). */
const refundsTotal = counter({ name: 'commerce_refunds_total', help: 'Refund outcomes recorded, by outcome (succeeded, failed, unknown) and source', labelNames: ['outcome', 'source'] });

/** Counts a refund's recorded outcome (also for refunds made in the gateway's own admin, src/refunds/gateway.ts). */
export function countRefund(row: Pick<RefundRow, 'status' | 'source'>): void {
  refundsTotal.labels(row.status, row.source).inc();
}

/** Records a refund the gateway carried out: the order's totals, licences on a full refund, `order.refunded`. Inside the caller's transaction, order locked. */
export async function recordSucceeded(trx: Db, deps: Deps, order: OrderRow, refund: RefundRow, now: Date): Promise<{ row: RefundRow; order: OrderView }> {
  const next = afterRefund(order, refund.amount);
  await repo.recordRefunded(trx, order.id, { ...next, at: now });
  // 현금영수증 follows the money: reduced by a partial refund, canceled by a full one.
  const { sellerReceipt } = await followRefundOnCashReceipt(trx, order.id, order.amount - next.refundedAmount, now);
  // A receipt the seller issued afterwards is reduced through the gateway's own cash-receipt cancel, after this commits.
  if (sellerReceipt) await enqueueCashReceiptSync(trx, deps, order.id);
  const row = await repo.updateRefund(trx, refund.id, { status: 'succeeded', refunded_at: now, failure_code: null, error: null, updated_at: now });
  let licensesRevoked = 0;
  if (next.status === 'refunded' && !refund.keep_licenses) licensesRevoked = await repo.revokeOrderLicenses(trx, order.id, now, 'refunded');
  const orderView = (await loadOrderView(trx, order.id, deps))!;
  await writeEvent(trx, deps.clock, {
    storeId: order.store_id,
    mode: order.mode,
    type: 'order.refunded',
    data: { refund: refundView(row), order: orderView, licensesRevoked },
  });
  // The subscription follows the money in the same transaction: a refunded withdrawal ends it (issue 29).
  await afterOrderRefunded(trx, deps, order, row, next.status === 'refunded');
  return { row, order: orderView };
}
