import { lapseDueOffers } from './plan-change/offers';
import { ApiError, validationError } from '../platform/errors';
import { subscriptionNow, subscriptionView } from './model';
import * as repo from './repo';
import { runAutoApprovals } from '../refunds/requests/service';
import { processSubscription, type Deps } from './renewal/service';
import { runTrialNotices } from './trials/notices';
import { runRenewalNoticesOnce } from './renewal/upcoming-notice';
import type { SubscriptionView } from './schemas';
import { MESSAGES } from '../platform/messages';

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
 * `createdAt`. Live subscriptions are refused (TEST_MODE_ONLY). An ended subscription's clock moves too (nothing renews;
 * its refund requests are auto-approved on it).
 */
export async function advanceTestClock(deps: Deps, storeId: string, subscriptionId: string, ms: number): Promise<TestClockResult> {
  const sub = await deps.db.transaction().execute(async (trx) => {
    const row = await repo.lockSubscription(trx, subscriptionId);
    if (!row || row.store_id !== storeId) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
    if (row.mode !== 'test') throw new ApiError('TEST_MODE_ONLY');
    // An ended subscription's clock still moves: nothing renews, but its orders' refund requests (a statutory one
    // filed by an immediate cancel is approved on this clock) and receipt windows follow it.
    return repo.updateSubscription(trx, row.id, { test_clock_offset_ms: Number(row.test_clock_offset_ms) + ms, updated_at: deps.clock.now() });
  });
  // Conversion notices fall due before the trial's first charge: write them first (none once the trial is over).
  let processed = await runTrialNotices(deps, deps.clock.now(), sub.id);
  // A plan-change offer not accepted by its deadline lapses on the subscription's own time.
  processed += await lapseDueOffers(deps, deps.clock.now(), sub.id);
  // A yearly plan's upcoming-renewal notice (with the price change the buyer must answer) falls due 30 days before
  // the renewal on its own clock: written now, before the renewal, as the hourly scan would have in real time.
  processed += await runRenewalNoticesOnce(deps, deps.clock.now(), sub.id);
  processed += await processSubscription(deps, sub.id, deps.clock.now());
  // Refund requests of its orders are due on its own time too (statutory auto-approval inside 3 business days).
  processed += await runAutoApprovals(deps, subscriptionNow(sub, deps.clock.now()), sub.id);
  const fresh = (await repo.getSubscription(deps.db, sub.id))!;
  return {
    subscription: subscriptionView(fresh),
    testClock: { frozenTime: subscriptionNow(fresh, deps.clock.now()).toISOString(), offsetMs: Number(fresh.test_clock_offset_ms) },
    processed,
  };
}

/** How far to move: days, hours and minutes summed (the console's body and the dashboard's form). */
export interface AdvanceBy {
  days?: number;
  hours?: number;
  minutes?: number;
}

/** advanceTestClock by a duration; more than 0 and at most MAX_ADVANCE_MS in all (VALIDATION_FAILED otherwise). */
export async function advanceTestClockBy(deps: Deps, storeId: string, subscriptionId: string, by: AdvanceBy): Promise<TestClockResult> {
  const ms = ((by.days ?? 0) * 24 * 60 + (by.hours ?? 0) * 60 + (by.minutes ?? 0)) * 60_000;
  if (!Number.isSafeInteger(ms) || ms <= 0 || ms > MAX_ADVANCE_MS) throw validationError([{ field: 'days', message: MESSAGES.subscriptions.testClockRange }]);
  return advanceTestClock(deps, storeId, subscriptionId, ms);
}

/** A subscription's own time now (its test clock; the service time for live ones and unmoved clocks). */
export async function readTestClock(deps: Pick<Deps, 'db' | 'clock'>, storeId: string, subscriptionId: string): Promise<TestClockResult['testClock']> {
  const row = await repo.getSubscription(deps.db, subscriptionId);
  if (!row || row.store_id !== storeId) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
  return { frozenTime: subscriptionNow(row, deps.clock.now()).toISOString(), offsetMs: Number(row.test_clock_offset_ms) };
}
