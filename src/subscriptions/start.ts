import type { Db } from '../db';
import type { AppDeps } from '../deps';
import type { OrderRow } from '../orders/model';
import type { SessionRow } from '../checkout/model';
import { jsonb } from '../db';
import { parseCardSummary, subscriptionIdForSession, type SubscriptionRow } from './model';
import { insertSubscription } from './repo';
import { noticeIfMissed } from './price-change/notice';
import type { TossKeyPair } from '../platform/tables';
import type { PaymentProviderName } from '../payments/provider';
import { cardFingerprint } from './trials/once';
import { trialEmailKey, trialPhoneKey } from './trials/identity';

/**
 * Creates the subscription of a paid subscription checkout, inside the transaction that records its first order
 * (the order already carries the subscription id). Its period is the order's; what renewals charge is the plan's
 * list price the session was created with (a coupon discounts the first order only).
 */
export async function startSubscription(
  trx: Db,
  deps: Pick<AppDeps, 'clock'>,
  input: { session: SessionRow; order: OrderRow; billing: { keySealed: string; cardSummary: string | null } | null; tossKeyPair?: TossKeyPair; provider: PaymentProviderName },
): Promise<SubscriptionRow> {
  const { session: s, order: o } = input;
  const now = deps.clock.now();
  const id = subscriptionIdForSession(s.id);
  const card = parseCardSummary(input.billing?.cardSummary ?? null);
  const row = await insertSubscription(trx, {
    id,
    store_id: s.store_id,
    mode: s.mode,
    status: 'active',
    product_id: s.product_id,
    product_name: o.product_name,
    plan_id: s.plan_id!,
    billing_interval: s.billing_interval!,
    amount: s.amount,
    currency: 'KRW',
    current_period_start: o.period_start!,
    current_period_end: o.period_end!,
    cancel_at_period_end: false,
    canceled_at: null,
    cancel_reason: null,
    ended_at: null,
    end_reason: null,
    started_at: o.paid_at ?? now,
    checkout_session_id: s.id,
    buyer_name: o.buyer_name,
    buyer_email: o.buyer_email,
    buyer_phone: o.buyer_phone,
    card_brand: input.billing ? card.brand : null,
    card_last4: input.billing ? card.last4 : null,
    billing_key_sealed: input.billing?.keySealed ?? null,
    // The MID that issued the billing key: renewals and the key's delete go there (issue 32).
    toss_key_pair: input.tossKeyPair ?? 'payments',
    // The gateway that issued the billing key: the subscription stays on that rail (a key cannot move between PGs).
    provider: input.provider,
    customer_key: id,
    latest_order_id: o.id,
    metadata: jsonb(s.metadata ?? null),
    locale: s.locale,
    pending_plan: jsonb(null),
    dunning_attempts: 0,
    next_retry_at: null,
    test_clock_offset_ms: 0,
    // The first order's terms are the subscription's: renewals are sold under them (a plan change swaps the list prices).
    terms: jsonb(o.terms),
    // The buyer's separate consent to the recurring charge, as the payment page worded it (전자상거래법 제13조⑥).
    recurring_consent: jsonb(s.attempt?.recurringConsent ?? null),
    // A trial's first order covers the trial: its end is the first charge (the renewal at the period end).
    trial_ends_at: s.trial_days ? o.period_end! : null,
    // The card the trial registered, to offer the product's trial once per card (see trial-once.ts).
    trial_card_fingerprint: s.trial_days ? cardFingerprint(input.billing?.cardSummary ?? null) : null,
    // The buyer's e-mail box and phone, normalised: one person, however written, takes the trial once (trials/identity.ts).
    trial_email_key: s.trial_days ? trialEmailKey(o.buyer_email) : null,
    trial_phone_key: s.trial_days ? trialPhoneKey(o.buyer_phone) : null,
    created_at: now,
    updated_at: now,
  });
  // A plan price change already scheduled concerns this subscriber too (told now, applied after 30 days at the earliest).
  await noticeIfMissed(trx, deps.clock, row, now);
  return row;
}
