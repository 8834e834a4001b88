import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { writeEvent } from '../platform/events';
import { enqueueBillingKeyDeletion } from './billing-key-delete';
import * as cancelRepo from './cancel-repo';
import { subscriptionNow, subscriptionView, type SubscriptionRow } from './model';
import * as repo from './repo';
import type { EndReason } from './tables';

/*
 * Ending a subscription now, shared by the cancellation (src/subscriptions/cancel.ts) and by what a refund does to
 * the subscription (src/subscriptions/withdrawal.ts). It lives apart from cancel.ts because the cancellation calls the
 * refunds engine while the refunds engine calls withdrawal.ts: with endNow inside cancel.ts that made an import cycle
 * (refunds/service → subscriptions/withdrawal → cancel → cancel-refunds → refunds/service).
 */

/**
 * Ends a subscription now (inside the caller's transaction, subscription locked): status, its licenses,
 * `subscription.ended` with `cancellation` (or `refund` for src/subscriptions/withdrawal.ts).
 */
export async function endNow(
  trx: Db,
  deps: Pick<AppDeps, 'clock'>,
  sub: SubscriptionRow,
  reason: string | null,
  cancellation: Record<string, unknown>,
  opts: { endReason?: EndReason; keepLicenses?: boolean; extraKey?: 'cancellation' | 'refund' } = {},
): Promise<SubscriptionRow> {
  const now = deps.clock.now();
  // End and cancel times are the subscription's own (its test clock in test mode); updated_at is bookkeeping.
  const at = subscriptionNow(sub, now);
  const ended = await repo.updateSubscription(trx, sub.id, {
    status: 'ended',
    ended_at: at,
    end_reason: opts.endReason ?? 'canceled',
    canceled_at: sub.canceled_at ?? at,
    cancel_reason: reason ?? sub.cancel_reason,
    next_retry_at: null,
    updated_at: now,
  });
  // The subscription's licenses stop with it (a full refund also revokes them, through the refunds engine), unless
  // the seller's refund explicitly kept them (`keepLicenses`).
  if (!opts.keepLicenses) await cancelRepo.expireLicensesOnCancel(trx, sub.id, at);
  // Same shape as the subscriptions module's events: the whole Subscription record plus `cancellation` / `refund`.
  await writeEvent(trx, deps.clock, { storeId: ended.store_id, mode: ended.mode, type: 'subscription.ended', data: { ...subscriptionView(ended), [opts.extraKey ?? 'cancellation']: cancellation } });
  // The card must never be charged again: its billing key is deleted at the gateway once this commits.
  await enqueueBillingKeyDeletion(trx, deps, ended);
  return ended;
}
