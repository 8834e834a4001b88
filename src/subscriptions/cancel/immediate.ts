import { ownValue } from '../../platform/lookup';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { jsonb } from '../../db';
import { ApiError, type ErrorCode } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { MESSAGES } from '../../platform/messages';
import type { CancelComputation } from './model';
import { cancelInputs } from './preview';
import { cancelRefundsSince, fileCancelRefundRequest, refundForCancel } from './refunds';
import type { CancelResultView } from './schemas';
import type { PlannedRefund } from './tables';
import { cancelEvent, cancelResult } from './outcome';
import { subscriptionNow, type SubscriptionRow } from '../model';
import * as repo from '../repo';
import * as cancelRepo from './repo';
import { endNow } from './end';

/**
 * The immediate cancellation: claim, refund, end (see cancelImmediately), and the background task that resumes a
 * claim whose process died. The entry point with its checks is ./service.ts.
 */

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/** Who cancels: the seller (API: the seller's decision, refunds at once) or the buyer (portal: approval rules apply). */
export type Actor = 'seller' | 'buyer';

/** An immediate cancellation claimed by a process that died is taken over after this long. */
export const CANCEL_CLAIM_MS = 2 * 60_000;

type Claimed =
  | { kind: 'done'; result: CancelResultView }
  | { kind: 'refund'; claimId: string; since: Date; plan: PlannedRefund[] };

function blockedError(b: NonNullable<CancelComputation['blockedBy']>): ApiError {
  return new ApiError(b as ErrorCode);
}

/**
 * Immediate cancellation, in three steps so no gateway call runs inside a transaction and two requests (double
 * click, retry with another key, two processes) can never refund twice:
 * 1. one transaction locks the subscription, computes the preview from what it reads under the lock, runs the
 *    checks and either finishes at once (nothing to refund, or a buyer's refund that needs approval: a refund
 *    request is filed) or inserts the claim (`subscription_cancellations`, at most one `refunding` per
 *    subscription by a unique index) holding the plan = the preview's breakdown;
 * 2. each planned refund goes through the refunds engine (its own lock, pending record and gateway call);
 * 3. one transaction ends the subscription, completes the claim and writes `subscription.ended`.
 * A process dying after step 1 leaves the claim; once its lease passes, the next attempt resumes that same plan,
 * skipping orders already refunded for it, so what is refunded is always exactly the preview of step 1.
 */
export async function cancelImmediately(deps: Deps, id: string, reason: string | null, actor: Actor): Promise<CancelResultView> {
  const claimed = await deps.db.transaction().execute(async (trx): Promise<Claimed> => {
    const sub = (await repo.lockSubscription(trx, id))!;
    const now = deps.clock.now();
    // An unfinished claim comes first, even on a subscription that has meanwhile ended: its plan was promised.
    const open = await cancelRepo.findRefundingCancellation(trx, id);
    if (open) {
      if (open.locked_until && open.locked_until > now) throw new ApiError('REFUND_IN_PROGRESS', { details: { cancellationId: open.id } });
      // Its process died (or a definite failure left refunds done): resume exactly its plan.
      await cancelRepo.renewCancellationLease(trx, open.id, new Date(now.getTime() + CANCEL_CLAIM_MS), now);
      return { kind: 'refund', claimId: open.id, since: open.created_at, plan: open.plan };
    }
    if (sub.status === 'ended') throw new ApiError('ALREADY_ENDED');

    const { comp, chargeId } = await cancelInputs(trx, sub, subscriptionNow(sub, now));
    if (comp.blockedBy === 'REFUND_IN_PROGRESS' && chargeId) {
      throw new ApiError('REFUND_IN_PROGRESS', { message: MESSAGES.subscriptions.chargeInProgress, details: { reason: 'charge_in_progress', chargeId } });
    }
    if (comp.blockedBy) throw blockedError(comp.blockedBy);
    const im = comp.immediate;
    // Everything paid for the current period already refunded (a refund that did not end it, say a partial one
    // before a later one, or data from before issue 29): the preview shows 0 with no `blockedReason`, so the cancel
    // does what it shows — it ends now without a refund. A buyer can always end a subscription now.

    const plan: PlannedRefund[] = im.breakdown.map((b) => ({ orderId: b.orderId, amount: b.amount }));
    const base = { timing: 'immediate', actor, preview: im };
    if (plan.length === 0) {
      const ended = await endNow(trx, deps, sub, reason, { ...base, refundAmount: 0, refundedOrderIds: [], refundRequestIds: [] });
      return { kind: 'done', result: cancelResult(ended, 'immediate', []) };
    }
    if (actor === 'buyer' && im.requiresApproval) {
      // The buyer's cancel stands; the refund waits for the seller's decision as a refund request.
      // Each order is judged in its own window: an order whose part is statutory (say an upgrade's difference paid
      // days ago, unused) is filed as a statutory request, locked and approved automatically on its own, even when
      // the rest of the cancellation waits for the seller.
      const ids: string[] = [];
      for (const p of plan) {
        const statutory = comp.orders.find((o) => o.orderId === p.orderId)?.statutory ?? false;
        ids.push(await fileCancelRefundRequest(trx, deps, { storeId: sub.store_id, mode: sub.mode, orderId: p.orderId, subscriptionId: sub.id, amount: p.amount, reason: reason ?? '구독 즉시 해지 환불 요청', statutory, requestedAt: subscriptionNow(sub, now), periodEnd: sub.current_period_end }));
      }
      await insertClaim(trx, deps, sub, actor, reason, im, plan, 'completed', ids[0]);
      // The service does not end before the seller decides (design: "a cancel whose refund waits for the seller keeps
      // the service until the decision"): the end is scheduled at the period end, so no renewal charges meanwhile;
      // an approval ends it then (src/subscriptions/cancel/withdrawal.ts), a rejection leaves it running to the period end.
      const scheduled = await repo.updateSubscription(trx, sub.id, { cancel_at_period_end: true, canceled_at: sub.canceled_at ?? subscriptionNow(sub, now), cancel_reason: reason ?? sub.cancel_reason, updated_at: now });
      await cancelEvent(trx, deps, scheduled, 'subscription.updated', { change: { kind: 'cancel_refund_pending', effectiveAt: scheduled.current_period_end.toISOString(), refundRequestIds: ids, preview: im } });
      return { kind: 'done', result: cancelResult(scheduled, 'immediate', []) };
    }
    try {
      const claimId = await insertClaim(trx, deps, sub, actor, reason, im, plan, 'refunding', null);
      return { kind: 'refund', claimId, since: now, plan };
    } catch (err) {
      // The unique index (one `refunding` claim per subscription) is the last word should the row lock ever not be.
      if ((err as { code?: string } | null)?.code === '23505') throw new ApiError('REFUND_IN_PROGRESS');
      throw err;
    }
  });
  if (claimed.kind === 'done') return claimed.result;
  return executePlan(deps, id, claimed.claimId, claimed.since, claimed.plan, reason);
}

async function insertClaim(
  trx: Db,
  deps: Pick<AppDeps, 'clock'>,
  sub: SubscriptionRow,
  actor: Actor,
  reason: string | null,
  preview: CancelComputation['immediate'],
  plan: PlannedRefund[],
  status: 'refunding' | 'completed',
  refundRequestId: string | null,
): Promise<string> {
  const now = deps.clock.now();
  const id = newId('scx', deps.clock);
  await cancelRepo.insertCancellation(trx, {
    id,
    subscription_id: sub.id,
    store_id: sub.store_id,
    mode: sub.mode,
    actor,
    reason,
    status,
    preview: jsonb(preview),
    plan: jsonb(plan),
    refund_amount: plan.reduce((s, p) => s + p.amount, 0),
    refunded_order_ids: jsonb([]),
    refund_request_id: refundRequestId,
    locked_until: status === 'refunding' ? new Date(now.getTime() + CANCEL_CLAIM_MS) : null,
    error_code: null,
    created_at: now,
    updated_at: now,
  });
  return id;
}

/** Engine refusals that mean the subscription's money changed under the plan, in the cancel's own codes. */
const ENGINE_CODES: Partial<Record<ErrorCode, ErrorCode>> = {
  REFUND_NONE_LEFT: 'SUBSCRIPTION_REFUND_NONE_LEFT',
  REFUND_EXCEEDS: 'SUBSCRIPTION_REFUND_NONE_LEFT',
  REFUND_NOT_PAID: 'SUBSCRIPTION_REFUND_NONE_LEFT',
  REFUND_SETTLED: 'SUBSCRIPTION_REFUND_SETTLED',
};

async function executePlan(deps: Deps, subId: string, claimId: string, since: Date, plan: PlannedRefund[], reason: string | null): Promise<CancelResultView> {
  const sub0 = (await repo.getSubscription(deps.db, subId))!;
  const done = await cancelRefundsSince(deps.db, plan.map((p) => p.orderId), since);
  let ambiguous: ApiError | null = null;
  for (const p of plan) {
    if (done.has(p.orderId)) continue;
    try {
      await refundForCancel(deps, { storeId: sub0.store_id, mode: sub0.mode, orderId: p.orderId, amount: p.amount, reason });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'PG_REFUND_AMBIGUOUS') {
        // The refund is recorded `unknown`: the engine's reconciliation settles it with the same gateway key.
        ambiguous = err;
        continue;
      }
      await releaseClaim(deps, claimId, plan, since, err);
      if (err instanceof ApiError && ownValue(ENGINE_CODES, err.code)) throw new ApiError(ownValue(ENGINE_CODES, err.code)!, { internal: err.message, details: { orderId: p.orderId } });
      throw err;
    }
  }
  const refundedIds = plan.map((p) => p.orderId);
  const ended = await deps.db.transaction().execute(async (trx) => {
    const sub = (await repo.lockSubscription(trx, subId))!;
    const claim = await cancelRepo.lockCancellation(trx, claimId);
    if (claim.status !== 'refunding') return sub;
    const now = deps.clock.now();
    await cancelRepo.completeCancellation(trx, claimId, refundedIds, now);
    // Ended meanwhile (its period ended while the refunds ran): the refunds are done, nothing more to end.
    if (sub.status === 'ended') return sub;
    return endNow(trx, deps, sub, reason, {
      timing: 'immediate',
      actor: claim.actor,
      preview: claim.preview,
      refundAmount: plan.reduce((s, p) => s + p.amount, 0),
      refundedOrderIds: refundedIds,
      refundRequestIds: [],
    });
  });
  if (ambiguous) throw new ApiError('PG_REFUND_AMBIGUOUS', { details: { subscriptionId: subId, ended: ended.status === 'ended', retryable: false } });
  return cancelResult(ended, 'immediate', plan);
}

/**
 * After a refusal: when no refund of the plan moved money, the claim fails (a later cancel starts afresh from a new
 * preview); when some did, it stays `refunding` with its lease released, so the next attempt resumes the same plan
 * rather than recomputing a preview from the reduced amounts.
 */
async function releaseClaim(deps: Deps, claimId: string, plan: PlannedRefund[], since: Date, err: unknown): Promise<void> {
  const done = await cancelRefundsSince(deps.db, plan.map((p) => p.orderId), since);
  const now = deps.clock.now();
  const code = err instanceof ApiError ? err.code : 'INTERNAL_ERROR';
  await cancelRepo.updateRefundingCancellation(
    deps.db,
    claimId,
    done.size === 0 ? { status: 'failed', error_code: code, locked_until: null, updated_at: now } : { error_code: code, locked_until: now, updated_at: now },
  );
}

/**
 * Background task: finishes immediate cancellations whose process died after claiming (lease run out), resuming
 * their own plan. Safe to run twice and in several workers (the subscription lock and the lease decide who resumes).
 */
export async function resumeStaleCancellations(deps: Deps, now: Date): Promise<number> {
  const stale = await cancelRepo.staleCancellations(deps.db, now, 20);
  let n = 0;
  for (const c of stale) {
    try {
      await cancelImmediately(deps, c.subscription_id, c.reason, c.actor);
      n++;
    } catch (err) {
      // PG_REFUND_* and refusals are recorded on the claim; the next run or the next request tries again.
      deps.log.warn({ err, subscriptionId: c.subscription_id }, 'resuming an immediate cancellation failed');
    }
  }
  return n;
}
