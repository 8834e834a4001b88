import { ownValue } from '../../platform/lookup';
import type { Selectable } from 'kysely';
import { ApiError, type ErrorCode } from '../../platform/errors';
import { kstAt, nthBusinessDayAfter, withdrawalWindowEnd } from '../../platform/calendar';
import type { RefundRequestsTable, RefundRequestStatus } from '../tables';

export type RefundRequestRow = Selectable<RefundRequestsTable>;
export type DecidedBy = NonNullable<RefundRequestRow['decided_by']>;

/**
 * A refund request's states (the buyer asks, the seller decides):
 *   requested → held                 the seller holds it (reason required; not for statutory requests)
 *   requested | held → approved      the seller (or, for a statutory request, the auto-approval job) approved it and
 *                                    the refund succeeded (`refundId` set)
 *   requested | held → rejected      the seller rejected it (reason required; not for statutory requests)
 *   requested | held → canceled      the buyer withdrew it on the receipt page
 * approved, rejected and canceled are final. Only requested and held are actionable (REFUND_REQUEST_NOT_ACTIONABLE).
 * While an approval's refund is being processed (`approving_since` set) the request stays requested/held and active.
 */
export const ACTIVE: readonly RefundRequestStatus[] = ['requested', 'held'];
export const isActive = (s: RefundRequestStatus): boolean => ACTIVE.includes(s);

/** Business days (KST, weekends and public holidays off) after filing within which a statutory withdrawal is refunded (제18조). */
export const AUTO_APPROVE_BUSINESS_DAYS = 3;
/** The hour (KST) of the 3rd business day at which an undecided statutory request is approved automatically. */
export const AUTO_APPROVE_HOUR_KST = 12;
/** A claimed approval with no refund in flight after this long belonged to a process that died: the claim is released. */
export const STALE_APPROVAL_MS = 10 * 60_000;
export const MAX_REASON = 500;

export interface StatutoryFacts {
  paidAt: Date;
  refundDays: number;
  /** The buyer has used the content (a license activation). */
  used: boolean;
  trialOffered: boolean;
  usageRestrictionMarked: boolean;
}

/**
 * Whether a request filed at `now` is a statutory withdrawal (전자상거래법 제17조): inside the window W = max(7 days,
 * refundDays) after payment (ending 24:00 KST, rolled to the next business day), unless the content was used AND the
 * seller both marked that use ends the right of withdrawal AND offered a trial (제17조⑥). Returns the window end too.
 */
export function statutoryAt(now: Date, f: StatutoryFacts): { statutory: boolean; windowEndsAt: Date } {
  const windowEndsAt = withdrawalWindowEnd(f.paidAt, f.refundDays);
  const barredByUse = f.used && f.trialOffered && f.usageRestrictionMarked;
  return { statutory: now < windowEndsAt && !barredByUse, windowEndsAt };
}

/**
 * When an undecided statutory request is approved automatically: 12:00 KST on the 3rd business day after filing (the
 * filing day not counted; weekends and public holidays skipped). 제18조 wants the refund made within 3 business days,
 * so the approval must land inside the third, not at its end: noon leaves the seller two full business days and a
 * morning to decide, and the rest of the day for the gateway's cancel (and the refund reconciliation's retries, every
 * few minutes, should the gateway not answer) to finish before 24:00.
 */
export function autoApproveAt(requestedAt: Date): Date {
  return kstAt(nthBusinessDayAfter(requestedAt, AUTO_APPROVE_BUSINESS_DAYS), AUTO_APPROVE_HOUR_KST);
}

/** Business days (KST) a seller has to decide the refund request of a buyer's portal cancel (cancelDecisionDeadline). */
export const CANCEL_DECISION_BUSINESS_DAYS = 5;

/**
 * The seller's deadline on the refund of a buyer's portal cancel that needs approval (a non-statutory prorated refund,
 * see the cancel preview): 12:00 KST on the 5th business day after filing (a working week, the filing day not
 * counted), but never after the end of the period being refunded, when the kept service would end anyway. The refund
 * is what the seller's own published policy computed and what the buyer is owed under 소비자분쟁해결기준 (continuous
 * content: cancel at any time, refund less days used and at most 10%); the seller's approval only checks it. So an
 * undecided request is approved automatically at this instant (the owners are reminded a day before:
 * src/mail/refund-reminder.ts), and a request never stays `requested` past the period end (issue 38 item 5: one did).
 * Holding does not stop the deadline.
 */
export function cancelDecisionDeadline(requestedAt: Date, periodEnd: Date): Date {
  const byDays = kstAt(nthBusinessDayAfter(requestedAt, CANCEL_DECISION_BUSINESS_DAYS), AUTO_APPROVE_HOUR_KST);
  return byDays < periodEnd ? byDays : periodEnd;
}

/** Hold and reject: the documented order of checks after the request was found. */
export function assertHoldable(r: RefundRequestRow, reason: string | null | undefined): string {
  const text = (reason ?? '').trim();
  if (!text) throw new ApiError('REFUND_REASON_REQUIRED');
  if (!isActive(r.status) || r.approving_since) throw new ApiError('REFUND_REQUEST_NOT_ACTIONABLE', { details: { status: r.status } });
  if (r.statutory) throw new ApiError('REFUND_STATUTORY_LOCKED', { details: { autoApproveAt: r.auto_approve_at?.toISOString() ?? null } });
  return text;
}

export interface ApproveFacts {
  request: RefundRequestRow;
  order: { status: string; amount: number; refunded_amount: number | null; settlement_id: string | null };
  /** The amount in the approve body; undefined = the amount asked for. */
  amount: number | undefined;
  confirmAmount: boolean;
  /** The automatic approval of a statutory request (no seller in the loop). */
  auto: boolean;
}

/** Request codes answered as their subscription counterparts when the request belongs to a subscription. */
const SUBSCRIPTION_CODES: Partial<Record<ErrorCode, ErrorCode>> = {
  REFUND_AMOUNT_INVALID: 'SUBSCRIPTION_REFUND_AMOUNT_INVALID',
  REFUND_NONE_LEFT: 'SUBSCRIPTION_REFUND_NONE_LEFT',
  REFUND_SETTLED: 'SUBSCRIPTION_REFUND_SETTLED',
};

/** For a request tied to a subscription, the subscription variant of an engine code (same meaning, subscription wording). */
export function forRequest(r: Pick<RefundRequestRow, 'subscription_id'>, e: unknown): unknown {
  if (!(e instanceof ApiError) || !r.subscription_id) return e;
  const code = ownValue(SUBSCRIPTION_CODES, e.code);
  return code ? new ApiError(code, { details: e.details, cause: e }) : e;
}

/**
 * Approve: the documented order of checks once the request is found (REFUND_REQUEST_NOT_FOUND), first failure wins:
 * REFUND_AMOUNT_INVALID → REFUND_REQUEST_NOT_ACTIONABLE → REFUND_IN_PROGRESS (this request's approval is already being
 * processed) → REFUND_STATUTORY_LOCKED (a statutory request approved for less than asked) → REFUND_AMOUNT_MISMATCH →
 * REFUND_NOT_PAID → REFUND_SETTLED → REFUND_NONE_LEFT → REFUND_AMOUNT_EXCEEDS (the body's amount is above what is
 * refundable) → REFUND_EXCEEDS (no amount in the body, and the amount asked for is above what is refundable now).
 * The refund engine then repeats its own checks under the order's lock (REFUND_IN_PROGRESS, PG_REFUND_*).
 * Returns the amount to refund.
 */
export function assertApprovable(f: ApproveFacts): number {
  const r = f.request;
  const wrap = (code: ErrorCode, details?: Record<string, unknown>) => forRequest(r, new ApiError(code, { details })) as ApiError;
  if (f.amount !== undefined && !(Number.isSafeInteger(f.amount) && f.amount > 0)) throw wrap('REFUND_AMOUNT_INVALID');
  if (!isActive(r.status)) throw wrap('REFUND_REQUEST_NOT_ACTIONABLE', { status: r.status });
  if (r.approving_since) throw wrap('REFUND_IN_PROGRESS', { refundRequestId: r.id });
  const amount = f.amount ?? r.amount;
  if (r.statutory && !f.auto && amount < r.amount) throw wrap('REFUND_STATUTORY_LOCKED', { requestedAmount: r.amount });
  if (amount !== r.amount && !f.confirmAmount) throw wrap('REFUND_AMOUNT_MISMATCH', { requestedAmount: r.amount, amount });
  if (f.order.status !== 'paid') throw wrap('REFUND_NOT_PAID', { status: f.order.status });
  if (f.order.settlement_id) throw wrap('REFUND_SETTLED', { settlementId: f.order.settlement_id });
  const left = Math.max(0, f.order.amount - (f.order.refunded_amount ?? 0));
  if (left === 0) throw wrap('REFUND_NONE_LEFT');
  if (f.amount !== undefined && amount > left) throw wrap('REFUND_AMOUNT_EXCEEDS', { refundableAmount: left });
  if (amount > left) throw wrap('REFUND_EXCEEDS', { refundableAmount: left, requestedAmount: r.amount });
  return amount;
}

/** The refund request record as the API shows it. */
export interface RefundRequestView {
  id: string;
  mode: 'live' | 'test';
  orderId: string;
  subscriptionId: string | null;
  status: RefundRequestStatus;
  amount: number;
  currency: 'KRW';
  reason: string | null;
  statutory: boolean;
  requestedAt: string;
  decidedAt: string | null;
  decidedBy: DecidedBy | null;
  decisionReason: string | null;
  approvedAmount: number | null;
  refundId: string | null;
  autoApproveAt: string | null;
  processing: boolean;
  source: string;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function requestView(r: RefundRequestRow): RefundRequestView {
  return {
    id: r.id,
    mode: r.mode,
    orderId: r.order_id,
    subscriptionId: r.subscription_id,
    status: r.status,
    amount: r.amount,
    currency: 'KRW',
    reason: r.reason,
    statutory: r.statutory,
    requestedAt: r.requested_at.toISOString(),
    decidedAt: iso(r.decided_at),
    decidedBy: r.decided_by,
    decisionReason: r.decision_reason,
    approvedAmount: r.approved_amount,
    refundId: r.refund_id,
    autoApproveAt: iso(r.auto_approve_at),
    processing: r.approving_since !== null,
    source: r.source,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}
