import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { ApiError } from '../../platform/errors';
import type { Mode } from '../../platform/tables';
import type { CancelInput, CancelPreviewView, CancelResultView } from './schemas';
import { subscriptionNow, type SubscriptionRow } from '../model';
import * as repo from '../repo';
import * as cancelRepo from './repo';
import { cancelImmediately, type Actor } from './immediate';
import { cancelEvent, cancelResult } from './outcome';
import { previewOf } from './preview';

/**
 * Cancelling a subscription, the use case: the preview endpoint, the cancel endpoint with its checks in order
 * (CANCEL_CHECKS), scheduling and undoing a period-end cancellation, and the portal's pending parts. The immediate
 * cancellation's claim/refund/end steps are in ./immediate.ts, the preview's reading in ./preview.ts.
 */

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export interface Scope {
  storeId: string;
  mode: Mode;
  productIds: string[] | null;
}

/**
 * The order in which POST /v1/subscriptions/{id}/cancel checks a request; the first failing check answers.
 * Kept as data so the operation's description and the code cannot drift apart.
 */
export const CANCEL_CHECKS: Array<[string, string]> = [
  ['VALIDATION_FAILED', 'the body\'s shape (`timing` missing or unknown, unknown fields, `reason` over 500 characters)'],
  ['SUBSCRIPTION_NOT_FOUND', 'no such subscription in the key\'s store and mode, or outside the key\'s product range'],
  ['ALREADY_ENDED', 'the subscription has ended'],
  ['ALREADY_CANCELED', '`period_end` only: a period-end cancellation is already scheduled'],
  ['REFUND_REQUEST_PENDING', '`immediate` only: an active (requested or held) refund request of the subscription or one of its orders'],
  ['REFUND_IN_PROGRESS', '`immediate` only: a refund of a current-period order is `pending` or `unknown`, another immediate cancellation of this subscription is in progress, or a renewal/difference charge is with the gateway or awaits the seller (`details.reason: "charge_in_progress"`, `details.chargeId`)'],
  ['SUBSCRIPTION_REFUND_SETTLED', '`immediate` only: a current-period order is in a settlement round'],
  ['SUBSCRIPTION_REFUND_NONE_LEFT', '`immediate` only: the money of a current-period order changed between the preview read under the lock and its refund (a refund made elsewhere meanwhile); nothing was refunded and the subscription stays as it was. A period already refunded in full is no error: the cancel ends the subscription without a refund, as its preview (0, no `blockedReason`) says'],
  ['ORDER_NOT_FOUND', '`immediate` only: an order of the refund plan is no longer in the store and mode (answered by the refunds engine)'],
  ['PG_REFUND_FAILED', '`immediate` only: the gateway refused a refund; nothing more was refunded and the subscription stays as it was'],
  ['PG_REFUND_AMBIGUOUS', '`immediate` only: a refund\'s outcome is unknown; the subscription has ended and reconciliation settles the refund (read the order before retrying)'],
];

async function findInRange(db: Db, scope: Scope, id: string): Promise<SubscriptionRow> {
  const row = await repo.findSubscription(db, scope, id);
  if (!row) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
  return row;
}

/** GET /v1/subscriptions/{id}/cancel-preview: what each timing would do now (by the subscription's own clock). */
export async function previewCancel(deps: Pick<AppDeps, 'db' | 'clock'>, scope: Scope, id: string): Promise<CancelPreviewView> {
  const sub = await findInRange(deps.db, scope, id);
  return previewOf(deps.db, sub, subscriptionNow(sub, deps.clock.now()));
}

/** POST /v1/subscriptions/{id}/cancel (and the portal's buttons, with actor `buyer`). Checks in CANCEL_CHECKS order. */
export async function cancelSubscription(deps: Deps, scope: Scope, id: string, input: CancelInput, actor: Actor = 'seller'): Promise<CancelResultView> {
  await findInRange(deps.db, scope, id);
  if (input.timing === 'period_end') return scheduleAtPeriodEnd(deps, id, input.reason ?? null);
  return cancelImmediately(deps, id, input.reason ?? null, actor);
}

async function scheduleAtPeriodEnd(deps: Deps, id: string, reason: string | null): Promise<CancelResultView> {
  return deps.db.transaction().execute(async (trx) => {
    const sub = (await repo.lockSubscription(trx, id))!;
    if (sub.status === 'ended') throw new ApiError('ALREADY_ENDED');
    if (sub.cancel_at_period_end) throw new ApiError('ALREADY_CANCELED', { details: { effectiveAt: sub.current_period_end.toISOString() } });
    const now = deps.clock.now();
    const updated = await repo.updateSubscription(trx, id, { cancel_at_period_end: true, canceled_at: subscriptionNow(sub, now), cancel_reason: reason, updated_at: now });
    await cancelEvent(trx, deps, updated, 'subscription.updated', { change: { kind: 'cancel_scheduled', effectiveAt: updated.current_period_end.toISOString() } });
    return cancelResult(updated, 'period_end', []);
  });
}

/** Undoes a scheduled period-end cancellation (the portal's "해지 취소"). No-op when none is scheduled. */
export async function undoScheduledCancel(deps: Pick<AppDeps, 'db' | 'clock'>, id: string): Promise<SubscriptionRow> {
  return deps.db.transaction().execute(async (trx) => {
    const sub = (await repo.lockSubscription(trx, id))!;
    if (sub.status === 'ended') throw new ApiError('ALREADY_ENDED');
    if (!sub.cancel_at_period_end) return sub;
    // A portal cancel whose refund is still undecided cannot be undone here (its requests are withdrawn on the receipt
    // page first): the refund and the end are decided together.
    if ((await cancelRepo.pendingCancelRequests(trx, id)).some((r) => r.status === 'requested' || r.status === 'held')) throw new ApiError('REFUND_REQUEST_PENDING');
    const now = deps.clock.now();
    const updated = await repo.updateSubscription(trx, id, { cancel_at_period_end: false, canceled_at: null, cancel_reason: null, updated_at: now });
    await cancelEvent(trx, deps, updated, 'subscription.updated', { change: { kind: 'cancel_unscheduled' } });
    return updated;
  });
}

/** One part of a portal cancel that waits for the seller, as its confirmation page names it. */
export interface PendingCancelPart {
  refundRequestId: string;
  orderId: string;
  amount: number;
  /** Statutory (청약철회): approved automatically at `autoApproveAt` unless the seller approves it sooner. */
  statutory: boolean;
  autoApproveAt: Date | null;
  status: string;
}

/** The refund requests filed by the subscription's latest portal cancel (empty when none waited for the seller). */
export async function pendingCancelParts(db: Db, subscriptionId: string): Promise<PendingCancelPart[]> {
  const rows = await cancelRepo.pendingCancelRequests(db, subscriptionId);
  return rows.map((r) => ({ refundRequestId: r.id, orderId: r.order_id, amount: Number(r.amount), statutory: r.statutory, autoApproveAt: r.auto_approve_at, status: r.status }));
}
