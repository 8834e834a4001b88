import { jsonb } from '../../db';
import { ApiError } from '../../platform/errors';
import { validationError } from '../../platform/errors';
import { isTrialing, prorateDifference, subscriptionNow, subscriptionView } from '../model';
import * as repo from '../repo';
import * as renewalRepo from '../renewal/repo';
import { claim, executeCharge, type Deps } from '../renewal/service';
import { writeSubscriptionUpdated } from '../events';
import { chargeTerms } from '../terms';
import type { BillingInterval } from '../tables';
import type { SubscriptionView } from '../schemas';
import { MESSAGES } from '../../platform/messages';
import { consentRecordOf, createOffer, isDearer, planChangeConsentText, planOfferView, recordBuyerConsent, type PlanOfferView } from './consent';
import * as planChangeRepo from './repo';
import type { RecurringConsent } from '../tables';

export interface PlanChangeResult {
  subscription: SubscriptionView;
  /**
   * `now`: an upgrade, in effect (difference paid); `next_renewal`: scheduled (`pendingPlanChange`); `unscheduled`: a
   * scheduled change was undone; `awaiting_consent`: a seller's change that would make the buyer pay more, offered to
   * the buyer (`offer`), nothing changed or charged (src/subscriptions/plan-change/consent.ts).
   */
  timing: 'now' | 'next_renewal' | 'unscheduled' | 'awaiting_consent';
  /** The offer awaiting the buyer's consent (`awaiting_consent` only); null otherwise. */
  offer: PlanOfferView | null;
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
/**
 * Who changes the plan: the buyer in the portal (their choice is their consent; `offerId` when they accept a
 * seller's offer), or the seller (console, dashboard, any other seller path), whose dearer changes only offer.
 */
export type PlanChangeActor = { actor: 'buyer'; offerId?: string } | { actor: 'seller' };

export async function changePlan(deps: Deps, subscriptionId: string, input: { planId: string; interval: BillingInterval }, by: PlanChangeActor): Promise<PlanChangeResult> {
  let consent: RecurringConsent | null = null;
  let acceptedOfferId: string | null = null;
  const claimed = await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const sub = await repo.lockSubscription(trx, subscriptionId);
    if (!sub) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
    if (sub.status === 'ended') throw new ApiError('ALREADY_ENDED');
    if (sub.status === 'past_due') throw new ApiError('SUBSCRIPTION_NOT_ACTIVE');
    const product = await planChangeRepo.productPlans(trx, sub.product_id);
    const plan = product.plans.find((p) => p.id === input.planId);
    const price = plan ? (input.interval === 'monthly' ? plan.monthlyPrice : plan.yearlyPrice) : null;
    if (!plan || price === null || price === undefined) {
      throw validationError([{ field: !plan ? 'planId' : 'interval', message: !plan ? MESSAGES.subscriptions.planNotInProduct : MESSAGES.subscriptions.intervalNotOffered }]);
    }
    const current = { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
    // The new plan's list prices as the buyer sees them now travel with the change: its orders are sold under them.
    const listPrices = { monthlyPrice: plan.monthlyPrice ?? null, yearlyPrice: plan.yearlyPrice ?? null };
    // So does its display name: the orders it pays for name the plan as the buyer chose it, not as it is renamed later.
    const target = { planId: plan.id, planName: plan.name, interval: input.interval, amount: price, listPrices };
    const same = target.planId === current.planId && target.interval === current.interval;
    if (same && !sub.pending_plan) throw new ApiError('PLAN_CHANGE_INVALID', { message: MESSAGES.subscriptions.alreadyOnPlan });
    const own = subscriptionNow(sub, now);
    // Undoing keeps what the buyer pays now (the list price may have moved since they agreed to it).
    const targetAmount = same ? current.amount : target.amount;
    if (by.actor === 'seller' && isDearer(sub, targetAmount)) {
      // The buyer did not ask for it and would pay more: an offer, nothing changed or charged until they agree.
      const inFlightOffer = await renewalRepo.chargeInFlight(trx, sub.id);
      if (inFlightOffer) throw new ApiError('SUBSCRIPTION_PAYMENT_PENDING', { message: MESSAGES.subscriptions.paymentInProgress });
      const name = (id: string) => product.plans.find((p) => p.id === id)?.name ?? id;
      const offer = await createOffer(trx, deps.clock, sub, { ...target, amount: targetAmount }, own, { from: name(current.planId), to: name(target.planId) });
      return { kind: 'done' as const, done: { timing: 'awaiting_consent' as const, orderId: null, amount: 0, offer: planOfferView(offer) } };
    }
    let offerRow: planChangeRepo.PlanConsentRow | undefined;
    if (by.actor === 'buyer' && by.offerId) {
      offerRow = await planChangeRepo.pendingOffer(trx, sub.id, true);
      if (!offerRow || offerRow.id !== by.offerId || offerRow.deadline <= own) throw new ApiError('NOT_FOUND', { message: MESSAGES.subscriptions.planOfferGone });
    }
    const planName = (id: string) => product.plans.find((p) => p.id === id)?.name ?? id;
    /** The buyer's consent to what this change does, recorded in this transaction (their own portal choice, or an accepted offer). */
    const consentTo = async (timing: 'now' | 'next_renewal', difference: number) => {
      if (by.actor !== 'buyer') return;
      const to = { planId: target.planId, planName: planName(target.planId), interval: target.interval, amount: targetAmount };
      consent = consentRecordOf(planChangeConsentText({ to, timing, difference, renewsAt: sub.current_period_end }), own);
      if (offerRow) {
        await planChangeRepo.resolvePlanConsent(trx, offerRow.id, 'accepted', own, jsonb(consent));
        acceptedOfferId = offerRow.id;
      } else {
        await recordBuyerConsent(trx, deps.clock, sub, { ...target, amount: targetAmount }, consent, own);
      }
    };
    if (same) {
      await consentTo('next_renewal', 0);
      // Undoing leaves the price the buyer pays as it is (the plan's list price may have moved since they agreed to it).
      const updated = await repo.updateSubscription(trx, sub.id, { pending_plan: jsonb(null), updated_at: now, ...(consent ? { recurring_consent: jsonb(consent) } : {}) });
      await writeSubscriptionUpdated(trx, deps.clock, updated, { kind: 'plan_change_scheduled', canceled: true, to: null });
      return { kind: 'done' as const, done: { timing: 'unscheduled' as const, orderId: null, amount: 0, offer: null } };
    }
    const inFlight = await renewalRepo.chargeInFlight(trx, sub.id);
    if (inFlight) throw new ApiError('SUBSCRIPTION_PAYMENT_PENDING', { message: MESSAGES.subscriptions.paymentInProgress });

    const upgrade = target.interval === current.interval && target.amount > current.amount;
    if (!upgrade) {
      await consentTo('next_renewal', 0);
      const updated = await repo.updateSubscription(trx, sub.id, {
        pending_plan: jsonb({ planId: target.planId, interval: target.interval, amount: target.amount, requestedAt: own.toISOString(), listPrices, planName: target.planName }),
        updated_at: now,
        ...(consent ? { recurring_consent: jsonb(consent) } : {}),
      });
      await writeSubscriptionUpdated(trx, deps.clock, updated, {
        kind: 'plan_change_scheduled',
        timing: 'next_renewal',
        effectiveAt: sub.current_period_end.toISOString(),
        from: { planId: current.planId, billingInterval: current.interval, amount: current.amount },
        to: { planId: target.planId, billingInterval: target.interval, amount: target.amount },
      });
      return { kind: 'done' as const, done: { timing: 'next_renewal' as const, orderId: null, amount: 0, offer: null } };
    }
    // A free trial has paid nothing for its period: an upgrade in it starts now at no charge (its first charge is the new price).
    const difference = isTrialing(sub) ? 0 : prorateDifference(current.amount, target.amount, sub.current_period_start, sub.current_period_end, own);
    await consentTo('now', difference);
    if (difference === 0) {
      // Nothing left of the period to pay for: the new plan starts without a charge.
      const updated = await repo.updateSubscription(trx, sub.id, {
        plan_id: target.planId,
        amount: target.amount,
        pending_plan: jsonb(null),
        terms: jsonb(chargeTerms(sub, target)),
        updated_at: now,
        ...(consent ? { recurring_consent: jsonb(consent) } : {}),
      });
      await writeSubscriptionUpdated(trx, deps.clock, updated, {
        kind: 'plan_changed',
        timing: 'now',
        orderId: null,
        from: { planId: current.planId, billingInterval: current.interval, amount: current.amount },
        to: { planId: target.planId, billingInterval: target.interval, amount: target.amount },
      });
      return { kind: 'done' as const, done: { timing: 'now' as const, orderId: null, amount: 0, offer: null } };
    }
    // A second upgrade at the same instant (after the first was charged, or failed) is a new change, not a retry of the
    // first: it takes the next slot. Concurrent requests still meet on the row lock, and the in-flight check above
    // sends the later one away while the first is with the gateway.
    const attempt = await renewalRepo.countSlotCharges(trx, sub.id, 'difference', own);
    const step = await claim(trx, deps, sub, { kind: 'difference', start: own, end: sub.current_period_end, attempt, target, amount: difference }, now);
    if (step.kind !== 'charge') throw new ApiError('SUBSCRIPTION_PAYMENT_PENDING', { message: MESSAGES.subscriptions.paymentInProgress });
    return { kind: 'charge' as const, chargeId: step.chargeId, amount: difference };
  });

  let timing: PlanChangeResult['timing'];
  let orderId: string | null = null;
  let amount = 0;
  let offer: PlanOfferView | null = null;
  if (claimed.kind === 'done') {
    ({ timing, orderId, amount, offer } = claimed.done);
  } else {
    const r = await executeCharge(deps, claimed.chargeId);
    if (r.status === 'failed') {
      // A declined difference changes nothing: an accepted offer is open again for the buyer to retry (another card).
      if (acceptedOfferId) await deps.db.transaction().execute((trx) => planChangeRepo.resolvePlanConsent(trx, acceptedOfferId!, 'pending', deps.clock.now()));
      throw new ApiError('SUBSCRIPTION_PAYMENT_FAILED', { details: { gatewayCode: r.code, gatewayMessage: r.message } });
    }
    if (r.status === 'pending') throw new ApiError('SUBSCRIPTION_PAYMENT_PENDING', { details: { retryable: false } });
    // The recurring consent follows the charge that made it true (the plan is now the new one).
    const agreed = consent as RecurringConsent | null;
    if (agreed) await repo.updateSubscription(deps.db, subscriptionId, { recurring_consent: jsonb(agreed), updated_at: deps.clock.now() });
    timing = 'now';
    orderId = r.orderId;
    amount = claimed.amount;
  }
  const sub = (await repo.getSubscription(deps.db, subscriptionId))!;
  return { subscription: subscriptionView(sub), timing, orderId, amount, currency: 'KRW', offer };
}
