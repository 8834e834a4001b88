import { chargeTerms } from '../terms';
import type { Db } from '../../db';
import { jsonb } from '../../db';
import { writeEvent } from '../../platform/events';
import { orderViewOf } from '../../orders/service';
import { issueLicensesForOrder } from '../../licenses/issue-on-payment';
import { paidAtOf, type Outcome, type ConfirmResult, type PaymentProviderName } from '../../payments';
import { afterUnknownAnswer, nextRetryAt, subscriptionNow, type SubscriptionChargeRow, type SubscriptionRow } from '../model';
import * as repo from '../repo';
import * as renewalRepo from './repo';
import { writeSubscriptionEnded, writeSubscriptionUpdated } from '../events';
import type { EndReason, PreviousTerms } from '../tables';
import type { AppDeps } from '../../deps';
import { enqueueBillingKeyDeletion } from './billing-key-delete';
import { counter } from '../../platform/metrics-registry';

/** What charging and recording a subscription's charge needs (renewal, retries, plan changes, the test clock). */
export type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/**
 * Recording what the gateway answered for a subscription charge (split from renewal.ts, which claims and calls):
 * the renewal or difference order with its events, dunning after a decline, the bounded unknown-retries, and the
 * end of a subscription. Each record runs in one transaction that holds the subscription's lock, then the charge's.
 */

/** What a charge came to, for callers that wait for it (card update, plan change). */
export type ChargeResult =
  | { status: 'succeeded'; orderId: string }
  | { status: 'failed'; code: string; message: string }
  /** The gateway's answer is unknown (or another worker holds the charge): it is retried with the same idempotency key. */
  | { status: 'pending' };

/**
 * Records a gateway outcome for a charge. Safe to call twice and late: a charge already `succeeded`/`failed` is left as
 * it is; a `needs_attention` one still takes a definite answer (a late answer, or the seller's by hand), once.
 */
export async function recordCharge(deps: Deps, chargeId: string, outcome: Outcome<ConfirmResult>, providerName: PaymentProviderName): Promise<ChargeResult> {
  const now = deps.clock.now();
  let renewal: RenewalOutcome | null = null;
  const result = await deps.db.transaction().execute(async (trx): Promise<ChargeResult> => {
    const head = await renewalRepo.chargeSubscriptionId(trx, chargeId);
    // Lock order everywhere: the subscription, then its charge.
    const sub = (await repo.lockSubscription(trx, head.subscription_id))!;
    const charge = (await renewalRepo.lockCharge(trx, chargeId))!;
    if (charge.status === 'succeeded') {
      if (outcome.status === 'failed') deps.log.error({ chargeId, subscriptionId: sub.id }, 'the gateway reports a failure for a charge recorded as succeeded; check it in the gateway');
      return { status: 'succeeded', orderId: charge.order_id };
    }
    if (charge.status === 'failed') {
      // Recorded failed (by the gateway, or by the seller by hand) yet the gateway now says it went through: money
      // was taken that no order shows. Nothing is recorded automatically over a decision; the seller must look.
      if (outcome.status === 'succeeded') deps.log.error({ chargeId, subscriptionId: sub.id, orderId: charge.order_id }, 'the gateway reports success for a charge recorded as failed; refund it in the gateway or record it by hand');
      return { status: 'failed', code: charge.error_code ?? 'FAILED', message: charge.error_message ?? '' };
    }
    if (outcome.status === 'unknown') {
      // A charge already left to the seller stays so; a late definite answer (below) still records it once.
      if (charge.status === 'needs_attention') {
        await renewalRepo.updateCharge(trx, charge.id, { error_message: outcome.message.slice(0, 500), updated_at: now });
        return { status: 'pending' };
      }
      const attempts = charge.unknown_attempts + 1;
      const first = charge.first_unknown_at ?? now;
      const next = afterUnknownAnswer(attempts, first, now);
      if ('giveUp' in next) {
        await renewalRepo.updateCharge(trx, charge.id, {
          status: 'needs_attention',
          unknown_attempts: attempts,
          first_unknown_at: first,
          error_code: 'GATEWAY_NO_ANSWER',
          error_message: outcome.message.slice(0, 500),
          locked_until: null,
          updated_at: now,
        });
        deps.log.error(
          { chargeId, subscriptionId: sub.id, orderId: charge.order_id, unknownAttempts: attempts },
          'subscription charge still unanswered after its retries; no longer retried automatically: settle it in the console (POST /admin/v1/subscription-charges/{id}/resolve)',
        );
        return { status: 'pending' };
      }
      await renewalRepo.updateCharge(trx, charge.id, { unknown_attempts: attempts, first_unknown_at: first, error_message: outcome.message.slice(0, 500), locked_until: next.retryAt, updated_at: now });
      deps.log.warn({ chargeId, subscriptionId: sub.id, unknownAttempts: attempts, retryAt: next.retryAt }, 'subscription charge outcome unknown; retried with the same idempotency key');
      return { status: 'pending' };
    }
    if (outcome.status === 'succeeded') {
      const orderId = await recordPaid(trx, deps, sub, charge, outcome.value, providerName, now);
      if (charge.kind === 'renewal') renewal = 'charged';
      return { status: 'succeeded', orderId };
    }
    await renewalRepo.updateCharge(trx, charge.id, { status: 'failed', error_code: outcome.code.slice(0, 100), error_message: outcome.message.slice(0, 500), locked_until: null, updated_at: now });
    if (charge.kind === 'renewal' && sub.status !== 'ended') renewal = await renewalFailed(trx, deps, sub, charge, outcome, now);
    return { status: 'failed', code: outcome.code, message: outcome.message };
  });
  if (renewal) countRenewal(renewal);
  return result;
}

/** What a renewal came to: charged, failed (a dunning retry is scheduled), ended (no renewal: retries exhausted, canceled, price declined). */
export type RenewalOutcome = 'charged' | 'failed' | 'ended';
const renewalsTotal = counter({ name: 'commerce_renewals_total', help: 'Subscription renewals by outcome (charged, failed, ended)', labelNames: ['outcome'] });
for (const o of ['charged', 'failed', 'ended']) renewalsTotal.labels(o).inc(0);
/** Counts a renewal outcome; call once its transaction has committed. */
export function countRenewal(outcome: RenewalOutcome): void {
  renewalsTotal.labels(outcome).inc();
}

async function recordPaid(trx: Db, deps: Deps, sub: SubscriptionRow, charge: SubscriptionChargeRow, result: ConfirmResult, providerName: PaymentProviderName, now: Date): Promise<string> {
  const own = subscriptionNow(sub, now);
  const target = charge.target ?? { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
  const event = charge.kind === 'renewal' ? 'renewal' : 'difference';
  const terms = chargeTerms(sub, target);
  const order = await renewalRepo.insertChargeOrder(trx, {
    id: charge.order_id,
    store_id: sub.store_id,
    mode: sub.mode,
    product_id: sub.product_id,
    product_name: sub.product_name,
    plan_id: target.planId,
    billing_interval: target.interval,
    checkout_session_id: null,
    status: 'paid',
    amount: Number(charge.amount),
    currency: 'KRW',
    method: result.method ?? 'card',
    buyer_name: sub.buyer_name,
    buyer_email: sub.buyer_email,
    buyer_phone: sub.buyer_phone,
    metadata: jsonb(sub.metadata ?? null),
    locale: sub.locale,
    coupon: jsonb(null),
    coupon_id: null,
    period_start: charge.kind === 'renewal' ? charge.period_start : own,
    period_end: charge.period_end,
    // The subscription's own time: under a test clock the order is paid when the simulated renewal happens. A Toss
    // charge is paid when Toss approved it (Payment.approvedAt), the day its ledger has it (issue 32).
    paid_at: paidAtOf(providerName, Number(charge.amount), result, own),
    confirmed_at: null,
    refunded_at: null,
    refunded_amount: null,
    provider: providerName,
    provider_payment_key: result.paymentKey || null,
    toss_key_pair: sub.toss_key_pair,
    subscription_id: sub.id,
    subscription_event: event,
    settlement_id: null,
    terms: jsonb(terms),
    created_at: now,
    updated_at: now,
  });
  // An upgrade records what it replaces, as sold then, so withdrawing its difference order alone can put it back.
  const previous: PreviousTerms | null =
    charge.kind === 'difference' && sub.status !== 'ended'
      ? { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount), terms: sub.terms, recurringConsent: sub.recurring_consent, pendingPlan: sub.pending_plan ?? null }
      : null;
  await renewalRepo.updateCharge(trx, charge.id, { status: 'succeeded', locked_until: null, error_code: null, error_message: null, updated_at: now, ...(previous ? { previous: jsonb(previous) } : {}) });

  let updated: SubscriptionRow;
  if (sub.status === 'ended') {
    // Ended (an immediate cancel) while this charge was with the gateway: the money was taken, so the order is
    // recorded and announced for the seller to refund, but an ended subscription never comes back.
    deps.log.warn({ subscriptionId: sub.id, orderId: order.id }, 'a charge succeeded for a subscription that ended meanwhile');
    updated = await repo.updateSubscription(trx, sub.id, { latest_order_id: order.id, updated_at: now });
  } else if (charge.kind === 'renewal') {
    updated = await repo.updateSubscription(trx, sub.id, {
      status: 'active',
      plan_id: target.planId,
      billing_interval: target.interval,
      amount: target.amount,
      current_period_start: charge.period_start,
      current_period_end: charge.period_end,
      pending_plan: charge.attempt === 0 ? jsonb(null) : undefined,
      terms: jsonb(terms),
      latest_order_id: order.id,
      dunning_attempts: 0,
      next_retry_at: null,
      updated_at: now,
    });
  } else {
    updated = await repo.updateSubscription(trx, sub.id, {
      plan_id: target.planId,
      billing_interval: target.interval,
      amount: target.amount,
      pending_plan: jsonb(null),
      terms: jsonb(terms),
      latest_order_id: order.id,
      updated_at: now,
    });
  }
  // Renewals extend the subscription's licenses to the new period end (issue-on-payment finds them by subscription).
  if (sub.status !== 'ended') await issueLicensesForOrder(trx, deps, order.id);
  await writeEvent(trx, deps.clock, {
    storeId: sub.store_id,
    mode: sub.mode,
    type: 'order.paid',
    data: { ...(await orderViewOf(trx, deps, order)), subscriptionEvent: event, subscriptionId: sub.id },
  });
  if (sub.status === 'ended') return order.id;
  if (charge.kind === 'renewal') {
    await writeSubscriptionUpdated(trx, deps.clock, updated, {
      kind: 'period_renewed',
      orderId: order.id,
      periodStart: charge.period_start.toISOString(),
      periodEnd: charge.period_end.toISOString(),
      recovered: charge.attempt > 0,
    });
  } else {
    await writeSubscriptionUpdated(trx, deps.clock, updated, {
      kind: 'plan_changed',
      timing: 'now',
      orderId: order.id,
      from: { planId: sub.plan_id, billingInterval: sub.billing_interval, amount: Number(sub.amount) },
      to: { planId: target.planId, billingInterval: target.interval, amount: target.amount },
    });
  }
  return order.id;
}

/**
 * A renewal charge failed. The first failure moves the subscription into the new (unpaid) period as `past_due`;
 * each failure schedules the next retry (DUNNING_RETRY_DAYS after the period start); after the last one it ends.
 */
async function renewalFailed(trx: Db, deps: Deps, sub: SubscriptionRow, charge: SubscriptionChargeRow, outcome: { code: string; message: string }, now: Date): Promise<'failed' | 'ended'> {
  const target = charge.target ?? { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
  const retryNumber = charge.attempt + 1;
  const retryAt = nextRetryAt(charge.period_start, retryNumber);
  const base = {
    ...(charge.attempt === 0
      ? {
          current_period_start: charge.period_start,
          current_period_end: charge.period_end,
          plan_id: target.planId,
          billing_interval: target.interval,
          amount: target.amount,
          pending_plan: jsonb(null),
          terms: jsonb(chargeTerms(sub, target)),
        }
      : {}),
    updated_at: now,
  };
  if (retryAt) {
    const updated = await repo.updateSubscription(trx, sub.id, { ...base, status: 'past_due', dunning_attempts: retryNumber, next_retry_at: retryAt });
    await writeSubscriptionUpdated(trx, deps.clock, updated, {
      kind: 'payment_failed',
      attempt: charge.attempt,
      errorCode: outcome.code,
      errorMessage: outcome.message,
      nextRetryAt: retryAt.toISOString(),
    });
    return 'failed';
  }
  const moved = await repo.updateSubscription(trx, sub.id, { ...base, dunning_attempts: retryNumber });
  await endSubscription(trx, deps, moved, 'payment_failed', subscriptionNow(sub, now));
  return 'ended';
}

/**
 * Ends a subscription (final): `subscription.ended` with its endReason, and its licenses expire now (service clock)
 * unless they already have. Call inside the transaction holding the subscription's lock.
 */
export async function endSubscription(trx: Db, deps: Pick<Deps, 'clock'>, sub: SubscriptionRow, reason: EndReason, endedAt: Date): Promise<SubscriptionRow> {
  const now = deps.clock.now();
  const ended = await repo.updateSubscription(trx, sub.id, { status: 'ended', end_reason: reason, ended_at: endedAt, next_retry_at: null, updated_at: now });
  await renewalRepo.expireLicensesOnEnd(trx, sub.id, now);
  await writeSubscriptionEnded(trx, deps.clock, ended);
  await enqueueBillingKeyDeletion(trx, deps, ended);
  return ended;
}

