import type { Db } from '../db';
import type { Clock } from '../platform/clock';
import { writeEvent } from '../platform/events';
import { subscriptionView, type SubscriptionRow } from './model';

/**
 * `data.change.kind` of `subscription.updated`. The spec names `period_renewed` and `cancel_scheduled`; the others
 * are this service's documented additions:
 * - `period_renewed`: a renewal was paid (at the period end, or a dunning retry / card update that recovered it)
 * - `cancel_scheduled` / `cancel_unscheduled`: a period-end cancellation was scheduled / undone
 * - `payment_failed`: a renewal charge failed; `status` is `past_due`, `nextRetryAt` says when it is retried
 * - `card_updated`: the buyer registered a new card
 * - `card_removed`: the gateway deleted the billing key (Toss's BILLING_DELETED); `card` is null and renewals fail
 *   (dunning) until the buyer registers a new card in the portal
 * - `plan_changed`: an upgrade took effect now (a `difference` order was paid)
 * - `plan_change_scheduled`: a downgrade waits for the next renewal (`pendingPlanChange`)
 * - `renewal_upcoming`: a yearly plan renews soon (`renewsAt`, `amount`); written once per period, MAIL_RENEWAL_NOTICE_DAYS ahead
 * - `trial_will_end`: a free trial converts to paid soon (`trialEndsAt`, `amount`, `currency`, `interval`)
 * - `price_change_scheduled`: the plan's price changes for this subscriber; consent is asked in the portal
 *   (`priceChangeId`, `planId`, `currentAmount`, `newAmount`, `effectiveAt`, `decideBy`)
 * - `price_change_accepted`: the buyer agreed to the new price in the portal
 */
export type ChangeKind =
  | 'period_renewed'
  | 'cancel_scheduled'
  | 'cancel_unscheduled'
  | 'payment_failed'
  | 'card_updated'
  | 'card_removed'
  | 'plan_changed'
  | 'plan_change_scheduled'
  | 'renewal_upcoming'
  | 'trial_will_end'
  | 'price_change_scheduled'
  | 'price_change_accepted';

/** `subscription.updated`: the whole Subscription record after the change, plus `change: { kind, … }`. Same transaction as the change. */
export async function writeSubscriptionUpdated(trx: Db, clock: Clock, row: SubscriptionRow, change: { kind: ChangeKind } & Record<string, unknown>): Promise<void> {
  await writeEvent(trx, clock, { storeId: row.store_id, mode: row.mode, type: 'subscription.updated', data: { ...subscriptionView(row), change } });
}

/** `subscription.ended`: the ended Subscription record (`status: ended`, `endReason`, `endedAt`). Same transaction as the change. */
export async function writeSubscriptionEnded(trx: Db, clock: Clock, row: SubscriptionRow): Promise<void> {
  await writeEvent(trx, clock, { storeId: row.store_id, mode: row.mode, type: 'subscription.ended', data: { ...subscriptionView(row) } });
}
