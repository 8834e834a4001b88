import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import { parseCardSummary, subscriptionView } from './model';
import { decryptSecret, encryptSecret } from '../platform/crypto';
import { enqueueReplacedKeyDeletion } from './renewal/billing-key-delete';
import { providerFor, credentialSetFor, type BillingKeyResult, type Outcome, type PaymentProviderName } from '../payments';
import { getModeSettings } from '../stores/service';
import { claimRetry, executeCharge, type ChargeResult } from './renewal/service';
import { writeSubscriptionUpdated } from './events';
import * as repo from './repo';
import type { SubscriptionView } from './schemas';
import { MESSAGES } from '../platform/messages';

type Deps = Pick<AppDeps, 'db'>;

/** One subscription inside the key's range (store, mode, products); otherwise SUBSCRIPTION_NOT_FOUND. */
export async function getSubscription(deps: Deps, f: repo.SubscriptionFilter, id: string): Promise<SubscriptionView> {
  const row = await repo.findSubscription(deps.db, f, id);
  if (!row) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
  return subscriptionView(row);
}

export async function listSubscriptions(deps: Deps, f: repo.SubscriptionFilter, l: repo.SubscriptionListFilter, page: PageParams): Promise<Page<SubscriptionView>> {
  return listPage(
    page,
    () => repo.countSubscriptions(deps.db, f, l),
    (offset, limit) => repo.pageSubscriptions(deps.db, f, l, offset, limit),
    subscriptionView,
  );
}

/** The gateway a subscription's billing key belongs to (its rail), for the seller's dashboard; null when not in range. */
export async function subscriptionRail(deps: Deps, f: repo.SubscriptionFilter, id: string): Promise<PaymentProviderName | null> {
  return (await repo.findSubscription(deps.db, f, id))?.provider ?? null;
}

type BillingDeps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/**
 * The gateway a new card is registered with: the mode's gateway now (the subscription moves to its rail with the new
 * key, since the old key's gateway cannot charge the new one), under the 자동결제 MID when the mode holds its pair (issue 32), which the
 * portal's card window opened with too (portal-card.ts); the subscription then charges under that pair.
 */
async function providerOf(deps: BillingDeps, sub: { store_id: string; mode: 'live' | 'test' }) {
  const settings = (await getModeSettings(deps.db, sub.store_id, sub.mode)).raw;
  const pair = credentialSetFor(settings, 'billing');
  const provider = providerFor(deps, settings, pair);
  if (!provider) throw new ApiError('CHECKOUT_NOT_CONFIGURED');
  return { provider, pair };
}

export interface CardUpdateResult {
  subscription: SubscriptionView;
  /** A `past_due` subscription's retry, run at once with the new card; null when nothing was owed. */
  retry: ChargeResult | null;
}

/**
 * Registers a new card for a subscription (the portal calls this; `authKey` is the gateway's billing-auth key, in
 * test mode `sim_auth_<cardNumber>`). The billing key is issued outside any transaction, then stored sealed with a
 * `subscription.updated` (`card_updated`). A `past_due` subscription is retried at once with the new card: the
 * retry takes the slot of the next scheduled one (a failure counts as that retry). The caller checks the buyer's
 * right to the subscription; this checks only that it exists and has not ended.
 */
export async function updateCard(deps: BillingDeps, subscriptionId: string, input: { authKey: string }): Promise<CardUpdateResult> {
  const current = await repo.getSubscription(deps.db, subscriptionId);
  if (!current) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
  if (current.status === 'ended') throw new ApiError('ALREADY_ENDED');
  const { provider, pair } = await providerOf(deps, current);
  let issued: Outcome<BillingKeyResult>;
  try {
    issued = await provider.issueBillingKey({ authKey: input.authKey, customerKey: current.customer_key });
  } catch (err) {
    issued = { status: 'unknown', message: err instanceof Error ? err.message : String(err) };
  }
  if (issued.status !== 'succeeded') {
    throw new ApiError('CARD_UPDATE_FAILED', {
      message: issued.status === 'failed' ? MESSAGES.subscriptions.cardRegistrationFailed(issued.message) : undefined,
      details: { retryable: issued.status === 'unknown', gatewayCode: issued.status === 'failed' ? issued.code : null },
    });
  }
  const card = parseCardSummary(issued.value.cardSummary);
  const sealed = encryptSecret(deps.config.masterKey, issued.value.billingKey);
  const claimed = await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const sub = await repo.lockSubscription(trx, subscriptionId);
    if (!sub) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
    if (sub.status === 'ended') throw new ApiError('ALREADY_ENDED');
    // The key this card replaces is deleted where it was issued, once this commits (a different key: re-registering
    // the same one leaves it in use).
    if (sub.billing_key_sealed && decryptSecret(deps.config.masterKey, sub.billing_key_sealed).toString('utf8') !== issued.value.billingKey) {
      await enqueueReplacedKeyDeletion(trx, deps, { subscriptionId: sub.id, storeId: sub.store_id, mode: sub.mode, provider: sub.provider, tossKeyPair: sub.toss_key_pair, keySealed: sub.billing_key_sealed });
    }
    const updated = await repo.updateSubscription(trx, sub.id, { billing_key_sealed: sealed, toss_key_pair: pair, provider: provider.name, card_brand: card.brand, card_last4: card.last4, card_reported_deleted_at: null, updated_at: now });
    await writeSubscriptionUpdated(trx, deps.clock, updated, { kind: 'card_updated', card: { brand: card.brand, last4: card.last4 } });
    return updated.status === 'past_due' ? claimRetry(trx, deps, updated, now) : null;
  });
  let retry: ChargeResult | null = null;
  if (claimed) retry = claimed.kind === 'charge' ? await executeCharge(deps, claimed.chargeId) : { status: 'pending' };
  return { subscription: subscriptionView((await repo.getSubscription(deps.db, subscriptionId))!), retry };
}
