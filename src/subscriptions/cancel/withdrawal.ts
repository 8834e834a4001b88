import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import type { OrderRow } from '../../orders/model';
import { withdrawalWindowEnd } from '../../platform/calendar';
import { endNow } from './end';
import * as cancelRepo from './repo';
import { jsonb } from '../../db';
import { writeSubscriptionUpdated } from '../events';
import { subscriptionNow, type SubscriptionRow } from '../model';
import * as repo from '../repo';
import * as renewalRepo from '../renewal/repo';
import { chargeTerms } from '../terms';
import type { PreviousTerms } from '../tables';

/**
 * The subscription's state follows the money (issue 29; design "Subscriptions": a refunded withdrawal voids the
 * contract). Called by the refunds engine inside the transaction that records a succeeded refund (order locked), and
 * by the refund requests module when a seller rejects a request filed by a portal cancel.
 *
 * What a succeeded refund of a subscription's order does to the subscription (the refund's time is the subscription's
 * own clock; only an order whose period covers that time, the current period, counts):
 *   - refunds made by an immediate cancellation itself (`source: subscription_cancel`): nothing here, the cancel ends
 *     the subscription with its own `cancellation` record;
 *   - a refund approving a request filed by a portal cancel that waited for the seller: once none of that cancel's
 *     requests is undecided and none was rejected, the subscription ends now (`canceled`); a statutory request of the
 *     period's main order ends it as `withdrawn` at once;
 *   - an approved statutory request of the period's main order (initial or renewal), or a refund that leaves that
 *     whole order refunded inside its withdrawal window: 청약철회, ends now with `endReason: withdrawn`;
 *   - a refund that leaves that whole order refunded after its window (the seller's choice, outside the law's
 *     withdrawal): nothing is paid for the period any more, so it ends now too, `endReason: refunded` (decision note
 *     in docs/manual/08-subscriptions.md: ending at the period end would keep a service nobody pays for and let an
 *     upgrade charge only a difference on a price already returned);
 *   - an upgrade's difference order withdrawn alone (an approved statutory request of it, or a refund leaving it
 *     refunded in full, inside or outside its window): the upgrade contract is void, so the subscription returns to the
 *     plan, interval, renewal price, terms, recurring consent and scheduled change it had just before that upgrade,
 *     as recorded on the difference charge when the upgrade took effect (`previous`, migration 075), and
 *     `subscription.updated` says so (`change.kind: plan_change_withdrawn`). The base order still pays for the
 *     period, so it keeps running (its licences too: they belong to the subscription, not to the difference order);
 *     the next renewal charges the earlier price. Withdrawing the base order as well then ends it, as above;
 *   - anything else (a partial refund, a refund of a past period's order) leaves it as is.
 * An ended subscription is never charged again: renewals, retries and plan changes refuse `ended`, and a charge
 * claimed before the end is not sent to the gateway (src/subscriptions/renewal/service.ts executeCharge).
 */

type Deps = Pick<AppDeps, 'clock'>;

export interface RefundFacts {
  id: string;
  amount: number;
  source: string;
  refund_request_id: string | null;
  keep_licenses: boolean;
}

export async function afterOrderRefunded(trx: Db, deps: Deps, order: OrderRow, refund: RefundFacts, fullyRefunded: boolean): Promise<void> {
  if (!order.subscription_id || refund.source === 'subscription_cancel') return;
  if (!order.period_start || !order.period_end || !order.paid_at) return;
  const sub = await repo.lockSubscription(trx, order.subscription_id);
  if (!sub || sub.status === 'ended') return;
  const at = subscriptionNow(sub, deps.clock.now());
  // Only the order paying for the current period (a past period's refund changes nothing about the present one).
  if (!(order.period_start <= at && at < order.period_end)) return;
  const main = order.subscription_event !== 'difference';
  const request = refund.refund_request_id ? await cancelRepo.findRefundRequest(trx, refund.refund_request_id) : undefined;
  const inWindow = at < withdrawalWindowEnd(order.paid_at, order.terms.refundDays);
  const facts = { orderId: order.id, refundId: refund.id, refundRequestId: refund.refund_request_id, amount: refund.amount };

  if (main && (request?.statutory || (fullyRefunded && inWindow))) {
    await endNow(trx, deps, sub, null, { kind: 'withdrawal', ...facts }, { endReason: 'withdrawn', keepLicenses: refund.keep_licenses, extraKey: 'refund' });
    return;
  }
  if (request && request.source === 'subscription_cancel' && request.subscription_id === sub.id) {
    const state = await cancelRepo.pendingCancelRequests(trx, sub.id);
    const others = state.filter((r) => r.id !== request.id);
    if (others.some((r) => r.status === 'requested' || r.status === 'held' || r.status === 'rejected')) return;
    await endNow(trx, deps, sub, sub.cancel_reason, { kind: 'cancel_approved', ...facts, refundRequestIds: state.map((r) => r.id) }, { extraKey: 'refund' });
    return;
  }
  if (!main && (request?.statutory || fullyRefunded)) {
    await revertUpgrade(trx, deps, sub, order, { ...facts, statutory: request?.statutory ?? inWindow });
    return;
  }
  if (main && fullyRefunded) {
    await endNow(trx, deps, sub, null, { kind: 'full_refund', ...facts }, { endReason: 'refunded', keepLicenses: refund.keep_licenses, extraKey: 'refund' });
  }
}

/**
 * The buyer withdrew an upgrade's difference order alone (or the seller refunded it in full): the subscription returns
 * to what it was just before that upgrade. Decision where the spec is silent (docs/manual/08-subscriptions.md):
 *   - "before" is what the difference charge recorded when the upgrade took effect (plan, interval, price, the terms as
 *     sold then, the recurring consent then, and a downgrade that was scheduled then), never the live product;
 *   - a later upgrade in the same period stands on the withdrawn one (its difference was priced from it), so it falls
 *     with it: the subscription returns to before the withdrawn upgrade, and the later difference order stays
 *     refundable on its own (the cancel preview and the receipt page still offer it); withdrawing that later one
 *     afterwards changes nothing more;
 *   - an upgrade recorded before migration 075 has only plan, interval and price (from its `plan_changed` event); its
 *     terms are those of the period's own order when that was sold under the plan, else the current ones with the plan
 *     put back;
 *   - nothing is charged or refunded here; `latest_order_id` and the period stay.
 */
async function revertUpgrade(
  trx: Db,
  deps: Deps,
  sub: SubscriptionRow,
  order: OrderRow,
  facts: { orderId: string; refundId: string; refundRequestId: string | null; amount: number; statutory: boolean },
): Promise<void> {
  const charge = await renewalRepo.differenceChargeOfOrder(trx, order.id);
  const prev = charge?.previous;
  if (!charge || !prev) return;
  // Within a period the price only rises by upgrades and falls back by such withdrawals (other changes wait for the
  // renewal), so a subscription below this upgrade's price no longer stands on it: an earlier upgrade it was built on
  // was withdrawn already, and the subscription is back before both.
  const target = charge.target;
  if (target && (sub.billing_interval !== target.interval || Number(sub.amount) < target.amount)) return;
  const terms = prev.terms ?? (await legacyTerms(trx, sub, order, prev));
  const now = deps.clock.now();
  const reverted = await repo.updateSubscription(trx, sub.id, {
    plan_id: prev.planId,
    billing_interval: prev.interval,
    amount: prev.amount,
    terms: jsonb(terms),
    ...(prev.recurringConsent !== undefined ? { recurring_consent: jsonb(prev.recurringConsent) } : {}),
    pending_plan: jsonb(prev.pendingPlan ?? null),
    updated_at: now,
  });
  await writeSubscriptionUpdated(trx, deps.clock, reverted, {
    kind: 'plan_change_withdrawn',
    ...facts,
    from: { planId: sub.plan_id, billingInterval: sub.billing_interval, amount: Number(sub.amount) },
    to: { planId: prev.planId, billingInterval: prev.interval, amount: prev.amount },
  });
}

/** The terms of the plan before an upgrade recorded without them (before migration 075). */
async function legacyTerms(trx: Db, sub: SubscriptionRow, order: OrderRow, prev: PreviousTerms) {
  const at = order.period_start!;
  const base = (await cancelRepo.cancelOrdersOf(trx, sub.id)).find(
    (o) => o.subscription_event !== 'difference' && o.period_start && o.period_end && o.period_start <= at && at < o.period_end && o.terms.plan?.id === prev.planId,
  );
  return base ? base.terms : chargeTerms(sub, { planId: prev.planId, interval: prev.interval, amount: prev.amount });
}

/**
 * A seller rejected a request filed by a portal cancel (inside the rejection's transaction): the subscription keeps
 * running to its period end (the cancel stays scheduled there: `cancelAtPeriodEnd`), and `subscription.updated` with
 * `change.kind: cancel_refund_rejected` tells the seller's backend; the buyer gets the decision mail of the request
 * (`refund_request_decided`) and the portal shows the period end.
 */
export async function afterCancelRequestRejected(trx: Db, deps: Deps, request: { id: string; subscription_id: string | null; source: string }): Promise<void> {
  if (request.source !== 'subscription_cancel' || !request.subscription_id) return;
  const sub = await repo.lockSubscription(trx, request.subscription_id);
  if (!sub || sub.status === 'ended') return;
  const now = deps.clock.now();
  const updated = sub.cancel_at_period_end
    ? sub
    : await repo.updateSubscription(trx, sub.id, { cancel_at_period_end: true, canceled_at: sub.canceled_at ?? subscriptionNow(sub, now), updated_at: now });
  await writeSubscriptionUpdated(trx, deps.clock, updated, { kind: 'cancel_refund_rejected', refundRequestId: request.id, effectiveAt: updated.current_period_end.toISOString() });
}
