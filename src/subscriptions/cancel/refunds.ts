import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { newId } from '../../platform/ids';
import type { Mode } from '../../platform/tables';
import { refundOrder } from '../../refunds/service';
import { autoApproveAt, cancelDecisionDeadline, requestView } from '../../refunds/requests/model';
import { EVENT_CREATED } from '../../refunds/requests/decision-record';
import { writeEvent } from '../../platform/events';
import type { PendingRefundRequestView } from './schemas';
import * as cancelRepo from './repo';

/**
 * The one place the cancellation talks to the refunds module: the engine's entry point, the refund-request table
 * and the refund records it reads to resume an interrupted cancellation.
 */

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/** Refunds `amount` of one order through the refunds engine (throws its ApiErrors, PG_REFUND_* included). */
export async function refundForCancel(deps: Deps, input: { storeId: string; mode: Mode; orderId: string; amount: number; reason: string | null }): Promise<{ refundId: string }> {
  const { refund } = await refundOrder(deps, {
    storeId: input.storeId,
    mode: input.mode,
    orderId: input.orderId,
    amount: input.amount,
    reason: input.reason ?? '구독 즉시 해지',
    source: 'subscription_cancel',
  });
  return { refundId: refund.id };
}

/** Refunds of these orders made for a subscription cancel since `since` that moved (or may have moved) money. */
export async function cancelRefundsSince(db: Db, orderIds: string[], since: Date): Promise<Map<string, 'pending' | 'succeeded' | 'unknown'>> {
  const out = new Map<string, 'pending' | 'succeeded' | 'unknown'>();
  if (orderIds.length === 0) return out;
  const rows = await cancelRepo.cancelRefundsOf(db, orderIds, since);
  for (const r of rows) out.set(r.order_id, r.status as 'pending' | 'succeeded' | 'unknown');
  return out;
}

/** The active (requested or held) refund request of the subscription or one of its orders, if any. */
export async function activeRefundRequest(db: Db, subscriptionId: string, orderIds: string[]): Promise<PendingRefundRequestView | null> {
  const row = await cancelRepo.findActiveRefundRequest(db, subscriptionId, orderIds);
  if (!row) return null;
  return {
    id: row.id,
    mode: row.mode,
    orderId: row.order_id,
    subscriptionId: row.subscription_id,
    status: row.status as 'requested' | 'held',
    amount: Number(row.amount),
    currency: 'KRW',
    reason: row.reason,
    statutory: row.statutory,
    requestedAt: row.requested_at.toISOString(),
  };
}

/**
 * Files a buyer's refund request (status `requested`, subscription set) for a cancel whose refund needs the seller's
 * approval, with its `refund_request.created` event (which mails the buyer "환불 요청 접수") in the cancellation's
 * transaction, like a request filed on the receipt. Every request has a date by which it is decided: a statutory one
 * is approved automatically within 3 business days (제18조), the others at the seller's deadline
 * (cancelDecisionDeadline), never past `periodEnd`. Returns the request id.
 */
export async function fileCancelRefundRequest(
  trx: Db,
  deps: Pick<AppDeps, 'clock'>,
  r: { storeId: string; mode: Mode; orderId: string; subscriptionId: string; amount: number; reason: string | null; statutory: boolean; requestedAt: Date; periodEnd: Date },
): Promise<string> {
  const now = deps.clock.now();
  const id = newId('rr', deps.clock);
  const row = await cancelRepo.insertCancelRefundRequest(trx, {
    id,
    store_id: r.storeId,
    mode: r.mode,
    order_id: r.orderId,
    subscription_id: r.subscriptionId,
    status: 'requested',
    amount: r.amount,
    currency: 'KRW',
    reason: r.reason,
    statutory: r.statutory,
    // Filed at the subscription's own time (its test clock in test mode), so its auto-approval follows that clock.
    requested_at: r.requestedAt,
    decided_at: null,
    decision_reason: null,
    refund_id: null,
    // A statutory request is approved automatically within 3 business days (제18조) unless the seller acts first; the
    // others at the seller's deadline (5 business days), at the latest the period end.
    auto_approve_at: r.statutory ? autoApproveAt(r.requestedAt) : cancelDecisionDeadline(r.requestedAt, r.periodEnd),
    source: 'subscription_cancel',
    created_at: now,
    updated_at: now,
  });
  await writeEvent(trx, deps.clock, { storeId: row.store_id, mode: row.mode, type: EVENT_CREATED, data: { ...requestView(row) } });
  return id;
}
