/**
 * The seller's use cases on refund requests (API, console and dashboard): reading them, holding or rejecting, and
 * approving through the refund engine, with the background tasks that finish approvals and approve statutory
 * requests automatically. The buyer's side (the receipt page) is buyer-receipt.ts.
 */
import { ApiError } from '../../platform/errors';
import { listPage, type PageParams } from '../../platform/http/pagination';
import type { Page } from '../../platform/http/schemas';
import type { OrderView } from '../../orders/schemas';
import { refundOrder, refundableAmount, type RefundView } from '../service';
import {
  assertApprovable,
  assertHoldable,
  forRequest,
  MAX_REASON,
  requestView,
  STALE_APPROVAL_MS,
  type DecidedBy,
  type RefundRequestRow,
  type RefundRequestView,
} from './model';
import * as repo from './repo';
import { decisionTime, emitUpdated, type Deps } from './decision-record';
import { afterCancelRequestRejected } from '../../subscriptions/cancel/withdrawal';
import { MESSAGES } from '../../platform/messages';

export const AUTO_APPROVAL_REASON = MESSAGES.refundRequests.autoApproved;

// ---------------------------------------------------------------- seller: reads

export async function listRequests(deps: Deps, f: repo.RequestListFilter, page: PageParams): Promise<Page<RefundRequestView>> {
  return listPage(
    page,
    () => repo.countRequests(deps.db, f),
    (offset, limit) => repo.pageRequests(deps.db, f, offset, limit),
    requestView,
  );
}

/** Undecided requests, the statutory deadline first (see `repo.pageQueue`). */
export async function listQueue(deps: Deps, f: repo.RequestScope, page: PageParams): Promise<Page<RefundRequestView>> {
  return listPage(page, () => repo.countQueue(deps.db, f), (offset, limit) => repo.pageQueue(deps.db, f, offset, limit), requestView);
}

export async function getRequest(deps: Deps, f: repo.RequestScope, id: string): Promise<RefundRequestView> {
  const row = await repo.findRequest(deps.db, f, id);
  if (!row) throw new ApiError('REFUND_REQUEST_NOT_FOUND');
  return requestView(row);
}

// ---------------------------------------------------------------- seller: hold / reject

async function decide(deps: Deps, f: repo.RequestScope, id: string, reason: string | null | undefined, to: 'held' | 'rejected', by: DecidedBy): Promise<RefundRequestView> {
  return deps.db.transaction().execute(async (trx) => {
    const r = await repo.lockRequest(trx, f, id);
    if (!r) throw new ApiError('REFUND_REQUEST_NOT_FOUND');
    const text = assertHoldable(r, reason);
    const now = deps.clock.now();
    const after = await repo.updateRequest(trx, r.id, {
      status: to,
      decision_reason: text.slice(0, MAX_REASON),
      decided_by: by,
      decided_at: to === 'rejected' ? await decisionTime(trx, deps, r.order_id) : null,
      updated_at: now,
    });
    await emitUpdated(trx, deps, r, after);
    // A portal cancel's request rejected: the subscription runs to its period end (src/subscriptions/cancel/withdrawal.ts).
    if (to === 'rejected') await afterCancelRequestRejected(trx, deps, r);
    return requestView(after);
  });
}

/** requested | held → held. Order of checks: REFUND_REQUEST_NOT_FOUND, REFUND_REASON_REQUIRED, REFUND_REQUEST_NOT_ACTIONABLE, REFUND_STATUTORY_LOCKED. */
export const holdRequest = (deps: Deps, f: repo.RequestScope, id: string, reason: string | null | undefined, by: DecidedBy) => decide(deps, f, id, reason, 'held', by);
/** requested | held → rejected (final). Same checks as hold. */
export const rejectRequest = (deps: Deps, f: repo.RequestScope, id: string, reason: string | null | undefined, by: DecidedBy) => decide(deps, f, id, reason, 'rejected', by);

// ---------------------------------------------------------------- seller (or the auto-approval job): approve

export interface ApproveInput {
  amount?: number;
  confirmAmount?: boolean;
  reason?: string | null;
}

export interface ApproveResult {
  refundRequest: RefundRequestView;
  refund: RefundView;
  order: OrderView;
}

/**
 * Approves a request by refunding through the refund engine, in steps that survive a crash between any two:
 * 1. a transaction locks the request, runs the checks (see `assertApprovable`) and claims it (`approving_since`), so a
 *    second approval (double click, retry with another key, the auto-approval job) answers REFUND_IN_PROGRESS instead
 *    of refunding twice;
 * 2. the engine refunds (`refundRequestId` set: the request does not block its own refund; the refund links to it);
 * 3. success → the request becomes approved with `refundId` (and `refund_request.updated`); a check failure or a
 *    definite gateway failure releases the claim (the request stays actionable); an unknown outcome keeps it until
 *    reconciliation settles the refund, after which `followApprovals` finishes the request.
 */
export async function approveRequest(deps: Deps, f: repo.RequestScope, id: string, input: ApproveInput, by: DecidedBy): Promise<ApproveResult> {
  const { r, amount } = await deps.db.transaction().execute(async (trx) => {
    const r = await repo.lockRequest(trx, f, id);
    if (!r) throw new ApiError('REFUND_REQUEST_NOT_FOUND');
    const order = (await repo.findOrder(trx, r.order_id))!;
    const amount = assertApprovable({ request: r, order, amount: input.amount, confirmAmount: input.confirmAmount === true, auto: by === 'auto' });
    const now = deps.clock.now();
    await repo.updateRequest(trx, r.id, { approving_since: now, decided_by: by, updated_at: now });
    return { r, amount };
  });

  let result: Awaited<ReturnType<typeof refundOrder>>;
  try {
    result = await refundOrder(deps, {
      storeId: r.store_id,
      mode: r.mode,
      orderId: r.order_id,
      productIds: f.productIds,
      amount,
      reason: input.reason?.trim() || r.reason,
      refundRequestId: r.id,
      source: 'refund_request',
    });
  } catch (err) {
    // Whatever happened, the refund records say where the request stands: settle it from them (a refund still in
    // flight keeps the claim; none or a failed one releases it).
    await settleApproval(deps, r.id, { releaseNow: true }).catch((e) => deps.log.error({ err: e, refundRequestId: r.id }, 'refund request approval not settled'));
    throw forRequest(r, err);
  }
  const after = await settleApproval(deps, r.id, { releaseNow: true, decisionReason: input.reason?.trim() || null });
  return { refundRequest: requestView(after), refund: result.refund, order: result.order };
}

/**
 * Brings a claimed request in line with its refund records: a succeeded refund → approved (once); a pending or
 * unknown one → still processing; none, or only failed ones → the claim is released (at once when the caller knows
 * the engine returned, else only after STALE_APPROVAL_MS, since a live approval may not have recorded its refund yet).
 */
async function settleApproval(deps: Deps, id: string, opts: { releaseNow: boolean; decisionReason?: string | null }): Promise<RefundRequestRow> {
  return deps.db.transaction().execute(async (trx) => {
    const r = (await repo.lockRequestById(trx, id))!;
    if (!r.approving_since) return r;
    const refunds = await repo.refundsOfRequest(trx, id);
    const now = deps.clock.now();
    const done = refunds.find((x) => x.status === 'succeeded');
    if (done) {
      const after = await repo.updateRequest(trx, id, {
        status: 'approved',
        approved_amount: done.amount,
        refund_id: done.id,
        // On the order's own clock (a test-mode subscription's test clock), never the service's: an automatic
        // approval must not appear to come before the request it decides.
        decided_at: await decisionTime(trx, deps, r.order_id),
        decision_reason: (opts.decisionReason !== undefined ? opts.decisionReason : r.decision_reason) ?? (r.decided_by === 'auto' ? AUTO_APPROVAL_REASON : null),
        approving_since: null,
        updated_at: now,
      });
      await emitUpdated(trx, deps, r, after);
      return after;
    }
    if (refunds.some((x) => x.status === 'pending' || x.status === 'unknown')) return r;
    if (!opts.releaseNow && now.getTime() - r.approving_since.getTime() < STALE_APPROVAL_MS) return r;
    return repo.updateRequest(trx, id, { approving_since: null, updated_at: now });
  });
}

/** Background task: finishes approvals whose refund was settled later (reconciliation) or whose process died. */
export async function followApprovals(deps: Deps, _now: Date): Promise<number> {
  let changed = 0;
  for (const { id } of await repo.approvalsInFlight(deps.db, 50)) {
    const after = await settleApproval(deps, id, { releaseNow: false });
    if (!after.approving_since) changed++;
  }
  return changed;
}

/**
 * Background task: approves undecided statutory requests whose auto-approval time has come (제18조), refunding what
 * was asked (or what is still refundable, if less). A failure (gateway down) is logged and retried on the next run.
 * With `subscriptionId`, only the requests of that subscription's orders, judged at `now` on its own (test) clock:
 * moving a test clock runs them (src/subscriptions/test-clock.ts).
 */
export async function runAutoApprovals(deps: Deps, now: Date, subscriptionId?: string): Promise<number> {
  let approved = 0;
  for (const { id } of await repo.dueForAutoApproval(deps.db, now, 20, subscriptionId)) {
    const r = await repo.findRequestById(deps.db, id);
    if (!r) continue;
    const order = (await repo.findOrder(deps.db, r.order_id))!;
    const left = refundableAmount(order);
    try {
      await approveRequest(deps, { storeId: r.store_id, mode: r.mode, productIds: null }, id, { amount: Math.min(r.amount, left) || undefined, confirmAmount: true }, 'auto');
      approved++;
    } catch (err) {
      deps.log.warn({ err, refundRequestId: id }, 'statutory auto-approval failed; retried on the next run');
    }
  }
  return approved;
}
