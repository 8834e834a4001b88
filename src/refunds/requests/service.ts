import type { SaleTerms } from '../../orders/terms';
import { upcomingPrice } from '../../subscriptions/model';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { ApiError } from '../../platform/errors';
import { writeEvent } from '../../platform/events';
import { newId } from '../../platform/ids';
import { safeEqualString } from '../../platform/crypto';
import { listPage, type PageParams } from '../../platform/http/pagination';
import type { Page } from '../../platform/http/schemas';
import { loadOrderView } from '../../orders/service';
import type { OrderView } from '../../orders/schemas';
import type { OrderRow } from '../../orders/model';
import { refundOrder, refundableAmount, type RefundView } from '../service';
import {
  assertApprovable,
  assertHoldable,
  autoApproveAt,
  forRequest,
  isActive,
  MAX_REASON,
  requestView,
  STALE_APPROVAL_MS,
  statutoryAt,
  type DecidedBy,
  type RefundRequestRow,
  type RefundRequestView,
} from './model';
import * as repo from './repo';
import { clockOfSubscription } from '../../subscriptions/clock';
import { afterCancelRequestRejected } from '../../subscriptions/cancel/withdrawal';
import { MESSAGES } from '../../platform/messages';
import { hasBidiControl } from '../../platform/text';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export const EVENT_CREATED = 'refund_request.created';
export const EVENT_UPDATED = 'refund_request.updated';
export const AUTO_APPROVAL_REASON = MESSAGES.refundRequests.autoApproved;

/** `refund_request.updated` carries the record and the status it left (equal to `status` when only the reason changed). */
async function emitUpdated(trx: Db, deps: Deps, before: RefundRequestRow, after: RefundRequestRow): Promise<void> {
  await writeEvent(trx, deps.clock, {
    storeId: after.store_id,
    mode: after.mode,
    type: EVENT_UPDATED,
    data: { ...requestView(after), previousStatus: before.status },
  });
}

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

/**
 * When a decision on a request of this order is made, on the order's own clock: a test-mode subscription's time for
 * its orders (the receipt shows the request filed on that clock, so its rejection or withdrawal must not appear to come
 * before it), the service time otherwise. `updated_at` stays the service's bookkeeping time.
 */
async function decisionTime(trx: Db, deps: Deps, orderId: string): Promise<Date> {
  const order = await repo.findOrder(trx, orderId);
  return (await clockOfSubscription(trx, deps.clock, order?.subscription_id)).now();
}

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

// ---------------------------------------------------------------- buyer: the receipt page

/** A refusal shown to the buyer on the receipt page (Korean), never an API error. */
export class BuyerError extends Error {}

export interface Receipt {
  order: OrderView;
  storeName: string;
  refundable: number;
  /** The open (requested/held) request, if any. */
  active: RefundRequestView | null;
  requests: RefundRequestView[];
  /** Why a new request cannot be filed now (null: it can). */
  blocked: string | null;
  statutoryWindowEndsAt: Date | null;
  /** A request filed now would be statutory. */
  statutoryOpen: boolean;
  /** 할부 months of the card payment (0 = 일시불); null where the gateway did not say. */
  installmentMonths: number | null;
  /** The terms the buyer was sold under (kept with the order at payment): what the receipt restates. */
  terms: SaleTerms;
  /** A license of the order was activated (the use that ends withdrawal where the restriction is valid). */
  used: boolean;
  /** "Now" for this order: the subscription's own clock for a test-mode subscription's order, else the service's. */
  now: Date;
  /** The subscription a subscription order belongs to, as it stands now (its next charge, or why there is none). */
  subscription: ReceiptSubscription | null;
}

export interface ReceiptSubscription {
  id: string;
  status: 'active' | 'past_due' | 'ended';
  interval: 'monthly' | 'yearly';
  /** What the next renewal charges: a scheduled plan change's price, else the current one. */
  nextAmount: number;
  /** A plan change takes effect at the next renewal. */
  planChangeScheduled: boolean;
  /** A plan price change is due at the next renewal: agreed by the buyer, a decrease, or an increase not agreed (it ends then). */
  priceChange: 'agreed' | 'decrease' | 'ends' | null;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  endedAt: Date | null;
  nextRetryAt: Date | null;
}

/** The order behind a receipt link, or null when the id or the token does not match (both answer the same). */
async function orderByReceipt(db: Db, orderId: string, token: string, lock: boolean): Promise<OrderRow | null> {
  if (!/^ord_[0-9a-z]{1,40}$/.test(orderId) || !/^[0-9a-f]{32}$/.test(token)) return null;
  const row = lock ? await repo.lockOrder(db, orderId) : await repo.findOrder(db, orderId);
  if (!row || !safeEqualString(row.receipt_token, token)) return null;
  return row;
}

function blockedReason(order: OrderRow, active: RefundRequestRow | undefined, inFlight: boolean): string | null {
  if (order.status === 'refunded') return MESSAGES.refundRequests.fullyRefunded;
  if (order.status !== 'paid') return MESSAGES.refundRequests.notPaid;
  if (active) return MESSAGES.refundRequests.alreadyPending;
  if (order.settlement_id) return MESSAGES.refundRequests.settled;
  if (inFlight) return MESSAGES.refundRequests.refundInFlight;
  if (refundableAmount(order) === 0) return MESSAGES.refundRequests.noneLeft;
  return null;
}

async function statutoryFor(db: Db, order: OrderRow, now: Date): Promise<{ statutory: boolean; windowEndsAt: Date | null; used: boolean }> {
  const used = await repo.orderUsed(db, order.id);
  if (!order.paid_at) return { statutory: false, windowEndsAt: null, used };
  // The terms the buyer was sold under (kept with the order), never the product as it is now.
  const t = order.terms;
  const at = statutoryAt(now, {
    paidAt: order.paid_at,
    refundDays: t.refundDays,
    used,
    trialOffered: t.trialOffered,
    usageRestrictionMarked: t.usageRestrictionMarked,
  });
  return { ...at, used };
}

async function receiptSubscription(db: Db, subscriptionId: string | null): Promise<ReceiptSubscription | null> {
  const s = subscriptionId ? await repo.subscriptionForReceipt(db, subscriptionId) : undefined;
  if (!s) return null;
  const pending = s.pending_plan;
  // What the next renewal charges under the terms the buyer agreed to (an accepted price increase included).
  const next = upcomingPrice(s);
  return {
    id: s.id,
    status: s.status,
    interval: pending?.interval ?? s.billing_interval,
    nextAmount: next.amount,
    planChangeScheduled: pending !== null && pending !== undefined,
    priceChange: next.priceChange,
    currentPeriodEnd: s.current_period_end,
    cancelAtPeriodEnd: s.cancel_at_period_end,
    endedAt: s.ended_at,
    nextRetryAt: s.status === 'past_due' ? s.next_retry_at : null,
  };
}

export async function loadReceipt(deps: Deps, orderId: string, token: string): Promise<Receipt | null> {
  const order = await orderByReceipt(deps.db, orderId, token, false);
  if (!order) return null;
  // A test-mode subscription's order is judged on the subscription's own clock (its test clock).
  const clock = await clockOfSubscription(deps.db, deps.clock, order.subscription_id);
  const now = clock.now();
  const [view, requests, inFlight, store, stat, subscription] = await Promise.all([
    loadOrderView(deps.db, order.id, deps),
    repo.requestsOfOrder(deps.db, order.id),
    repo.refundInFlightOf(deps.db, order.id),
    repo.storeName(deps.db, order.store_id),
    statutoryFor(deps.db, order, now),
    receiptSubscription(deps.db, order.subscription_id),
  ]);
  const active = requests.find((r) => isActive(r.status));
  return {
    order: view!,
    storeName: store,
    refundable: refundableAmount(order),
    active: active ? requestView(active) : null,
    requests: requests.map(requestView),
    blocked: blockedReason(order, active, inFlight !== undefined),
    statutoryWindowEndsAt: stat.windowEndsAt,
    statutoryOpen: stat.statutory,
    installmentMonths: order.installment_months,
    terms: order.terms,
    used: stat.used,
    now,
    subscription,
  };
}

/**
 * The buyer files a request: amount (default everything still refundable) and reason. Statutory when filed inside
 * the withdrawal window (see `statutoryAt`); a statutory request is approved automatically after 3 business days.
 */
export async function fileRequest(deps: Deps, orderId: string, token: string, input: { amount?: number; reason?: string }): Promise<RefundRequestView | null> {
  return deps.db.transaction().execute(async (trx) => {
    const order = await orderByReceipt(trx, orderId, token, true);
    if (!order) return null;
    const active = await repo.activeRequestOf(trx, order.id);
    const inFlight = await repo.refundInFlightOf(trx, order.id);
    const blocked = blockedReason(order, active, inFlight !== undefined);
    if (blocked) throw new BuyerError(blocked);
    const left = refundableAmount(order);
    const amount = input.amount ?? left;
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new BuyerError(MESSAGES.refundRequests.amountTooSmall);
    if (amount > left) throw new BuyerError(MESSAGES.refundRequests.amountAboveRefundable(left));
    const reason = (input.reason ?? '').trim();
    if (reason.length > MAX_REASON) throw new BuyerError(MESSAGES.refundRequests.reasonTooLong(MAX_REASON));
    if (hasBidiControl(reason)) throw new BuyerError(MESSAGES.refundRequests.reasonHasBidiControl);
    // Filed at the subscription's own time for a test-mode subscription's order (its window and auto-approval follow
    // its test clock); the row's bookkeeping times stay the service's.
    const now = (await clockOfSubscription(trx, deps.clock, order.subscription_id)).now();
    const { statutory } = await statutoryFor(trx, order, now);
    const row = await repo.insertRequest(trx, {
      id: newId('rr', deps.clock),
      store_id: order.store_id,
      mode: order.mode,
      order_id: order.id,
      // A receipt request is about this order, even for a subscription's order: `subscriptionId` is kept for requests
      // filed by an immediate subscription cancellation (the portal), whose approval follows the subscription's rules.
      subscription_id: null,
      status: 'requested',
      amount,
      currency: 'KRW',
      reason: reason || null,
      statutory,
      requested_at: now,
      decided_at: null,
      decision_reason: null,
      refund_id: null,
      auto_approve_at: statutory ? autoApproveAt(now) : null,
      source: 'receipt',
      decided_by: null,
      approved_amount: null,
      approving_since: null,
      created_at: deps.clock.now(),
      updated_at: deps.clock.now(),
    });
    await writeEvent(trx, deps.clock, { storeId: row.store_id, mode: row.mode, type: EVENT_CREATED, data: { ...requestView(row) } });
    return requestView(row);
  });
}

/** The buyer withdraws their open request (requested or held; not while its approval's refund is being processed). */
export async function cancelRequest(deps: Deps, orderId: string, token: string): Promise<RefundRequestView | null> {
  return deps.db.transaction().execute(async (trx) => {
    const order = await orderByReceipt(trx, orderId, token, true);
    if (!order) return null;
    const found = await repo.activeRequestOf(trx, order.id);
    if (!found) throw new BuyerError(MESSAGES.refundRequests.nothingToCancel);
    const r = (await repo.lockRequestById(trx, found.id))!;
    if (!isActive(r.status)) throw new BuyerError(MESSAGES.refundRequests.nothingToCancel);
    if (r.approving_since) throw new BuyerError(MESSAGES.refundRequests.approvingCannotCancel);
    const now = deps.clock.now();
    const after = await repo.updateRequest(trx, r.id, { status: 'canceled', decided_at: await decisionTime(trx, deps, order.id), decided_by: 'buyer', updated_at: now });
    await emitUpdated(trx, deps, r, after);
    return requestView(after);
  });
}
