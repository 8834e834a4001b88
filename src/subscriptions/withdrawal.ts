import type { AppDeps } from '../deps';
import type { Db } from '../db';
import type { OrderRow } from '../orders/model';
import { withdrawalWindowEnd } from '../platform/calendar';
import { endNow } from './end';
import * as cancelRepo from './cancel-repo';
import { writeSubscriptionUpdated } from './events';
import { subscriptionNow } from './model';
import * as repo from './repo';

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
 *   - anything else (a partial refund, a refund of a past period's order, a difference order alone) leaves it as is.
 * An ended subscription is never charged again: renewals, retries and plan changes refuse `ended`, and a charge
 * claimed before the end is not sent to the gateway (src/subscriptions/renewal.ts executeCharge).
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
  if (main && fullyRefunded) {
    await endNow(trx, deps, sub, null, { kind: 'full_refund', ...facts }, { endReason: 'refunded', keepLicenses: refund.keep_licenses, extraKey: 'refund' });
  }
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
