import { ApiError } from '../platform/errors';
import { subscriptionNow, subscriptionView } from './model';
import * as repo from './repo';
import { processSubscription, type Deps } from './renewal';
import type { SubscriptionView } from './schemas';

export interface TestClockResult {
  subscription: SubscriptionView;
  testClock: { frozenTime: string; offsetMs: number };
  /** Renewals, retries and endings run by this advance. */
  processed: number;
}

/** The longest single advance: ten years, far beyond any dunning schedule or yearly renewal. */
export const MAX_ADVANCE_MS = 3_660 * 86_400_000;

/**
 * Test clocks (as Stripe's): moves one test-mode subscription's own clock forward by `ms` and runs, at once and in
 * order, everything that became due on it — renewals (with their `order.paid` / `subscription.updated`), failed
 * renewals and dunning retries (the documented failing test card), period-end cancellations. The clock only moves
 * forward; orders and events it creates carry the subscription's time in `paidAt`/periods, and the service time in
 * `createdAt`. Live subscriptions are refused (TEST_MODE_ONLY).
 */
export async function advanceTestClock(deps: Deps, storeId: string, subscriptionId: string, ms: number): Promise<TestClockResult> {
  const sub = await deps.db.transaction().execute(async (trx) => {
    const row = await repo.lockSubscription(trx, subscriptionId);
    if (!row || row.store_id !== storeId) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
    if (row.mode !== 'test') throw new ApiError('TEST_MODE_ONLY');
    if (row.status === 'ended') throw new ApiError('ALREADY_ENDED');
    return repo.updateSubscription(trx, row.id, { test_clock_offset_ms: Number(row.test_clock_offset_ms) + ms, updated_at: deps.clock.now() });
  });
  const processed = await processSubscription(deps, sub.id, deps.clock.now());
  const fresh = (await repo.getSubscription(deps.db, sub.id))!;
  return {
    subscription: subscriptionView(fresh),
    testClock: { frozenTime: subscriptionNow(fresh, deps.clock.now()).toISOString(), offsetMs: Number(fresh.test_clock_offset_ms) },
    processed,
  };
}
