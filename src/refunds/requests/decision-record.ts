/**
 * How a change to a refund request is recorded, shared by the seller's use cases (service.ts) and the buyer's
 * (buyer-receipt.ts): the events a request writes and the time a decision is dated at (the order's own clock).
 */
import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { writeEvent } from '../../platform/events';
import { requestView, type RefundRequestRow } from './model';
import * as repo from './repo';
import { clockOfSubscription } from '../../subscriptions/clock';

export type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export const EVENT_CREATED = 'refund_request.created';
export const EVENT_UPDATED = 'refund_request.updated';

/** `refund_request.updated` carries the record and the status it left (equal to `status` when only the reason changed). */
export async function emitUpdated(trx: Db, deps: Deps, before: RefundRequestRow, after: RefundRequestRow): Promise<void> {
  await writeEvent(trx, deps.clock, {
    storeId: after.store_id,
    mode: after.mode,
    type: EVENT_UPDATED,
    data: { ...requestView(after), previousStatus: before.status },
  });
}

/**
 * When a decision on a request of this order is made, on the order's own clock: a test-mode subscription's time for
 * its orders (the receipt shows the request filed on that clock, so its rejection or withdrawal must not appear to come
 * before it), the service time otherwise. `updated_at` stays the service's bookkeeping time.
 */
export async function decisionTime(trx: Db, deps: Deps, orderId: string): Promise<Date> {
  const order = await repo.findOrder(trx, orderId);
  return (await clockOfSubscription(trx, deps.clock, order?.subscription_id)).now();
}
