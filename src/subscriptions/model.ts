import type { Selectable } from 'kysely';
import type { ScheduledPrice, SubscriptionChargesTable, SubscriptionsTable } from './tables';
import type { SubscriptionView } from './schemas';

export type SubscriptionRow = Selectable<SubscriptionsTable>;
export type SubscriptionChargeRow = Selectable<SubscriptionChargesTable>;

/**
 * Subscription states (the spec leaves them open; these follow Stripe Billing's names where they overlap):
 *   active    → active     a renewal paid: the period moves forward (`period_renewed`)
 *   active    → past_due   a renewal failed: the period still moves forward (unpaid), retries are scheduled
 *   past_due  → active     a retry or a card update paid the current period
 *   past_due  → ended      the last retry failed (`endReason: payment_failed`)
 *   active    → ended      the period ended with `cancelAtPeriodEnd` (`endReason: canceled`), or an immediate cancel
 *   active    → ended      the renewal that would charge a plan price increase the buyer did not agree to
 *                          (`endReason: price_change_declined`, nothing charged; src/subscriptions/price-change/service.ts)
 * A free trial is `active` with `trialing` (its period is the trial, paid 0); its end is an ordinary renewal.
 * `ended` is final.
 */
export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'ended'] as const;

/**
 * Dunning: after the renewal at the period end fails, retries run this many days after that period end. After the
 * last one fails the subscription ends with `payment_failed`. (Stripe's default smart-retry window is similar.)
 */
export const DUNNING_RETRY_DAYS = [1, 3, 7] as const;
const DAY_MS = 86_400_000;

/** When retry `attempt` (1-based) of the period starting at `periodStart` runs; null after the last one. */
export function nextRetryAt(periodStart: Date, attempt: number): Date | null {
  const days = DUNNING_RETRY_DAYS[attempt - 1];
  return days === undefined ? null : new Date(periodStart.getTime() + days * DAY_MS);
}

/** A charge still with the gateway is retried (same idempotency key) once its lease runs out: its process died. */
export const CHARGE_LEASE_MS = 5 * 60_000;

/**
 * A charge whose gateway answer is unknown (timeout, 5xx, lost connection) is asked again with the same idempotency
 * key after these delays: 5 min, 15 min, 1 h, 3 h, 6 h, 12 h (7 calls over about 22 h). After the 7th unknown answer,
 * or once 24 h have passed since the first, it is no longer retried automatically: it becomes `needs_attention`
 * (logged at error) for the seller to settle in the console. The gateway keeps an idempotency key's answer for days
 * (Toss: 15), so a late retry still cannot charge twice.
 */
export const UNKNOWN_RETRY_DELAYS_MS = [5 * 60_000, 15 * 60_000, 60 * 60_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000] as const;
export const UNKNOWN_GIVE_UP_MS = 24 * 3_600_000;

/** What follows the `unknownAttempts`-th unknown answer (1-based) of a charge first left unanswered at `firstUnknownAt`. */
export function afterUnknownAnswer(unknownAttempts: number, firstUnknownAt: Date, now: Date): { retryAt: Date } | { giveUp: true } {
  const delay = UNKNOWN_RETRY_DELAYS_MS[unknownAttempts - 1];
  if (delay === undefined || now.getTime() - firstUnknownAt.getTime() >= UNKNOWN_GIVE_UP_MS) return { giveUp: true };
  return { retryAt: new Date(now.getTime() + delay) };
}

/** The subscription's own "now": the service clock plus its test clock offset (always 0 in live mode). */
export function subscriptionNow(row: Pick<SubscriptionRow, 'test_clock_offset_ms'>, now: Date): Date {
  return new Date(now.getTime() + Number(row.test_clock_offset_ms));
}

/** Card brand and last 4 from a gateway card summary (`신한 4330-12**-****-123*`, `카드 ****4242`). */
export function parseCardSummary(summary: string | null): { brand: string | null; last4: string | null } {
  if (!summary) return { brand: null, last4: null };
  const m = /^(.*?)\s*([0-9*][0-9*\- ]*)$/.exec(summary.trim());
  if (!m) return { brand: summary.trim().slice(0, 40) || null, last4: null };
  const digits = m[2].replace(/[\s-]/g, '');
  return { brand: m[1].trim().slice(0, 40) || null, last4: digits.length >= 4 ? digits.slice(-4) : null };
}

/** The subscription id for a checkout session: known before the gateway is called, and unique per session. */
export function subscriptionIdForSession(sessionId: string): string {
  return `sub_${sessionId.replace(/^cs_/, '')}`;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * In its free trial: active, and its current period is still the trial (the first charge, the renewal at the trial's
 * end, moves the period to start at `trial_ends_at` or makes it past_due).
 */
export function isTrialing(s: Pick<SubscriptionRow, 'status' | 'trial_ends_at' | 'current_period_start'>): boolean {
  return s.status === 'active' && s.trial_ends_at !== null && s.current_period_start < s.trial_ends_at;
}

/**
 * The plan price change still ahead of this subscription, or null: none recorded, withdrawn, already charged (the
 * period has moved past its date), the subscription ended, or a plan change for the next renewal makes it moot.
 */
export function openPriceChange(s: Pick<SubscriptionRow, 'status' | 'price_change' | 'current_period_end' | 'pending_plan'>): ScheduledPrice | null {
  const c = s.price_change;
  if (!c || s.status === 'ended') return null;
  if (new Date(c.effectiveAt) < s.current_period_end) return null;
  if (s.pending_plan && (s.pending_plan.planId !== c.planId || s.pending_plan.interval !== c.billingInterval)) return null;
  return c;
}

/**
 * What the next renewal (at `current_period_end`) charges under the terms the buyer agreed to: an agreed price
 * increase or a decrease due then, else a plan change waiting for it, else the current amount. `ends`: an increase
 * due then that the buyer has not agreed to (the renewal charges nothing and ends the subscription).
 */
export function upcomingPrice(s: Pick<SubscriptionRow, 'status' | 'price_change' | 'current_period_end' | 'pending_plan' | 'amount'>): { amount: number; priceChange: 'agreed' | 'decrease' | 'ends' | null } {
  const base = Number(s.pending_plan?.amount ?? s.amount);
  const c = openPriceChange(s);
  if (!c || new Date(c.effectiveAt).getTime() !== s.current_period_end.getTime()) return { amount: base, priceChange: null };
  if (c.consentRequired && !c.acceptedAt) return { amount: base, priceChange: 'ends' };
  return { amount: c.amount, priceChange: c.consentRequired ? 'agreed' : 'decrease' };
}

/** The documented Subscription record from its row. The billing key never leaves the database. */
export function subscriptionView(s: SubscriptionRow): SubscriptionView {
  return {
    id: s.id,
    mode: s.mode,
    status: s.status,
    productId: s.product_id,
    productName: s.product_name,
    planId: s.plan_id,
    billingInterval: s.billing_interval,
    amount: Number(s.amount),
    currency: 'KRW',
    currentPeriodStart: s.current_period_start.toISOString(),
    currentPeriodEnd: s.current_period_end.toISOString(),
    cancelAtPeriodEnd: s.cancel_at_period_end,
    canceledAt: iso(s.canceled_at),
    endedAt: iso(s.ended_at),
    endReason: s.end_reason,
    startedAt: s.started_at.toISOString(),
    buyerName: s.buyer_name,
    buyerEmail: s.buyer_email,
    buyerPhone: s.buyer_phone,
    card: s.card_brand === null && s.card_last4 === null ? null : { brand: s.card_brand, last4: s.card_last4 },
    latestOrderId: s.latest_order_id,
    metadata: s.metadata ?? null,
    pendingPlanChange: s.pending_plan
      ? { planId: s.pending_plan.planId, billingInterval: s.pending_plan.interval, amount: s.pending_plan.amount, currency: 'KRW', effectiveAt: s.current_period_end.toISOString() }
      : null,
    pendingPriceChange: pendingPriceChangeView(s),
    nextRetryAt: s.status === 'past_due' ? iso(s.next_retry_at) : null,
    trialEndsAt: iso(s.trial_ends_at),
    trialing: isTrialing(s),
    recurringConsent: s.recurring_consent ? { text: s.recurring_consent.text, consentedAt: s.recurring_consent.consentedAt } : null,
    createdAt: s.created_at.toISOString(),
  };
}

function pendingPriceChangeView(s: SubscriptionRow): SubscriptionView['pendingPriceChange'] {
  const c = openPriceChange(s);
  if (!c) return null;
  return { priceChangeId: c.priceChangeId, currentAmount: c.currentAmount, amount: c.amount, currency: 'KRW', effectiveAt: c.effectiveAt, consentRequired: c.consentRequired, acceptedAt: c.acceptedAt };
}

/**
 * Prorated difference of an upgrade made at `at` inside [start, end): the new price minus the old one, for the
 * share of the period left, counted in whole milliseconds and rounded down (the buyer never pays a won too many).
 */
export function prorateDifference(oldAmount: number, newAmount: number, start: Date, end: Date, at: Date): number {
  const total = end.getTime() - start.getTime();
  const left = Math.max(0, Math.min(total, end.getTime() - at.getTime()));
  if (total <= 0 || newAmount <= oldAmount) return 0;
  // BigInt: won × milliseconds passes 2^53 for large amounts; division of positives rounds down.
  return Number((BigInt(newAmount - oldAmount) * BigInt(left)) / BigInt(total));
}
