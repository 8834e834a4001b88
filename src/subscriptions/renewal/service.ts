import type { Db } from '../../db';
import { jsonb } from '../../db';
import { newId } from '../../platform/ids';
import { decryptSecret } from '../../platform/crypto';
import { periodEnd } from '../../checkout/model';
import { providerOfPayment, type Outcome, type ConfirmResult } from '../../payments';
import { getModeSettings } from '../../stores/service';
import type { BackgroundTask } from '../../platform/background';
import { countRenewal, endSubscription, recordCharge, type ChargeResult, type Deps } from './charge-outcome';
import { CHARGE_LEASE_MS, subscriptionNow, subscriptionView, type SubscriptionRow } from '../model';
import * as repo from '../repo';
import * as cancelRepo from '../cancel/repo';
import * as renewalRepo from './repo';
import type { ChargeTarget } from '../tables';
import { MESSAGES } from '../../platform/messages';
import { trialConversionBlocked } from '../trials/consent';
import { noticeIfMissed } from '../price-change/notice';
import { priceAtRenewal, resolvePriceChange } from '../price-change/at-renewal';
import { BILLING_KEY_GONE_CODES, removeGoneCard } from './card-gone';

export type { Deps };

type Target = ChargeTarget;
type Step = { kind: 'idle' } | { kind: 'progress'; ended?: true } | { kind: 'charge'; chargeId: string };

/** At most this many renewals, retries and endings for one subscription in one run (a test clock moved years ahead). */
const MAX_STEPS = 60;

export function billingTask(deps: Deps): BackgroundTask {
  return { name: 'subscriptions.billing', intervalMs: 30_000, run: (now) => runBilling(deps, now) };
}

/**
 * The billing run: takes "now" and is safe to run at any time, twice, or in several workers at once. It retries
 * charges whose worker died with them at the gateway, then brings every due subscription up to date (renewals at
 * the period end, dunning retries, period-end cancellations). Returns the number of subscriptions it touched.
 */
export async function runBilling(deps: Deps, now: Date): Promise<number> {
  let n = 0;
  for (const stale of await renewalRepo.staleCharges(deps.db, now, 50)) {
    const taken = await deps.db.transaction().execute((trx) => renewalRepo.takeOverCharge(trx, stale.id, now, new Date(now.getTime() + CHARGE_LEASE_MS)));
    if (taken) {
      await executeCharge(deps, taken.id);
      n++;
    }
  }
  for (const { id } of await renewalRepo.dueSubscriptions(deps.db, now, 100)) {
    n += (await processSubscription(deps, id, now)) > 0 ? 1 : 0;
  }
  return n;
}

/** Runs everything due for one subscription by its own clock until nothing is left due. Returns the steps taken. */
export async function processSubscription(deps: Deps, id: string, now: Date): Promise<number> {
  let steps = 0;
  for (; steps < MAX_STEPS; steps++) {
    const s = await deps.db.transaction().execute((trx) => step(trx, deps, id, now));
    if (s.kind === 'idle') break;
    if (s.kind === 'progress' && s.ended) countRenewal('ended');
    if (s.kind === 'charge') {
      const r = await executeCharge(deps, s.chargeId);
      if (r.status === 'pending') break;
    }
  }
  return steps;
}

/** One due thing for a locked subscription: end it, or claim the charge it owes (called with the gateway after commit). */
async function step(trx: Db, deps: Deps, id: string, now: Date): Promise<Step> {
  const sub = await repo.lockSubscription(trx, id);
  if (!sub || sub.status === 'ended') return { kind: 'idle' };
  const own = subscriptionNow(sub, now);
  if (sub.status === 'active' && sub.current_period_end <= own) {
    if (sub.cancel_at_period_end) {
      await endSubscription(trx, deps, sub, 'canceled', sub.current_period_end);
      return { kind: 'progress', ended: true };
    }
    // A trial longer than 30 days converts only with a consent given in the 30 days before (trial-consent.ts).
    if (trialConversionBlocked(sub)) {
      await endSubscription(trx, deps, sub, 'trial_not_confirmed', sub.current_period_end);
      return { kind: 'progress', ended: true };
    }
    const planned: Target = sub.pending_plan
      ? { planId: sub.pending_plan.planId, interval: sub.pending_plan.interval, amount: sub.pending_plan.amount, ...(sub.pending_plan.listPrices ? { listPrices: sub.pending_plan.listPrices } : {}), ...(sub.pending_plan.planName ? { planName: sub.pending_plan.planName } : {}) }
      : { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
    // A plan price change (src/subscriptions/price-change/service.ts): an agreed increase or a decrease sets the price; an
    // increase the buyer did not agree to ends the subscription at this period end, charging nothing.
    if (await cancelRepo.openCancellation(trx, sub.id)) {
      deps.log.info({ subscriptionId: sub.id }, 'renewal not run: an immediate cancellation is in progress');
      return { kind: 'idle' };
    }
    await noticeIfMissed(trx, deps.clock, sub, own);
    const priced = await priceAtRenewal(trx, sub, planned, own);
    if (priced.kind === 'end') {
      await resolvePriceChange(trx, sub, priced.priceChangeId, 'ended', own);
      await endSubscription(trx, deps, sub, 'price_change_declined', sub.current_period_end);
      return { kind: 'progress', ended: true };
    }
    const target = priced.target;
    const start = sub.current_period_end;
    const claimed = await claim(trx, deps, sub, { kind: 'renewal', start, end: periodEnd(start, target.interval), attempt: 0, target }, now);
    if (claimed.kind === 'charge' && priced.applied) await resolvePriceChange(trx, sub, priced.applied, 'applied', own);
    return claimed;
  }
  if (sub.status === 'past_due' && sub.next_retry_at && sub.next_retry_at <= own) {
    if (sub.cancel_at_period_end) {
      // The buyer asked to stop: no point collecting a period they will not use.
      await endSubscription(trx, deps, sub, 'canceled', own);
      return { kind: 'progress', ended: true };
    }
    return claimRetry(trx, deps, sub, now);
  }
  return { kind: 'idle' };
}

/** Claims the next dunning retry of a past_due subscription (also used by a card update, which brings it forward). */
export async function claimRetry(trx: Db, deps: Pick<Deps, 'clock'> & Partial<Pick<Deps, 'log'>>, sub: SubscriptionRow, now: Date): Promise<Step> {
  const target: Target = { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
  return claim(trx, deps, sub, { kind: 'renewal', start: sub.current_period_start, end: sub.current_period_end, attempt: sub.dunning_attempts, target }, now);
}

/**
 * Claims one charge slot (subscription, kind, period, attempt): the unique key lets exactly one worker insert it. A
 * slot already taken is left alone, unless its worker died with it at the gateway (lease run out): then one
 * worker takes it over by a conditional update and asks the gateway again with the same idempotency key.
 */
export async function claim(
  trx: Db,
  deps: Pick<Deps, 'clock'> & Partial<Pick<Deps, 'log'>>,
  sub: SubscriptionRow,
  c: { kind: 'renewal' | 'difference'; start: Date; end: Date; attempt: number; target: Target; amount?: number },
  now: Date,
): Promise<Step> {
  // An immediate cancellation holds its claim while it refunds: charging a new period (or a difference) of a
  // subscription that is being cancelled would take money the cancel never refunds. Checked under the subscription's
  // row lock, which the cancel's claim is inserted under too, so one of the two always sees the other.
  if (await cancelRepo.openCancellation(trx, sub.id)) {
    deps.log?.info({ subscriptionId: sub.id, kind: c.kind }, 'charge not claimed: an immediate cancellation is in progress');
    return { kind: 'idle' };
  }
  const lease = new Date(now.getTime() + CHARGE_LEASE_MS);
  const inserted = await renewalRepo.claimCharge(trx, {
    id: newId('sch', deps.clock),
    subscription_id: sub.id,
    kind: c.kind,
    period_start: c.start,
    period_end: c.end,
    attempt: c.attempt,
    order_id: newId('ord', deps.clock),
    amount: c.amount ?? c.target.amount,
    target: jsonb(c.target),
    status: 'charging',
    locked_until: lease,
    error_code: null,
    error_message: null,
    created_at: now,
    updated_at: now,
  });
  if (inserted) return { kind: 'charge', chargeId: inserted.id };
  const existing = await renewalRepo.findCharge(trx, sub.id, c.kind, c.start, c.attempt);
  if (existing?.status === 'charging' && existing.locked_until && existing.locked_until <= now) {
    const taken = await renewalRepo.takeOverCharge(trx, existing.id, now, lease);
    if (taken) return { kind: 'charge', chargeId: taken.id };
  }
  return { kind: 'idle' };
}

/** Calls the gateway for a claimed charge (never inside a transaction) and records what it answered. */
export async function executeCharge(deps: Deps, chargeId: string): Promise<ChargeResult> {
  const charge = await renewalRepo.getCharge(deps.db, chargeId);
  const sub = await repo.getSubscription(deps.db, charge.subscription_id);
  if (!sub) throw new Error(`subscription ${charge.subscription_id} of charge ${chargeId} is gone`);
  // Charged by the gateway that issued the billing key, under the MID that issued it (issue 32: the 자동결제 MID when
  // it did), even when the store's mode has moved to another provider since: a key cannot move between PGs (issue 42).
  const provider = await providerOfPayment(deps, sub, async () => (await getModeSettings(deps.db, sub.store_id, sub.mode)).raw);
  let outcome: Outcome<ConfirmResult>;
  if (sub.status === 'ended' && Number(charge.unknown_attempts) === 0) {
    // Ended after the charge was claimed and before the gateway was ever asked (a withdrawal refunded meanwhile,
    // src/subscriptions/cancel/withdrawal.ts): the contract is void, so the gateway is never asked. A charge whose earlier
    // call went unanswered is still asked (same key): it may have moved money, which must be recorded.
    outcome = { status: 'failed', code: 'SUBSCRIPTION_ENDED', message: MESSAGES.subscriptions.subscriptionEnded };
  } else if (Number(charge.amount) === 0) {
    outcome = { status: 'succeeded', value: { paymentKey: '', approvedAt: deps.clock.now(), method: 'card' } };
  } else if (!provider) {
    outcome = { status: 'failed', code: 'CHECKOUT_NOT_CONFIGURED', message: MESSAGES.subscriptions.checkoutNotConfigured };
  } else if (!sub.billing_key_sealed) {
    outcome = { status: 'failed', code: 'NO_BILLING_KEY', message: MESSAGES.subscriptions.noBillingKey };
  } else {
    try {
      outcome = await provider.chargeBillingKey({
        billingKey: decryptSecret(deps.config.masterKey, sub.billing_key_sealed).toString('utf8'),
        customerKey: sub.customer_key,
        amount: Number(charge.amount),
        orderId: charge.order_id,
        orderName: `${sub.product_name} ${charge.kind === 'renewal' ? '정기결제' : '플랜 변경 차액'}`.slice(0, 100),
        idempotencyKey: charge.id,
      });
    } catch (err) {
      // A provider must not throw; if one does, the charge may have happened: unknown, retried with the same key.
      outcome = { status: 'unknown', message: err instanceof Error ? err.message : String(err) };
    }
  }
  const result = await recordCharge(deps, chargeId, outcome, provider?.name ?? sub.provider);
  // What the charge proved about the card (a BILLING_DELETED webhook is only a report; see card-gone.ts): charged, the
  // report (if any) was false; refused because the gateway no longer holds the key, the card is gone.
  const used = sub.billing_key_sealed;
  if (used && Number(charge.amount) > 0) {
    if (result.status === 'succeeded') await repo.clearCardReportedDeleted(deps.db, sub.id, used);
    else if (result.status === 'failed' && outcome.status === 'failed' && BILLING_KEY_GONE_CODES.has(outcome.code)) await removeGoneCard(deps, sub.id, used);
  }
  return result;
}

export { subscriptionView };
export { recordCharge, endSubscription, type ChargeResult } from './charge-outcome';
