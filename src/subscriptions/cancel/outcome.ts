import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { writeEvent } from '../../platform/events';
import type { CancelResultView } from './schemas';
import type { PlannedRefund } from './tables';
import { subscriptionView, type SubscriptionRow } from '../model';

/**
 * What a cancellation (period-end or immediate) answers and announces: its result view and its subscription events.
 */

/** Same shape as the subscriptions module's events: the whole Subscription record plus `change` / `cancellation`. */
export async function cancelEvent(trx: Db, deps: Pick<AppDeps, 'clock'>, sub: SubscriptionRow, type: 'subscription.updated' | 'subscription.ended', extra: Record<string, unknown>): Promise<void> {
  await writeEvent(trx, deps.clock, { storeId: sub.store_id, mode: sub.mode, type, data: { ...subscriptionView(sub), ...extra } });
}

export function cancelResult(sub: SubscriptionRow, timing: 'period_end' | 'immediate', refunded: PlannedRefund[]): CancelResultView {
  return {
    subscription: subscriptionView(sub),
    refundOrderId: refunded[0]?.orderId ?? null,
    refundAmount: refunded.reduce((s, r) => s + r.amount, 0),
    currency: 'KRW',
    refundedOrderIds: refunded.map((r) => r.orderId),
    timing,
  };
}
