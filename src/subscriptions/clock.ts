import type { Db } from '../db';
import type { Clock } from '../platform/clock';
import { testClockOffset } from './repo';

/**
 * One clock per subscription in test mode: everything a subscription touches (its orders' receipts and withdrawal
 * windows, refund requests and their auto-approval, licence activations and verifications that decide "used",
 * cancel and end times) runs on the subscription's own time, the service clock plus its test clock offset, so a
 * developer who moves a test clock sees the whole story move with it. Live subscriptions have no offset: this is
 * the service clock itself. Event envelopes (`createdAt`) and row bookkeeping (`created_at`, `updated_at`) keep the
 * service time, so delivery and audit order are never disturbed.
 */
export function offsetClock(clock: Clock, offsetMs: number): Clock {
  return offsetMs === 0 ? clock : { now: () => new Date(clock.now().getTime() + offsetMs) };
}

/** The clock of whatever belongs to this subscription (the service clock when there is none). */
export async function clockOfSubscription(db: Db, clock: Clock, subscriptionId: string | null | undefined): Promise<Clock> {
  if (!subscriptionId) return clock;
  return offsetClock(clock, await testClockOffset(db, subscriptionId));
}
