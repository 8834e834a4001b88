import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { jsonb } from '../../db';
import { ApiError, type ErrorCode } from '../../platform/errors';
import { writeEvent } from '../../platform/events';
import { newId } from '../../platform/ids';
import type { Mode } from '../../platform/tables';
import { computeCancel, type CancelComputation, type CancelOrderInput, type CancelPolicy } from './model';
import type { SaleTerms } from '../../orders/terms';
import { activeRefundRequest, cancelRefundsSince, fileCancelRefundRequest, refundForCancel } from './refunds';
import type { CancelInput, CancelPreviewView, CancelResultView } from './schemas';
import type { PlannedRefund } from './tables';
import { subscriptionNow, subscriptionView, type SubscriptionRow } from '../model';
import * as repo from '../repo';
import * as renewalRepo from '../renewal/repo';
import * as cancelRepo from './repo';
import { endNow } from './end';
import { MESSAGES } from '../../platform/messages';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export interface Scope {
  storeId: string;
  mode: Mode;
  productIds: string[] | null;
}

/** Who cancels: the seller (API: the seller's decision, refunds at once) or the buyer (portal: approval rules apply). */
export type Actor = 'seller' | 'buyer';

/** An immediate cancellation claimed by a process that died is taken over after this long. */
export const CANCEL_CLAIM_MS = 2 * 60_000;

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

// ---------- reading the inputs ----------

async function cancelInputs(db: Db, sub: SubscriptionRow, now: Date): Promise<{ comp: CancelComputation; orderIds: string[]; chargeId: string | null }> {
  const orders = await cancelRepo.cancelOrdersOf(db, sub.id);
  const orderIds = orders.map((o) => o.id);
  const inFlight = new Set(
    orderIds.length
      ? (await cancelRepo.refundsInFlightOf(db, orderIds)).map((r) => r.order_id)
      : [],
  );
  const request = await activeRefundRequest(db, sub.id, orderIds);
  const claim = await cancelRepo.openCancellation(db, sub.id);
  // A renewal (or an upgrade's difference) charge whose answer is not recorded yet: the period it pays for is not
  // known, so no preview can be honoured until it is (blocked like a refund in progress; see CANCEL_CHECKS).
  const charge = await renewalRepo.chargeInFlight(db, sub.id);
  // Evidence of use: a license of the subscription activated or verified during the order's period (the seller's
  // burden of proof; no evidence counts as unused). Portal visits are not use: opening the portal to cancel must
  // not cost the buyer the statutory refund.
  const usage = orderIds.length ? await cancelRepo.licenseUsageOf(db, sub.id, orderIds) : [];
  const usedDuring = (from: Date) => usage.some((u) => (u.activated_at >= from && u.activated_at <= now) || (u.last_verified_at !== null && u.last_verified_at >= from && u.last_verified_at <= now));

  const inputs: CancelOrderInput[] = orders
    .filter((o) => o.period_start && o.period_end && o.paid_at)
    .map((o) => ({
      id: o.id,
      amount: Number(o.amount),
      refundedAmount: Number(o.refunded_amount ?? 0),
      paidAt: o.paid_at!,
      periodStart: o.period_start!,
      periodEnd: o.period_end!,
      subscriptionEvent: o.subscription_event,
      settled: o.settlement_id !== null,
      refundInFlight: inFlight.has(o.id),
      used: usedDuring(o.period_start! > o.paid_at! ? o.paid_at! : o.period_start!),
      // Each order under the terms it was sold with (never the live product): its refund policy and its plan's M.
      policy: policyOf(o.terms),
      monthlyListPrice: o.terms.plan?.monthlyPrice ?? null,
      interval: o.billing_interval ?? undefined,
    }));
  const comp = computeCancel({
    subscription: { status: sub.status, billingInterval: sub.billing_interval, currentPeriodStart: sub.current_period_start, currentPeriodEnd: sub.current_period_end },
    orders: inputs,
    activeRefundRequest: request !== null,
    cancellationInProgress: claim !== undefined || charge !== undefined,
    policy: policyOf(sub.terms),
    monthlyListPrice: sub.terms.plan?.monthlyPrice ?? null,
    now,
  });
  return { comp, orderIds, chargeId: charge?.id ?? null };
}

function policyOf(t: SaleTerms): CancelPolicy {
  return { refundDays: t.refundDays, trialOffered: t.trialOffered, usageRestrictionMarked: t.usageRestrictionMarked, clawbackDisclosed: t.clawbackDisclosed, penaltyRate: t.penaltyRate };
}

async function findInRange(db: Db, scope: Scope, id: string): Promise<SubscriptionRow> {
  const row = await repo.findSubscription(db, scope, id);
  if (!row) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
  return row;
}

// ---------- the preview ----------

/** GET /v1/subscriptions/{id}/cancel-preview: what each timing would do now (by the subscription's own clock). */
export async function previewCancel(deps: Pick<AppDeps, 'db' | 'clock'>, scope: Scope, id: string): Promise<CancelPreviewView> {
  const sub = await findInRange(deps.db, scope, id);
  return previewOf(deps.db, sub, subscriptionNow(sub, deps.clock.now()));
}

export async function previewOf(db: Db, sub: SubscriptionRow, now: Date): Promise<CancelPreviewView> {
  const { comp, orderIds } = await cancelInputs(db, sub, now);
  return {
    mode: sub.mode,
    periodEnd: { effectiveAt: (sub.status === 'ended' && sub.ended_at ? sub.ended_at : sub.current_period_end).toISOString() },
    immediate: comp.immediate,
    pendingRefundRequest: await activeRefundRequest(db, sub.id, orderIds),
  };
}

// ---------- cancel ----------

/** Same shape as the subscriptions module's events: the whole Subscription record plus `change` / `cancellation`. */
async function event(trx: Db, deps: Pick<AppDeps, 'clock'>, sub: SubscriptionRow, type: 'subscription.updated' | 'subscription.ended', extra: Record<string, unknown>): Promise<void> {
  await writeEvent(trx, deps.clock, { storeId: sub.store_id, mode: sub.mode, type, data: { ...subscriptionView(sub), ...extra } });
}

function result(sub: SubscriptionRow, timing: 'period_end' | 'immediate', refunded: PlannedRefund[]): CancelResultView {
  return {
    subscription: subscriptionView(sub),
    refundOrderId: refunded[0]?.orderId ?? null,
    refundAmount: refunded.reduce((s, r) => s + r.amount, 0),
    currency: 'KRW',
    refundedOrderIds: refunded.map((r) => r.orderId),
    timing,
  };
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
    await event(trx, deps, updated, 'subscription.updated', { change: { kind: 'cancel_scheduled', effectiveAt: updated.current_period_end.toISOString() } });
    return result(updated, 'period_end', []);
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
    await event(trx, deps, updated, 'subscription.updated', { change: { kind: 'cancel_unscheduled' } });
    return updated;
  });
}

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
async function cancelImmediately(deps: Deps, id: string, reason: string | null, actor: Actor): Promise<CancelResultView> {
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
      return { kind: 'done', result: result(ended, 'immediate', []) };
    }
    if (actor === 'buyer' && im.requiresApproval) {
      // The buyer's cancel stands; the refund waits for the seller's decision as a refund request.
      // Each order is judged in its own window: an order whose part is statutory (say an upgrade's difference paid
      // days ago, unused) is filed as a statutory request, locked and approved automatically on its own, even when
      // the rest of the cancellation waits for the seller.
      const ids: string[] = [];
      for (const p of plan) {
        const statutory = comp.orders.find((o) => o.orderId === p.orderId)?.statutory ?? false;
        ids.push(await fileCancelRefundRequest(trx, deps, { storeId: sub.store_id, mode: sub.mode, orderId: p.orderId, subscriptionId: sub.id, amount: p.amount, reason: reason ?? '구독 즉시 해지 환불 요청', statutory, requestedAt: subscriptionNow(sub, now) }));
      }
      await insertClaim(trx, deps, sub, actor, reason, im, plan, 'completed', ids[0]);
      // The service does not end before the seller decides (design: "a cancel whose refund waits for the seller keeps
      // the service until the decision"): the end is scheduled at the period end, so no renewal charges meanwhile;
      // an approval ends it then (src/subscriptions/cancel/withdrawal.ts), a rejection leaves it running to the period end.
      const scheduled = await repo.updateSubscription(trx, sub.id, { cancel_at_period_end: true, canceled_at: sub.canceled_at ?? subscriptionNow(sub, now), cancel_reason: reason ?? sub.cancel_reason, updated_at: now });
      await event(trx, deps, scheduled, 'subscription.updated', { change: { kind: 'cancel_refund_pending', effectiveAt: scheduled.current_period_end.toISOString(), refundRequestIds: ids, preview: im } });
      return { kind: 'done', result: result(scheduled, 'immediate', []) };
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
      if (err instanceof ApiError && ENGINE_CODES[err.code]) throw new ApiError(ENGINE_CODES[err.code]!, { internal: err.message, details: { orderId: p.orderId } });
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
  return result(ended, 'immediate', plan);
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
