import type { Db } from '../../db';
import { jsonb } from '../../db';
import type { Clock } from '../../platform/clock';
import { periodEnd } from '../../checkout/model';
import { writeSubscriptionUpdated } from '../events';
import type { SubscriptionRow } from '../model';
import * as subsRepo from '../repo';
import * as repo from './repo';
import type { BillingInterval, ScheduledPrice } from '../tables';

/**
 * Telling a subscriber about a price change (the rules: ./service.ts): the 30 days' notice, the renewal by which the
 * buyer decides, the decision row and the `price_change_scheduled` event, both when the seller schedules the change
 * and for a subscription that starts (or is first seen by a renewal) after it was scheduled.
 */

export const NOTICE_DAYS = 30;
const DAY_MS = 86_400_000;
export const NOTICE_MS = NOTICE_DAYS * DAY_MS;

const newAmountOf = (c: Pick<repo.PriceChangeRow, 'monthly_price' | 'yearly_price'>, interval: BillingInterval): number | null => {
  const v = interval === 'monthly' ? c.monthly_price : c.yearly_price;
  return v === null ? null : Number(v);
};

/** The first renewal of `sub` on or after `from` (its period ends, stepped by its interval). */
export function firstRenewalFrom(sub: Pick<SubscriptionRow, 'current_period_end' | 'billing_interval'>, from: Date): Date {
  let d = sub.current_period_end;
  for (let i = 0; d < from && i < 1_000; i++) d = periodEnd(d, sub.billing_interval);
  return d;
}

/**
 * Records that `sub` is told about `change` and writes its `price_change_scheduled` event (same transaction). Nothing
 * when the change does not touch its interval or its amount is already the new one. `own` is the subscription's time.
 */
export async function notify(trx: Db, clock: Clock, sub: SubscriptionRow, change: repo.PriceChangeRow, own: Date): Promise<boolean> {
  const newAmount = newAmountOf(change, sub.billing_interval);
  const currentAmount = Number(sub.amount);
  if (newAmount === null || newAmount === currentAmount) return false;
  const appliesFrom = new Date(Math.max(change.effective_at.getTime(), own.getTime() + NOTICE_MS));
  const decideBy = firstRenewalFrom(sub, appliesFrom);
  // A buyer who paid after the change was scheduled was shown the new price on the payment page and agreed to it there.
  const agreedAtCheckout = sub.recurring_consent?.priceChangeId === change.id ? new Date(sub.recurring_consent.consentedAt) : null;
  await repo.insertDecision(trx, {
    subscription_id: sub.id,
    price_change_id: change.id,
    billing_interval: sub.billing_interval,
    current_amount: currentAmount,
    new_amount: newAmount,
    applies_from: appliesFrom,
    decide_by: decideBy,
    notified_at: own,
    accepted_at: newAmount > currentAmount ? agreedAtCheckout : null,
    outcome: null,
    resolved_at: null,
    created_at: clock.now(),
  });
  // Kept on the subscription too: what its renewal at `decideBy` charges, read by the API and the receipt.
  const acceptedAt = agreedAtCheckout && newAmount > currentAmount ? agreedAtCheckout.toISOString() : null;
  const scheduled: ScheduledPrice = {
    priceChangeId: change.id,
    planId: change.plan_id,
    billingInterval: sub.billing_interval,
    currentAmount,
    amount: newAmount,
    effectiveAt: decideBy.toISOString(),
    consentRequired: newAmount > currentAmount,
    acceptedAt,
  };
  const told = await subsRepo.updateSubscription(trx, sub.id, { price_change: jsonb(scheduled) });
  await writeSubscriptionUpdated(trx, clock, told, {
    kind: 'price_change_scheduled',
    priceChangeId: change.id,
    planId: change.plan_id,
    billingInterval: sub.billing_interval,
    currentAmount,
    newAmount,
    effectiveAt: appliesFrom.toISOString(),
    decideBy: decideBy.toISOString(),
    consentRequired: newAmount > currentAmount,
    ...(agreedAtCheckout && newAmount > currentAmount ? { acceptedAt: agreedAtCheckout.toISOString() } : {}),
  });
  return true;
}

/**
 * A subscription not told yet about the newest change of its plan is told now (a subscription started after the
 * change was scheduled, or one whose period-end cancellation was undone). Called when a subscription starts and
 * before each renewal, inside the transaction holding its lock.
 */
export async function noticeIfMissed(trx: Db, clock: Clock, sub: SubscriptionRow, own: Date): Promise<void> {
  if (sub.status === 'ended' || sub.cancel_at_period_end) return;
  const change = await repo.latestChangeOfPlan(trx, sub.product_id, sub.plan_id);
  if (!change || change.store_id !== sub.store_id || change.mode !== sub.mode) return;
  if (await repo.findDecision(trx, sub.id, change.id)) return;
  if (sub.pending_plan && (sub.pending_plan.planId !== sub.plan_id || sub.pending_plan.interval !== sub.billing_interval)) return;
  await notify(trx, clock, sub, change, own);
}
