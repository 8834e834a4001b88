/**
 * The buyer's side of refund requests, on the receipt page: what the page shows (the order, its requests, whether a
 * new one can be filed and whether it would be statutory, the subscription's next charge), filing a request and
 * withdrawing it. Refusals are BuyerErrors in Korean, never API errors.
 */
import type { SaleTerms } from '../../orders/terms';
import { upcomingPrice } from '../../subscriptions/model';
import type { Db } from '../../db';
import { writeEvent } from '../../platform/events';
import { newId } from '../../platform/ids';
import { safeEqualString } from '../../platform/crypto';
import { loadOrderView } from '../../orders/service';
import type { OrderView } from '../../orders/schemas';
import type { OrderRow } from '../../orders/model';
import { refundableAmount } from '../service';
import { autoApproveAt, isActive, MAX_REASON, requestView, statutoryAt, type RefundRequestRow, type RefundRequestView } from './model';
import * as repo from './repo';
import { decisionTime, emitUpdated, EVENT_CREATED, type Deps } from './decision-record';
import { clockOfSubscription } from '../../subscriptions/clock';
import { MESSAGES } from '../../platform/messages';
import { hasBidiControl } from '../../platform/text';
import { refundAccountOf, refundAccountState, storeRefundAccount, validateRefundAccount, type RefundAccountInput } from '../../checkout/virtual-account';
import { fullOnlyMethodName, methodRefundRule } from '../method-rules';

/** A refusal shown to the buyer on the receipt page (Korean), never an API error. */
export class BuyerError extends Error {}

/** The refund account a 가상계좌 request needs is missing or wrong: its fields' messages (Korean), shown by the form. */
export class RefundAccountError extends BuyerError {
  constructor(readonly fields: Partial<Record<keyof RefundAccountInput, string>>) {
    super(Object.values(fields).join(' '));
  }
}

export interface Receipt {
  order: OrderView;
  storeName: string;
  /** The order's store: the receipt links to that store's buyer page (its orders, and 구독 관리). */
  storeId: string;
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
    storeId: order.store_id,
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
export async function fileRequest(deps: Deps, orderId: string, token: string, input: { amount?: number; reason?: string; refundAccount?: RefundAccountInput }): Promise<RefundRequestView | null> {
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
    // 휴대폰 결제 and 상품권 refund only in full (src/refunds/method-rules.ts): refused when filed, so no approval (the
    // seller's or the statutory one) is promised that the gateway would refuse.
    if (methodRefundRule(order, deps.clock.now()).fullOnly && amount !== left) throw new BuyerError(MESSAGES.refunds.partialNotAllowed(fullOnlyMethodName(order.method), left));
    const reason = (input.reason ?? '').trim();
    if (reason.length > MAX_REASON) throw new BuyerError(MESSAGES.refundRequests.reasonTooLong(MAX_REASON));
    if (hasBidiControl(reason)) throw new BuyerError(MESSAGES.refundRequests.reasonHasBidiControl);
    // Filed at the subscription's own time for a test-mode subscription's order (its window and auto-approval follow
    // its test clock); the row's bookkeeping times stay the service's.
    const now = (await clockOfSubscription(trx, deps.clock, order.subscription_id)).now();
    const { statutory } = await statutoryFor(trx, order, now);
    // A statutory request is approved automatically later: a phone payment whose month ends before then needs the
    // buyer's account already (issue 41), so the automatic approval never meets REFUND_ACCOUNT_REQUIRED.
    await ensureRefundAccount(trx, deps, order, input.refundAccount, statutory ? autoApproveAt(now) : null);
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

/**
 * A deposited 가상계좌 can only be refunded to an account the buyer names (Toss's refundReceiveAccount; the refund
 * engine answers REFUND_ACCOUNT_REQUIRED without one). So the request asks for it when it is filed: an account typed
 * with the request is validated (bank-code table, digits, holder) and stored sealed in the request's transaction, as
 * the receipt's own refund-account form stores it; without one typed, one already on file is used; with neither the
 * request is refused, so no approval (the seller's or the statutory auto-approval) is ever promised that cannot pay.
 */
async function ensureRefundAccount(trx: Db, deps: Deps, order: OrderRow, typed: RefundAccountInput | undefined, autoApprovalAt: Date | null): Promise<void> {
  const given = typed && (typed.bankCode.trim() || typed.accountNumber.trim() || typed.holderName.trim());
  // A 휴대폰 결제 after its KST month is refunded to the buyer's account (issue 41): required then, and when the
  // statutory auto-approval will fall after the month; otherwise an account typed anyway is kept (the seller's decision
  // may come after the month ends).
  if (order.method === 'mobile_phone') {
    const afterMonth = (at: Date) => methodRefundRule(order, at).needsAccount === 'phone_after_month';
    const required = afterMonth(deps.clock.now()) || (autoApprovalAt !== null && afterMonth(autoApprovalAt));
    if (!given && (!required || (await refundAccountOf(trx, deps.config.masterKey, order.id)))) return;
    const v = validateRefundAccount(typed ?? { bankCode: '', accountNumber: '', holderName: '' });
    if (!v.ok) throw new RefundAccountError(Object.fromEntries(v.errors.map((e) => [e.field, e.message])));
    await storeRefundAccount(trx, deps, order.id, v.value);
    return;
  }
  if (order.method !== 'virtual_account') return;
  const state = await refundAccountState(trx, order.id);
  if (state === 'not_virtual_account') return;
  if (!given && state === 'on_file') return;
  const v = validateRefundAccount(typed ?? { bankCode: '', accountNumber: '', holderName: '' });
  if (!v.ok) throw new RefundAccountError(Object.fromEntries(v.errors.map((e) => [e.field, e.message])));
  await storeRefundAccount(trx, deps, order.id, v.value);
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
