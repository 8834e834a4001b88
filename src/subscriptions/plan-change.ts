import { jsonb } from '../db';
import { ApiError } from '../platform/errors';
import { validationError } from '../platform/errors';
import { isTrialing, prorateDifference, subscriptionNow, subscriptionView } from './model';
import * as repo from './repo';
import { claim, executeCharge, type Deps } from './renewal';
import { writeSubscriptionUpdated } from './events';
import { chargeTerms } from './terms';
import type { BillingInterval } from './tables';
import type { SubscriptionView } from './schemas';
import { MESSAGES } from '../platform/messages';

export interface PlanChangeResult {
  subscription: SubscriptionView;
  /** `now`: an upgrade, in effect (difference paid); `next_renewal`: scheduled (`pendingPlanChange`); `unscheduled`: a scheduled change was undone. */
  timing: 'now' | 'next_renewal' | 'unscheduled';
  /** The `difference` order of an upgrade; null otherwise (also when nothing was left to charge). */
  orderId: string | null;
  amount: number;
  currency: 'KRW';
}

/**
 * Changes a subscription's plan (portal and seller console). Rules (Stripe's "always invoice" for upgrades,
 * "at period end" for downgrades):
 * - an upgrade is a dearer price on the same interval: it takes effect now and charges the prorated difference,
 *   (new − old) × time left / period length, rounded down; a failed charge changes nothing (SUBSCRIPTION_PAYMENT_FAILED);
 * - anything else (cheaper, or another interval) waits for the next renewal, which then charges the new price;
 * - choosing the current plan again undoes a scheduled change.
 * The difference charge goes through the same claimed-charge path as renewals (never inside a transaction, one
 * charge at a time per subscription, retried with the same idempotency key when the gateway's answer was lost).
 */
export async function changePlan(deps: Deps, subscriptionId: string, input: { planId: string; interval: BillingInterval }): Promise<PlanChangeResult> {
  const claimed = await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const sub = await repo.lockSubscription(trx, subscriptionId);
    if (!sub) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
    if (sub.status === 'ended') throw new ApiError('ALREADY_ENDED');
    if (sub.status === 'past_due') throw new ApiError('SUBSCRIPTION_NOT_ACTIVE');
    const product = await repo.productPlans(trx, sub.product_id);
    const plan = product.plans.find((p) => p.id === input.planId);
    const price = plan ? (input.interval === 'monthly' ? plan.monthlyPrice : plan.yearlyPrice) : null;
    if (!plan || price === null || price === undefined) {
      throw validationError([{ field: !plan ? 'planId' : 'interval', message: !plan ? MESSAGES.subscriptions.planNotInProduct : MESSAGES.subscriptions.intervalNotOffered }]);
    }
    const current = { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
    // The new plan's list prices as the buyer sees them now travel with the change: its orders are sold under them.
    const listPrices = { monthlyPrice: plan.monthlyPrice ?? null, yearlyPrice: plan.yearlyPrice ?? null };
    const target = { planId: plan.id, interval: input.interval, amount: price, listPrices };
    if (target.planId === current.planId && target.interval === current.interval) {
      if (!sub.pending_plan) throw new ApiError('PLAN_CHANGE_INVALID', { message: MESSAGES.subscriptions.alreadyOnPlan });
      // Undoing leaves the price the buyer pays as it is (the plan's list price may have moved since they agreed to it).
      const updated = await repo.updateSubscription(trx, sub.id, { pending_plan: jsonb(null), updated_at: now });
      await writeSubscriptionUpdated(trx, deps.clock, updated, { kind: 'plan_change_scheduled', canceled: true, to: null });
      return { kind: 'done' as const, done: { timing: 'unscheduled' as const, orderId: null, amount: 0 } };
    }
    const inFlight = await repo.chargeInFlight(trx, sub.id);
    if (inFlight) throw new ApiError('SUBSCRIPTION_PAYMENT_PENDING', { message: MESSAGES.subscriptions.paymentInProgress });

    const own = subscriptionNow(sub, now);
    const upgrade = target.interval === current.interval && target.amount > current.amount;
    if (!upgrade) {
      const updated = await repo.updateSubscription(trx, sub.id, {
        pending_plan: jsonb({ planId: target.planId, interval: target.interval, amount: target.amount, requestedAt: own.toISOString(), listPrices }),
        updated_at: now,
      });
      await writeSubscriptionUpdated(trx, deps.clock, updated, {
        kind: 'plan_change_scheduled',
        timing: 'next_renewal',
        effectiveAt: sub.current_period_end.toISOString(),
        from: { planId: current.planId, billingInterval: current.interval, amount: current.amount },
        to: { planId: target.planId, billingInterval: target.interval, amount: target.amount },
      });
      return { kind: 'done' as const, done: { timing: 'next_renewal' as const, orderId: null, amount: 0 } };
    }
    // A free trial has paid nothing for its period: an upgrade in it starts now at no charge (its first charge is the new price).
    const difference = isTrialing(sub) ? 0 : prorateDifference(current.amount, target.amount, sub.current_period_start, sub.current_period_end, own);
    if (difference === 0) {
      // Nothing left of the period to pay for: the new plan starts without a charge.
      const updated = await repo.updateSubscription(trx, sub.id, { plan_id: target.planId, amount: target.amount, pending_plan: jsonb(null), terms: jsonb(chargeTerms(sub, target)), updated_at: now });
      await writeSubscriptionUpdated(trx, deps.clock, updated, {
        kind: 'plan_changed',
        timing: 'now',
        orderId: null,
        from: { planId: current.planId, billingInterval: current.interval, amount: current.amount },
        to: { planId: target.planId, billingInterval: target.interval, amount: target.amount },
      });
      return { kind: 'done' as const, done: { timing: 'now' as const, orderId: null, amount: 0 } };
    }
    // A second upgrade at the same instant (after the first was charged, or failed) is a new change, not a retry of the
    // first: it takes the next slot. Concurrent requests still meet on the row lock, and the in-flight check above
    // sends the later one away while the first is with the gateway.
    const attempt = await repo.countSlotCharges(trx, sub.id, 'difference', own);
    const step = await claim(trx, deps, sub, { kind: 'difference', start: own, end: sub.current_period_end, attempt, target, amount: difference }, now);
    if (step.kind !== 'charge') throw new ApiError('SUBSCRIPTION_PAYMENT_PENDING', { message: MESSAGES.subscriptions.paymentInProgress });
    return { kind: 'charge' as const, chargeId: step.chargeId, amount: difference };
  });

  let timing: PlanChangeResult['timing'];
  let orderId: string | null = null;
  let amount = 0;
  if (claimed.kind === 'done') {
    ({ timing, orderId, amount } = claimed.done);
  } else {
    const r = await executeCharge(deps, claimed.chargeId);
    if (r.status === 'failed') throw new ApiError('SUBSCRIPTION_PAYMENT_FAILED', { details: { gatewayCode: r.code, gatewayMessage: r.message } });
    if (r.status === 'pending') throw new ApiError('SUBSCRIPTION_PAYMENT_PENDING', { details: { retryable: false } });
    timing = 'now';
    orderId = r.orderId;
    amount = claimed.amount;
  }
  const sub = (await repo.getSubscription(deps.db, subscriptionId))!;
  return { subscription: subscriptionView(sub), timing, orderId, amount, currency: 'KRW' };
}
