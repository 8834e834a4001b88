/**
 * Taking a checkout payment (`completePayment`): reserve stock and coupon, call the gateway outside any transaction,
 * then hand its answer to `settle` (settle.ts). Also the first charge of a subscription to its billing key.
 */
import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../deps';
import { reserveCoupon, reserveStock } from '../catalog/repo';
import type { BillingKeyResult, ConfirmResult, Outcome, PaymentProvider } from '../payments/provider';
import { providerTraits } from '../payments/registry';
import { ATTEMPT_LOCK_MS, type SessionRow } from './model';
import { encryptSecret } from '../platform/crypto';
import { subscriptionIdForSession } from '../subscriptions/model';
import { termsOfProduct } from '../orders/terms';
import { cardFingerprint, sameEmail, trialAlreadyTaken } from '../subscriptions/trials/once';
import { quote } from './quote';
import type { CheckoutAttempt, PaymentInFlight } from './tables';
import { findProductName, findProductStatus, lockSession, markAttemptStarted } from './complete-repo';
import { MESSAGES } from '../platform/messages';
import type { TossKeyPair } from '../platform/tables';
import type { PayResult } from './pay-result';
import { markUnknown, settle } from './settle';
import { findForeignSettings, foreignMethodAllowed, presentmentFor } from './foreign';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;
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
   * PayPal: the USD amount (cents) the buyer approved in the window (Toss's success redirect; the simulator's authorize);
   * refused unless it is what the won amount comes to at the store's rate now.
   */
  expectedPresentment?: number | null;
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
        // 현금영수증: the window was told 미발행; the receipt asked is issued on its own afterwards (src/checkout/cash-receipt.ts).
        cashReceipt: null,
        presentment: payment.presentment ?? null,
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
      // Buyers abroad: only where the store enabled the method, never for a subscription; PayPal in USD at the store's rate.
      const foreign = await findForeignSettings(deps.db, s.store_id, s.mode, trx);
      if (!foreignMethodAllowed(input.attempt.method, foreign, s.billing_interval !== null)) {
        return { kind: 'refused', field: 'method', code: 'METHOD_NOT_OFFERED', message: MESSAGES.checkout.methodNotOffered } as const;
      }
      const presentment = presentmentFor(input.attempt.method, q.amount, foreign);
      if (input.attempt.method === 'paypal' && q.amount > 0 && (!presentment || presentment.amount !== input.expectedPresentment)) {
        return { kind: 'refused', field: null, code: 'AMOUNT_MISMATCH', message: MESSAGES.checkout.amountChanged } as const;
      }
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
      if (s.trial_days && (await trialAlreadyTaken(trx, { storeId: s.store_id, mode: s.mode, productId: s.product_id, email: input.attempt.buyerEmail, phone: input.attempt.buyerPhone, cardFingerprint: cardFingerprint(billing?.cardSummary ?? null) }))) {
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
        ...(providerTraits(input.provider.name).hasBillingCredentials ? { tossKeyPair: input.tossKeyPair ?? 'payments' } : {}),
        terms: termsOfProduct(product, s.plan_id),
        ...(presentment ? { presentment } : {}),
      };
      await markAttemptStarted(trx, s.id, payment, input.attempt, new Date(now.getTime() + ATTEMPT_LOCK_MS));
      return { kind: 'started', session: s, payment } as const;
    });
  } catch (err) {
    if (err instanceof Rollback) return err.result;
    throw err;
  }
}
