import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { writeEvent } from '../platform/events';
import { enqueueJob } from '../jobs/queue';
import { reserveCoupon, reserveStock, releaseCoupon, releaseStock } from '../catalog/repo';
import { issueLicensesForOrder } from '../licenses/issue-on-payment';
import { orderViewOf } from '../orders/service';
import type { OrderView } from '../orders/schemas';
import type { BillingKeyResult, ConfirmResult, Outcome, PaymentProvider } from '../payments/provider';
import { ATTEMPT_LOCK_MS, periodEnd, type SessionRow } from './model';
import { encryptSecret } from '../platform/crypto';
import { subscriptionIdForSession } from '../subscriptions/model';
import { termsOfProduct } from '../orders/terms';
import { startSubscription } from '../subscriptions/start';
import { trialEnd } from '../subscriptions/consent';
import { cardFingerprint, sameEmail, trialAlreadyTaken } from '../subscriptions/trials/once';
import { writeDueTrialNotices } from '../subscriptions/trials/notices';
import { quote } from './quote';
import { counter } from '../platform/metrics-registry';
import type { CheckoutAttempt, PaymentInFlight } from './tables';
import {
  clearSessionPayment,
  findProductName,
  findProductNameAndType,
  findProductStatus,
  findStaleAttempts,
  insertOrder,
  lockSession,
  markAttemptStarted,
  markPaymentUnknown,
  markSessionCompleted,
} from './complete-repo';
import { MESSAGES } from '../platform/messages';
import type { TossKeyPair } from '../platform/tables';
import { recordVirtualAccount } from './virtual-account';
import { recordCashReceipt } from './cash-receipt';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

export const RECONCILE_JOB = 'checkout.reconcile';
/** First look at an unknown payment after this long: gateways settle a timed-out confirm within seconds. */
export const RECONCILE_DELAY_MS = 60_000;

export type RefusedField = 'couponCode' | 'cardNumber' | 'method' | null;

export type PayResult =
  | { kind: 'paid'; session: SessionRow; order: OrderView }
  | { kind: 'not_found' }
  | { kind: 'completed'; session: SessionRow }
  | { kind: 'expired'; session: SessionRow }
  /** Another attempt of this session is with the gateway right now. */
  | { kind: 'processing'; session: SessionRow }
  /** The gateway's answer was lost; the reconciliation job will finish or release the payment. */
  | { kind: 'checking'; session: SessionRow }
  | { kind: 'unavailable'; code: 'SOLD_OUT' | 'PRODUCT_ARCHIVED' }
  /** Nothing was charged: show the form again with this message (next to `field`). */
  | { kind: 'refused'; field: RefusedField; code: string; message: string };

export interface CompleteInput {
  sessionId: string;
  attempt: CheckoutAttempt;
  provider: PaymentProvider;
  /** Which of the mode's Toss key pairs `provider` signs with (default the first): recorded on the order and subscription. */
  tossKeyPair?: TossKeyPair;
  /** From SimulatorProvider.authorize or Toss's success redirect; null only for a 0-won payment (nothing to charge). */
  paymentKey: string | null;
  /** The amount the buyer was shown / the gateway window charged; refused unless it equals the session amount after coupon. */
  expectedAmount: number;
  /**
   * Subscription sessions: the gateway's billing-auth key for the buyer's card (simulator: `sim_auth_<cardNumber>`).
   * A billing key is issued from it before anything is reserved; without one the subscription starts with no card
   * (renewals then go to dunning until the buyer adds a card in the portal).
   */
  billingAuthKey?: string | null;
  /**
   * Live subscriptions (Toss's billing-auth flow): there is no payment window, so the first payment is charged to the
   * billing key just issued from `billingAuthKey` (Toss's "자동결제 승인"), with the reserved order id as its orderId.
   */
  firstChargeByBillingKey?: boolean;
}

/** The payment key recorded for a first payment charged to a billing key (until the gateway names the real one). */
const BILLING_MARKER = /^billing_[0-9a-f]{32}$/;
export const isBillingCharge = (paymentKey: string) => BILLING_MARKER.test(paymentKey);

/**
 * Charges the first payment of a subscription to its billing key. Same idempotency key on every retry (the attempt's
 * marker), so reconciliation after a lost answer asks the same question and cannot charge twice.
 */
export async function chargeFirstPayment(
  provider: PaymentProvider,
  input: { billingKey: string; customerKey: string; amount: number; orderId: string; orderName: string; marker: string },
): Promise<Outcome<ConfirmResult>> {
  try {
    return await provider.chargeBillingKey({
      billingKey: input.billingKey,
      customerKey: input.customerKey,
      amount: input.amount,
      orderId: input.orderId,
      orderName: input.orderName.slice(0, 100),
      idempotencyKey: confirmIdempotencyKey(input.marker),
    });
  } catch (err) {
    return { status: 'unknown', message: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * One gateway idempotency key per payment attempt (per payment key): a retry of the same attempt (reconciliation)
 * replays, while a new attempt after a decline is a new request, not a replay of the decline.
 */
export const confirmIdempotencyKey = (paymentKey: string) => `confirm_${paymentKey}`.slice(0, 300);

class Rollback extends Error {
  constructor(readonly result: PayResult) {
    super(result.kind);
  }
}

/**
 * Takes a payment for a checkout session, in three steps so the gateway is never called inside a transaction:
 * 1. one transaction locks the session, checks it is open, unexpired and not already with the gateway, takes one
 *    unit of stock and one coupon redemption (conditional UPDATEs, so the last unit cannot be sold twice) and marks
 *    the payment `confirming` for ATTEMPT_LOCK_MS;
 * 2. the gateway confirms, with the session's reserved order id as its orderId (a retry can never charge twice);
 * 3. one transaction records the outcome: succeeded → the paid order, the completed session, licenses and the
 *    `order.paid` event; failed → stock and coupon released; unknown → kept, and a reconciliation job scheduled.
 * `orders.checkout_session_id` is unique, so even a bug here could not create two orders for one session.
 */
export async function completePayment(deps: Deps, input: CompleteInput): Promise<PayResult> {
  let billing: PaymentInFlight['billing'] = null;
  let billingKey: string | null = null;
  if (input.billingAuthKey) {
    // Outside any transaction, before the reservation: a key issued for an attempt that then does not go ahead is
    // simply never used.
    const issued = await issueBillingKeySafely(input.provider, { authKey: input.billingAuthKey, customerKey: subscriptionIdForSession(input.sessionId) });
    if (issued.status !== 'succeeded') {
      return { kind: 'refused', field: issued.status === 'failed' ? 'cardNumber' : null, code: issued.status === 'failed' ? issued.code : 'BILLING_KEY_UNKNOWN', message: issued.status === 'failed' ? issued.message : MESSAGES.checkout.billingKeyUnknown };
    }
    billing = { keySealed: encryptSecret(deps.config.masterKey, issued.value.billingKey), cardSummary: issued.value.cardSummary };
    if (input.firstChargeByBillingKey) {
      billingKey = issued.value.billingKey;
      input = { ...input, paymentKey: `billing_${randomBytes(16).toString('hex')}` };
    }
  }
  const started = await reserve(deps, input, billing);
  if (started.kind !== 'started') return started;
  const { session, payment } = started;
  let outcome: Outcome<ConfirmResult>;
  if (payment.amount === 0) {
    outcome = { status: 'succeeded', value: { paymentKey: '', approvedAt: deps.clock.now(), method: payment.method } };
  } else if (billingKey) {
    const product = await findProductName(deps.db, session.product_id);
    outcome = await chargeFirstPayment(input.provider, {
      billingKey,
      customerKey: subscriptionIdForSession(session.id),
      amount: payment.amount,
      orderId: session.pending_order_id,
      orderName: product.name,
      marker: payment.paymentKey,
    });
  } else {
    try {
      outcome = await input.provider.confirmPayment({
        paymentKey: payment.paymentKey,
        orderId: session.pending_order_id,
        amount: payment.amount,
        idempotencyKey: confirmIdempotencyKey(payment.paymentKey),
        installmentMonths: input.attempt.installmentMonths,
        cashReceipt: input.attempt.cashReceipt ? { type: input.attempt.cashReceipt.type, identity: input.attempt.cashReceipt.identity } : null,
      });
    } catch (err) {
      // A provider must not throw, but if one does the charge may have happened: treat it as unknown.
      outcome = { status: 'unknown', message: err instanceof Error ? err.message : String(err) };
    }
  }
  return settle(deps, session.id, payment.paymentKey, outcome);
}

async function issueBillingKeySafely(provider: PaymentProvider, input: { authKey: string; customerKey: string }): Promise<Outcome<BillingKeyResult>> {
  try {
    return await provider.issueBillingKey(input);
  } catch (err) {
    return { status: 'unknown', message: err instanceof Error ? err.message : String(err) };
  }
}

async function reserve(deps: Deps, input: CompleteInput, billing: PaymentInFlight['billing']): Promise<PayResult | { kind: 'started'; session: SessionRow; payment: PaymentInFlight }> {
  const { clock } = deps;
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const now = clock.now();
      const s = await lockSession(trx, input.sessionId);
      if (!s) return { kind: 'not_found' } as const;
      if (s.status === 'completed') return { kind: 'completed', session: s } as const;
      if (s.payment?.state === 'unknown') return { kind: 'checking', session: s } as const;
      if (s.payment?.state === 'confirming') {
        if (s.attempt_locked_until && s.attempt_locked_until > now) return { kind: 'processing', session: s } as const;
        // The attempt's lock ran out without an answer recorded: its process died with the gateway call in flight.
        await markUnknown(trx, deps, s);
        return { kind: 'checking', session: s } as const;
      }
      if (s.expires_at <= now) return { kind: 'expired', session: s } as const;
      const product = await findProductStatus(trx, s.product_id);
      if (product.status === 'archived') return { kind: 'unavailable', code: 'PRODUCT_ARCHIVED' } as const;

      const q = await quote(trx, s, input.attempt.couponCode, now);
      if (!q.ok) return { kind: 'refused', field: 'couponCode', code: 'COUPON_INVALID', message: q.message } as const;
      if (q.amount !== input.expectedAmount) {
        return { kind: 'refused', field: null, code: 'AMOUNT_MISMATCH', message: MESSAGES.checkout.amountChanged } as const;
      }
      if (input.paymentKey === null && q.amount > 0) throw new Error('a payment key is required for a non-zero amount');
      // The recurring charge needs the buyer's own consent (전자상거래법 제13조⑥), whatever page or client sent this.
      if (s.billing_interval && !input.attempt.recurringConsent) {
        return { kind: 'refused', field: null, code: 'RECURRING_CONSENT_REQUIRED', message: MESSAGES.checkout.recurringConsentRequired } as const;
      }
      // The seller fixed the buyer's e-mail on the session: whatever page or client sent this, no other e-mail pays.
      if (s.customer_email_locked && !sameEmail(input.attempt.buyerEmail, s.customer_email)) {
        return { kind: 'refused', field: null, code: 'CUSTOMER_EMAIL_LOCKED', message: MESSAGES.checkout.customerEmailLocked } as const;
      }
      // A free trial once per buyer and product (by e-mail, and by the card the gateway just registered), unless the
      // store allows more. Refused, not charged: the buyer agreed to a first charge at the trial's end, not now.
      if (s.trial_days && (await trialAlreadyTaken(trx, { storeId: s.store_id, mode: s.mode, productId: s.product_id, email: input.attempt.buyerEmail, cardFingerprint: cardFingerprint(billing?.cardSummary ?? null) }))) {
        return { kind: 'refused', field: null, code: 'TRIAL_ALREADY_USED', message: MESSAGES.checkout.trialAlreadyUsed } as const;
      }

      if (!(await reserveStock(trx, s.product_id))) return { kind: 'unavailable', code: 'SOLD_OUT' } as const;
      if (q.couponRow && !(await reserveCoupon(trx, q.couponRow.id))) {
        throw new Rollback({ kind: 'refused', field: 'couponCode', code: 'COUPON_EXHAUSTED', message: MESSAGES.coupons.exhausted });
      }
      const payment: PaymentInFlight = {
        state: 'confirming',
        provider: input.provider.name,
        paymentKey: input.paymentKey ?? '',
        amount: q.amount,
        originalAmount: q.originalAmount,
        method: input.attempt.method,
        buyerName: input.attempt.buyerName,
        buyerEmail: input.attempt.buyerEmail,
        buyerPhone: input.attempt.buyerPhone,
        couponId: q.couponRow?.id ?? null,
        coupon: q.coupon,
        stockReserved: true,
        startedAt: now.toISOString(),
        billing,
        ...(input.provider.name === 'toss' ? { tossKeyPair: input.tossKeyPair ?? 'payments' } : {}),
        terms: termsOfProduct(product, s.plan_id),
      };
      await markAttemptStarted(trx, s.id, payment, input.attempt, new Date(now.getTime() + ATTEMPT_LOCK_MS));
      return { kind: 'started', session: s, payment } as const;
    });
  } catch (err) {
    if (err instanceof Rollback) return err.result;
    throw err;
  }
}

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
    method: awaiting ? 'virtual_account' : (result.method ?? p.method),
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
    paid_at: awaiting ? null : p.provider === 'toss' && p.amount > 0 ? result.approvedAt : now,
    confirmed_at: null,
    refunded_at: null,
    refunded_amount: null,
    provider: p.provider,
    provider_payment_key: p.amount === 0 ? null : result.paymentKey || p.paymentKey,
    toss_key_pair: p.tossKeyPair ?? 'payments',
    installment_months: result.installmentMonths ?? null,
    terms: p.terms ?? termsOfProduct(await findProductStatus(trx, s.product_id), s.plan_id),
    subscription_id: isSubscription ? subscriptionIdForSession(s.id) : null,
    subscription_event: isSubscription ? 'initial' : null,
    settlement_id: null,
    created_at: now,
    updated_at: now,
  });
  // 현금영수증: what the buyer asked for, and what the gateway issued with the payment (계좌이체).
  if (row.method === 'transfer' || row.method === 'virtual_account') await recordCashReceipt(trx, row, s.attempt, result.cashReceipt ?? null, now);
  if (awaiting) {
    // The session is done (its stock and coupon stay with the order until the deposit or the due date).
    await recordVirtualAccount(trx, deps, row, awaiting, now);
    await markSessionCompleted(trx, s.id, row.id, now);
    const waiting = await orderViewOf(trx, deps, row);
    await writeEvent(trx, deps.clock, { storeId: s.store_id, mode: s.mode, type: 'order.awaiting_deposit', data: waiting });
    return { kind: 'paid', session: { ...s, status: 'completed', order_id: row.id, completed_at: now, payment: null }, order: waiting };
  }
  // The subscription starts in the same transaction as its first order: both exist, or neither.
  const sub = isSubscription ? await startSubscription(trx, deps, { session: s, order: row, billing: p.billing ?? null, tossKeyPair: p.tossKeyPair ?? 'payments' }) : null;
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
async function markUnknown(trx: Db, deps: Deps, s: SessionRow): Promise<void> {
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
