// Kysely table types of the subscriptions module (composed into DB in src/db/types.ts). See migration 008_subscriptions.sql.
import type { ColumnType, Generated, RawBuilder } from 'kysely';
import type { Json, Mode, Timestamp, TossKeyPair } from '../platform/tables';
import type { SaleTerms } from '../orders/terms';
import type { PaymentProviderName } from '../payments/provider';

export type SubscriptionStatus = 'active' | 'past_due' | 'ended';
export type BillingInterval = 'monthly' | 'yearly';
export type EndReason = 'canceled' | 'payment_failed' | 'price_change_declined' | 'withdrawn' | 'refunded' | 'trial_not_confirmed';

/** A downgrade (or interval change) waiting for the next renewal. */
export interface PendingPlan {
  planId: string;
  interval: BillingInterval;
  amount: number;
  requestedAt: string;
  /** The new plan's list prices when the buyer chose it (its terms from the next renewal on); absent on older rows. */
  listPrices?: { monthlyPrice: number | null; yearlyPrice: number | null };
  /** The new plan's display name when the buyer chose it (its sold terms from the next renewal on); absent on older rows. */
  planName?: string;
}

/** What a renewal or difference charge buys: the plan, its interval and price, and the plan's list prices (for its terms). */
export interface ChargeTarget {
  planId: string;
  interval: BillingInterval;
  amount: number;
  listPrices?: { monthlyPrice: number | null; yearlyPrice: number | null };
  /** The plan's display name when the buyer chose it (kept in the sold terms); absent on older rows. */
  planName?: string;
}

/**
 * What a subscription was just before an upgrade took effect (migration 075), kept on the upgrade's difference charge:
 * if the buyer withdraws that difference order alone, the subscription returns to exactly this (src/subscriptions/cancel/withdrawal.ts).
 * `terms`, `recurringConsent` and `pendingPlan` are absent on upgrades recorded before migration 075.
 */
export interface PreviousTerms {
  planId: string;
  interval: BillingInterval;
  amount: number;
  terms?: SaleTerms;
  recurringConsent?: RecurringConsent | null;
  pendingPlan?: PendingPlan | null;
}

export interface SubscriptionsTable {
  id: string;
  store_id: string;
  mode: Mode;
  status: SubscriptionStatus;
  product_id: string;
  product_name: string;
  plan_id: string;
  billing_interval: BillingInterval;
  amount: number;
  currency: 'KRW';
  current_period_start: Date;
  current_period_end: Date;
  cancel_at_period_end: boolean;
  canceled_at: Date | null;
  cancel_reason: string | null;
  ended_at: Date | null;
  end_reason: EndReason | null;
  started_at: Date;
  checkout_session_id: string | null;
  buyer_name: string;
  buyer_email: string;
  buyer_phone: string;
  card_brand: string | null;
  card_last4: string | null;
  billing_key_sealed: string | null;
  /** Which of the mode's Toss key pairs issued the billing key (migration 068): its charges and delete go to that MID. */
  toss_key_pair: ColumnType<TossKeyPair, TossKeyPair | undefined, TossKeyPair>;
  /**
   * The gateway that issued the billing key (migration 128): a key is known only to its issuer, so renewals, retries
   * and the key's delete go there whatever the store's mode uses now; a new card (updateCard) moves it.
   */
  provider: PaymentProviderName;
  /**
   * When a Toss BILLING_DELETED webhook named this card's billing key (migration 060); null: none. Not believed on its
   * word: the next charge settles it (a success clears it, Toss's NOT_FOUND_BILLING removes the card).
   */
  card_reported_deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  customer_key: string;
  latest_order_id: string | null;
  metadata: Json<Record<string, string> | null>;
  pending_plan: Json<PendingPlan | null>;
  dunning_attempts: number;
  next_retry_at: Date | null;
  test_clock_offset_ms: number;
  /** The terms the buyer agreed to (migration 015): those of the first order, the plan's list prices following plan changes. */
  terms: ColumnType<SaleTerms, RawBuilder<unknown>, RawBuilder<unknown>>;
  /** The buyer's consent to the recurring charge as the payment page worded it (migration 020); null before it. */
  recurring_consent: ColumnType<RecurringConsent | null, RawBuilder<unknown> | undefined, RawBuilder<unknown>>;
  /** When the free trial ends and the first charge is due (migration 020); null without a trial. */
  trial_ends_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The fresh consent to the first charge of a trial longer than 30 days, given within the 30 days before it (migration 055). */
  trial_consent: ColumnType<RecurringConsent | null, RawBuilder<unknown> | undefined, RawBuilder<unknown>>;
  /** The card a trial started with (migration 061): sha256 of the gateway's masked card; see trial-once.ts. */
  trial_card_fingerprint: ColumnType<string | null, string | null | undefined, string | null>;
  /** The e-mail box a trial was started with, normalised (trials/identity.ts, migration 092); null without a trial. */
  trial_email_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** The phone number a trial was started with, normalised (digits, Korean domestic form); null without one. */
  trial_phone_key: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The plan price change this subscription was told about and not yet charged (migration 076): what the renewal at
   * its `effectiveAt` charges and whether the buyer agreed. Written when the buyer is told and when the buyer agrees;
   * the API shows it as `pendingPriceChange` and the receipt as the next charge (see `upcomingPrice`).
   */
  price_change: ColumnType<ScheduledPrice | null, RawBuilder<unknown> | undefined, RawBuilder<unknown>>;
  /** The buyer's language for mails and the receipt link (migration 022). */
  locale: ColumnType<'ko' | 'en', 'ko' | 'en' | undefined, 'ko' | 'en'>;
  created_at: Timestamp;
  updated_at: Date;
}

/**
 * The buyer's separate consent to the recurring charge (전자상거래법 제13조⑥): the exact sentence next to the
 * checkbox they ticked, when, and which wording version (src/subscriptions/consent.ts CONSENT_VERSION).
 */
export interface RecurringConsent {
  text: string;
  consentedAt: string;
  version: string;
  /** A plan price change already scheduled at checkout whose new price the sentence stated (the buyer agreed to it too). */
  priceChangeId?: string;
}

/** A plan price change as it stands for one subscription (src/subscriptions/price-change/service.ts). */
export interface ScheduledPrice {
  priceChangeId: string;
  planId: string;
  billingInterval: BillingInterval;
  /** What the subscription paid when told. */
  currentAmount: number;
  /** What the renewal at `effectiveAt` charges (an increase: only once the buyer agreed). */
  amount: number;
  /** The renewal that first charges it (this subscription's own date: its `decideBy`). */
  effectiveAt: string;
  /** An increase: the buyer must agree in the portal, or the subscription ends at `effectiveAt` without a charge. */
  consentRequired: boolean;
  /** When the buyer agreed (the portal, or the payment page that stated the new price); null: not (yet). */
  acceptedAt: string | null;
}

export interface SubscriptionTrialNoticesTable {
  subscription_id: string;
  notice: 'lead' | 'signup' | 'final';
  due_at: Date;
  written_at: Date;
}

export interface SubscriptionChargesTable {
  id: string;
  subscription_id: string;
  kind: 'renewal' | 'difference';
  period_start: Date;
  period_end: Date;
  attempt: number;
  order_id: string;
  amount: number;
  target: Json<ChargeTarget | null>;
  /** A difference charge once paid: the subscription as it was before the upgrade (migration 075); null otherwise. */
  previous: ColumnType<PreviousTerms | null, RawBuilder<unknown> | undefined, RawBuilder<unknown>>;
  /** `needs_attention`: no answer after the bounded unknown-retries (see UNKNOWN_RETRY_DELAYS_MS); the seller settles it. */
  status: 'charging' | 'succeeded' | 'failed' | 'needs_attention';
  locked_until: Date | null;
  error_code: string | null;
  error_message: string | null;
  /** How many times the gateway's answer was unknown (timeout, 5xx), and when that first happened (migration 010). */
  unknown_attempts: Generated<number>;
  first_unknown_at: Date | null;
  created_at: Timestamp;
  updated_at: Date;
}

/** A seller's scheduled new price for a plan (migration 021). */
export interface PlanPriceChangesTable {
  id: string;
  store_id: string;
  mode: Mode;
  product_id: string;
  plan_id: string;
  monthly_price: number | null;
  yearly_price: number | null;
  effective_at: Date;
  created_at: Timestamp;
  canceled_at: Date | null;
}

export type PriceChangeOutcome = 'applied' | 'ended' | 'superseded' | 'moot';

/** One subscription told about a price change, and the buyer's answer (migration 021). */
export interface SubscriptionPriceChangesTable {
  subscription_id: string;
  price_change_id: string;
  billing_interval: BillingInterval;
  current_amount: number;
  new_amount: number;
  applies_from: Date;
  decide_by: Date;
  notified_at: Date;
  accepted_at: Date | null;
  /** The buyer declined the increase in the portal (migration 080); cleared when they agree afterwards. */
  declined_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  outcome: PriceChangeOutcome | null;
  resolved_at: Date | null;
  created_at: Timestamp;
}

export type PlanConsentStatus = 'pending' | 'accepted' | 'declined' | 'withdrawn' | 'lapsed';

/** A seller's plan-change offer awaiting the buyer, or a buyer's own portal change, with its consent (migration 054). */
export interface SubscriptionPlanConsentsTable {
  id: string;
  subscription_id: string;
  store_id: string;
  mode: Mode;
  source: 'seller' | 'buyer';
  from_plan_id: string;
  from_interval: BillingInterval;
  from_amount: number;
  plan_id: string;
  billing_interval: BillingInterval;
  amount: number;
  list_prices: Json<{ monthlyPrice: number | null; yearlyPrice: number | null } | null>;
  status: PlanConsentStatus;
  offered_at: Date;
  deadline: Date;
  consent: Json<RecurringConsent | null>;
  resolved_at: Date | null;
  created_at: Timestamp;
}

export interface SubscriptionsTables {
  subscription_plan_consents: SubscriptionPlanConsentsTable;
  subscriptions: SubscriptionsTable;
  subscription_charges: SubscriptionChargesTable;
  plan_price_changes: PlanPriceChangesTable;
  subscription_price_changes: SubscriptionPriceChangesTable;
  subscription_trial_notices: SubscriptionTrialNoticesTable;
}
