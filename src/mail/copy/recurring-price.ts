/**
 * What a subscription's first recurring charge will be, for the mails that confirm the contract: the price as sold,
 * unless a plan price change was already scheduled when the buyer paid (src/subscriptions/price-change/notice.ts
 * records it for the new subscription, with the renewal that first charges it). A buyer who paid after an increase was
 * scheduled agreed to it on the payment page, so that renewal charges the new price: the mail must say that amount
 * (issue 38: it said 9,900 for a first charge of 12,900 on 2027-01-02).
 */

import { needsFreshTrialConsent } from '../../subscriptions/trials/consent';

/** The subscription's price change as the mail reads it (dispatch.ts, from subscription_price_changes). */
export interface PriceSchedule {
  /** The renewal (ISO) that first charges the new amount. */
  from: string;
  amount: number;
  /** An increase: charged only with the buyer's consent (else the subscription ends at `from`, nothing charged). */
  consentRequired: boolean;
  accepted: boolean;
}

export interface FirstRecurring {
  /** The price as sold. */
  amount: number;
  /** What the first recurring charge (at the order's period end) takes. */
  firstAmount: number;
  /** The first charge is already at the new price. */
  changed: boolean;
  /** A change that applies from a later renewal. */
  later: { from: string; amount: number } | null;
  /** An increase at the first charge that the buyer has not agreed to: nothing is charged then and the subscription ends. */
  endsAt: string | null;
}

export function firstRecurring(listed: number, periodEnd: string | null | undefined, p: PriceSchedule | null): FirstRecurring {
  const none: FirstRecurring = { amount: listed, firstAmount: listed, changed: false, later: null, endsAt: null };
  if (!p || p.amount === listed || !periodEnd) return none;
  const first = new Date(periodEnd).getTime();
  const from = new Date(p.from).getTime();
  if (from < first) return none;
  const payable = !p.consentRequired || p.accepted;
  if (from === first) {
    return payable ? { ...none, firstAmount: p.amount, changed: true } : { ...none, endsAt: p.from };
  }
  return payable ? { ...none, later: { from: p.from, amount: p.amount } } : none;
}

/**
 * A trial longer than 30 days, by the rule the renewal applies (needsFreshTrialConsent) on the subscription record the
 * mail reads: its first charge needs a fresh consent within the 30 days before it, and without it the trial ends
 * unpaid, so no mail may promise that charge (issue 38: a 60-day trial's mail said "그때 첫 정기결제 9,900원").
 */
export function isLongTrial(sub: Record<string, unknown>): boolean {
  if (typeof sub.trialEndsAt !== 'string' || typeof sub.startedAt !== 'string') return false;
  return needsFreshTrialConsent({ trial_ends_at: new Date(sub.trialEndsAt), started_at: new Date(sub.startedAt) });
}
