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
 * - `card_removed`: the gateway no longer holds the billing key (a charge refused with Toss's NOT_FOUND_BILLING; a
 *   BILLING_DELETED webhook only marks the card for that charge, see card-gone.ts); `card` is null and renewals fail
 *   (dunning) until the buyer registers a new card in the portal
 * - `plan_changed`: an upgrade took effect now (a `difference` order was paid)
 * - `plan_change_withdrawn`: an upgrade's difference order was withdrawn alone (청약철회) or refunded in full: the
 *   subscription is back on the plan, interval and renewal price it had before that upgrade (src/subscriptions/cancel/withdrawal.ts);
 *   with `orderId`, `refundId`, `refundRequestId`, `amount`, `statutory`, `from` (the upgraded plan) and `to` (the earlier one)
 * - `plan_change_scheduled`: a downgrade waits for the next renewal (`pendingPlanChange`)
 * - `plan_change_offered`: the seller changed the plan in a way that would make the buyer pay more (src/subscriptions/plan-change/consent.ts):
 *   nothing changed; `offerId`, `from`, `to` ({ planId, billingInterval, amount }), `timing` (`now`: accepting charges the
 *   prorated difference then; `next_renewal`), `deadline` (accept by then, the subscription's clock)
 * - `plan_change_offer_closed`: the offer closed without a change: `offerId`, `outcome` (`declined` by the buyer,
 *   `withdrawn` by the seller or replaced by a newer offer, `lapsed` at its deadline), `to`. An accepted offer is the
 *   change itself (`plan_changed` / `plan_change_scheduled`)
 * - `trial_consent_given`: the buyer confirmed the first charge of a trial longer than 30 days, within the 30 days before it
 * - `price_change_scheduled`: the seller scheduled a new price for the subscription's plan (src/subscriptions/price-change/service.ts);
 *   with `priceChangeId`, `planId`, `billingInterval`, `currentAmount`, `newAmount`, `effectiveAt` (from when it applies
 *   to this subscription), `decideBy` (the renewal that first charges it) and `consentRequired` (an increase: the
 *   buyer must agree in the portal, or the subscription ends at that renewal without a charge); or `canceled: true`
 *   when the seller withdrew it
 * - `price_change_accepted`: the buyer agreed in the portal to the increase (same fields, plus `acceptedAt`)
 * - `price_change_declined`: the buyer declined the increase in the portal (same fields, plus `declinedAt` and
 *   `endsAt` = `decideBy`: the subscription ends then without a charge unless the buyer agrees before it)
 * - `trial_will_end`: the free trial's conversion notice, written ahead of its first charge (TRIAL_NOTICE_DAYS before
 *   it, or at signup and 3 days before for a shorter trial), with `trialEndsAt`, `amount`, `currency`, `interval` and
 *   `notice` (`lead`, `signup` or `final`); one event per notice. The conversion itself is `period_renewed`.
 * - `cancel_refund_pending`: a portal cancel whose refund awaits the seller's decision (`refundRequestIds`): the service
 *   runs until the decision (approved → `subscription.ended`; rejected → it runs to its period end, `cancelAtPeriodEnd`)
 * - `cancel_refund_rejected`: the seller rejected such a request (`refundRequestId`, `effectiveAt` = the period end)
 * - `renewal_upcoming`: a yearly plan renews soon (`renewsAt`, `amount`); written once per period, MAIL_RENEWAL_NOTICE_DAYS ahead
 */
export type ChangeKind =
  | 'period_renewed'
  | 'cancel_scheduled'
  | 'cancel_unscheduled'
  | 'cancel_refund_pending'
  | 'cancel_refund_rejected'
  | 'payment_failed'
  | 'card_updated'
  | 'card_removed'
  | 'plan_changed'
  | 'plan_change_scheduled'
  | 'plan_change_withdrawn'
  | 'plan_change_offered'
  | 'plan_change_offer_closed'
  | 'trial_consent_given'
  | 'price_change_scheduled'
  | 'price_change_accepted'
  | 'price_change_declined'
  | 'trial_will_end'
  | 'renewal_upcoming';

/** `subscription.updated`: the whole Subscription record after the change, plus `change: { kind, … }`. Same transaction as the change. */
export async function writeSubscriptionUpdated(trx: Db, clock: Clock, row: SubscriptionRow, change: { kind: ChangeKind } & Record<string, unknown>): Promise<void> {
  await writeEvent(trx, clock, { storeId: row.store_id, mode: row.mode, type: 'subscription.updated', data: { ...subscriptionView(row), change } });
}

/** `subscription.ended`: the ended Subscription record (`status: ended`, `endReason`, `endedAt`). Same transaction as the change. */
export async function writeSubscriptionEnded(trx: Db, clock: Clock, row: SubscriptionRow): Promise<void> {
  await writeEvent(trx, clock, { storeId: row.store_id, mode: row.mode, type: 'subscription.ended', data: { ...subscriptionView(row) } });
}
