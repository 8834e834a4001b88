/**
 * Recording the gateway's answer to a checkout payment (`settle`): paid → the order, licences, subscription and
 * events; declined → stock and coupon given back; no answer → kept and handed to reconciliation, as is an attempt whose
 * process died mid-call (`recoverStaleAttempt`, `sweepStaleAttempts`). Taking the payment is in complete.ts.
 */
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { writeEvent } from '../platform/events';
import { enqueueJob } from '../jobs/queue';
import { releaseCoupon, releaseStock } from '../catalog/repo';
import { issueLicensesForOrder } from '../licenses/issue-on-payment';
import { orderViewOf } from '../orders/service';
import type { ConfirmResult, Outcome } from '../payments/provider';
import { paidAtOf } from '../payments/registry';
import { periodEnd, type SessionRow } from './model';
import { subscriptionIdForSession } from '../subscriptions/model';
import { termsOfProduct } from '../orders/terms';
import { startSubscription } from '../subscriptions/start';
import { trialEnd } from '../subscriptions/consent';
import { writeDueTrialNotices } from '../subscriptions/trials/notices';
import { counter } from '../platform/metrics-registry';
import type { PaymentInFlight } from './tables';
import { clearSessionPayment, findProductNameAndType, findProductStatus, findStaleAttempts, insertOrder, lockSession, markPaymentUnknown, markSessionCompleted } from './complete-repo';
import { MESSAGES } from '../platform/messages';
import { recordVirtualAccount } from './virtual-account';
import { recordCashReceipt } from './cash-receipt';
import type { PayResult } from './pay-result';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

export const RECONCILE_JOB = 'checkout.reconcile';
/** First look at an unknown payment after this long: gateways settle a timed-out confirm within seconds. */
export const RECONCILE_DELAY_MS = 60_000;

/** Records a gateway outcome for the session's payment in flight. Safe to call twice: the second call finds nothing to do. */
export async function settle(deps: Deps, sessionId: string, paymentKey: string, outcome: Outcome<ConfirmResult>): Promise<PayResult> {
  const result = await settleInTransaction(deps, sessionId, paymentKey, outcome);
  // Counted once committed, and only when this call recorded the outcome (a repeat finds nothing left to do).
  if (result.kind === 'paid') paymentsTotal.labels('paid').inc();
  else if (result.kind === 'refused' && outcome.status === 'failed' && result.code === outcome.code) paymentsTotal.labels('failed').inc();
  else if (result.kind === 'checking' && outcome.status === 'unknown') paymentsTotal.labels('pending_unknown').inc();
  return result;
}

/** Checkout payments by how the gateway's answer was recorded: paid, failed (declined), pending_unknown (no answer yet). */
const paymentsTotal = counter({ name: 'commerce_payments_total', help: 'Checkout payments by recorded outcome (paid, failed, pending_unknown)', labelNames: ['outcome'] });
// Every outcome present from the start: a dashboard shows 0, not "no data", until the first one happens.
for (const o of ['paid', 'failed', 'pending_unknown']) paymentsTotal.labels(o).inc(0);

function settleInTransaction(deps: Deps, sessionId: string, paymentKey: string, outcome: Outcome<ConfirmResult>): Promise<PayResult> {
  return deps.db.transaction().execute(async (trx): Promise<PayResult> => {
    const s = await lockSession(trx, sessionId);
    if (!s) return { kind: 'not_found' };
    if (s.status === 'completed') return { kind: 'completed', session: s };
    const p = s.payment;
    if (!p || p.paymentKey !== paymentKey) {
      // Already released (or a newer attempt holds the session): this outcome no longer owns anything.
      return { kind: 'refused', field: null, code: 'STALE_ATTEMPT', message: MESSAGES.checkout.attemptStale };
    }
    if (outcome.status === 'succeeded') return recordPaid(trx, deps, s, p, outcome.value);
    if (outcome.status === 'failed') {
      await release(trx, s, p);
      return { kind: 'refused', field: p.method === 'card' ? 'cardNumber' : 'method', code: outcome.code, message: outcome.message };
    }
    await markUnknown(trx, deps, s);
    return { kind: 'checking', session: s };
  });
}

async function recordPaid(trx: Db, deps: Deps, s: SessionRow, p: PaymentInFlight, result: ConfirmResult): Promise<PayResult> {
  const now = deps.clock.now();
  const product = await findProductNameAndType(trx, s.product_id);
  const isSubscription = product.type === 'subscription' && s.billing_interval !== null;
  // 가상계좌: an account was issued, nothing is paid yet (src/checkout/virtual-account.ts).
  const awaiting = result.awaitingDeposit && !isSubscription ? result.awaitingDeposit : null;
  const row = await insertOrder(trx, {
    id: s.pending_order_id,
    store_id: s.store_id,
    mode: s.mode,
    product_id: s.product_id,
    product_name: product.name,
    plan_id: s.plan_id,
    billing_interval: s.billing_interval,
    checkout_session_id: s.id,
    status: awaiting ? 'awaiting_deposit' : 'paid',
    amount: p.amount,
    currency: 'KRW',
    // The window the buyer chose decides between a card and an overseas card (Toss reports both as 카드).
    method: awaiting ? 'virtual_account' : p.method === 'foreign_card' && result.method === 'card' ? 'foreign_card' : (result.method ?? p.method),
    buyer_name: p.buyerName,
    buyer_email: p.buyerEmail,
    buyer_phone: p.buyerPhone,
    metadata: s.metadata ?? null,
    locale: s.locale,
    coupon: p.coupon,
    coupon_id: p.couponId,
    period_start: isSubscription ? now : null,
    // A free trial's first order is its 0-won trial period; the first charge is the renewal at its end.
    period_end: isSubscription ? (s.trial_days ? trialEnd(now, s.trial_days) : periodEnd(now, s.billing_interval!)) : null,
    // A Toss payment is paid when Toss approved it (Payment.approvedAt): recorded a moment later, after midnight KST,
    // it would otherwise fall on another day than in Toss's ledger and its reconciliation (issue 32). The simulator
    // and a 0-won order take our clock; a 가상계좌 waiting for its deposit is not paid yet.
    paid_at: awaiting ? null : paidAtOf(p.provider, p.amount, result, now),
    confirmed_at: null,
    refunded_at: null,
    refunded_amount: null,
    provider: p.provider,
    provider_payment_key: p.amount === 0 ? null : result.paymentKey || p.paymentKey,
    toss_key_pair: p.tossKeyPair ?? 'payments',
    installment_months: result.installmentMonths ?? null,
    // PayPal: the USD amount reserved before the gateway was called (and held against Toss's approval by the adapter).
    presentment_amount: p.presentment?.amount ?? null,
    presentment_currency: p.presentment?.currency ?? null,
    terms: p.terms ?? termsOfProduct(await findProductStatus(trx, s.product_id), s.plan_id),
    subscription_id: isSubscription ? subscriptionIdForSession(s.id) : null,
    subscription_event: isSubscription ? 'initial' : null,
    settlement_id: null,
    created_at: now,
    updated_at: now,
  });
  // 현금영수증 asked on our page (the buyer's number, or 의무발행 to 010-000-1234): written `requested` here, before any
  // gateway call, and issued by the job through POST /v1/cash-receipts (a transfer now, a 가상계좌 after its deposit).
  if (row.method === 'transfer' || row.method === 'virtual_account') await recordCashReceipt(trx, deps, row, s.attempt, result.cashReceipt ?? null, now);
  if (awaiting) {
    // The session is done (its stock and coupon stay with the order until the deposit or the due date).
    await recordVirtualAccount(trx, deps, row, awaiting, now);
    await markSessionCompleted(trx, s.id, row.id, now);
    const waiting = await orderViewOf(trx, deps, row);
    await writeEvent(trx, deps.clock, { storeId: s.store_id, mode: s.mode, type: 'order.awaiting_deposit', data: waiting });
    return { kind: 'paid', session: { ...s, status: 'completed', order_id: row.id, completed_at: now, payment: null }, order: waiting };
  }
  // The subscription starts in the same transaction as its first order: both exist, or neither.
  const sub = isSubscription ? await startSubscription(trx, deps, { session: s, order: row, billing: p.billing ?? null, tossKeyPair: p.tossKeyPair ?? 'payments', provider: p.provider }) : null;
  await markSessionCompleted(trx, s.id, row.id, now);
  await issueLicensesForOrder(trx, deps, row.id);
  // The licenses just issued travel with the order (service keys at once; seller-issued ones `pending`, key null).
  const order = await orderViewOf(trx, deps, row);
  await writeEvent(trx, deps.clock, {
    storeId: s.store_id,
    mode: s.mode,
    type: 'order.paid',
    data: { ...order, subscriptionEvent: row.subscription_event, ...(row.subscription_id ? { subscriptionId: row.subscription_id } : {}) },
  });
  // A short free trial's conversion notice is due at signup (see trialNoticeSchedule).
  if (sub?.trial_ends_at) await writeDueTrialNotices(trx, deps, sub, now);
  return { kind: 'paid', session: { ...s, status: 'completed', order_id: row.id, completed_at: now, payment: null }, order };
}

/** Gives back exactly what this payment held and frees the session for another attempt. */
async function release(trx: Db, s: SessionRow, p: PaymentInFlight): Promise<void> {
  if (p.stockReserved) await releaseStock(trx, s.product_id);
  if (p.couponId) await releaseCoupon(trx, p.couponId);
  await clearSessionPayment(trx, s.id);
}

/** Keeps the reservation (the buyer may have been charged) and schedules the reconciliation that settles it. */
export async function markUnknown(trx: Db, deps: Deps, s: SessionRow): Promise<void> {
  const p = s.payment!;
  await markPaymentUnknown(trx, s.id, p);
  await enqueueJob(trx, deps.clock, {
    name: RECONCILE_JOB,
    payload: { sessionId: s.id },
    runAt: new Date(deps.clock.now().getTime() + RECONCILE_DELAY_MS),
    dedupeKey: `${RECONCILE_JOB}:${s.id}`,
  });
}

/**
 * A `confirming` payment whose lock ran out belongs to a process that died during the gateway call: its outcome is
 * unknown, so it goes to reconciliation like a timeout (the payment page calls this when it finds one).
 */
export async function recoverStaleAttempt(deps: Deps, sessionId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const s = await lockSession(trx, sessionId);
    if (!s || s.status !== 'open' || s.payment?.state !== 'confirming') return;
    if (s.attempt_locked_until && s.attempt_locked_until > deps.clock.now()) return;
    await markUnknown(trx, deps, s);
  });
}

/**
 * Periodic safety net for the same case when the buyer never comes back to the page: every in-flight payment whose
 * lock has run out is handed to reconciliation, so its stock and coupon are not held forever. Safe to run twice.
 */
export async function sweepStaleAttempts(deps: Deps, now: Date): Promise<number> {
  const stale = await findStaleAttempts(deps.db, now);
  for (const s of stale) await recoverStaleAttempt(deps, s.id);
  return stale.length;
}
