import { timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../../deps';
import { decryptSecret } from '../../platform/crypto';
import type { Mode } from '../../platform/tables';
import { writeSubscriptionUpdated } from '../events';
import * as repo from '../repo';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

function sameKey(sealed: string, billingKey: Buffer, masterKey: Buffer): boolean {
  const ours = decryptSecret(masterKey, sealed);
  return ours.length === billingKey.length && timingSafeEqual(ours, billingKey);
}

/** Toss's answer to a charge on a billing key it no longer holds (POST /v1/billing/{billingKey}: 404 NOT_FOUND_BILLING). */
export const BILLING_KEY_GONE_CODES: ReadonlySet<string> = new Set(['NOT_FOUND_BILLING']);

/**
 * Toss's BILLING_DELETED webhook named a billing key. Toss signs no such body and offers no API to read a billing key
 * back, so the body proves nothing: a billing key that leaked (a log, a trace) would otherwise let anyone strip the card
 * from a live subscription. So this changes nothing the buyer or seller sees; it only marks the subscription holding
 * the key (`card_reported_deleted_at`) for the next charge, which proves or disproves it: a charge that succeeds clears
 * the mark, one Toss refuses with NOT_FOUND_BILLING removes the card (`removeGoneCard`).
 *
 * Keys are sealed with a random nonce, so the store's subscriptions holding one are unsealed and compared here (a few
 * thousand a second). Returns the subscription marked, or null (no live subscription of this store and mode holds it).
 */
export async function markBillingKeyReportedDeleted(deps: Deps, input: { storeId: string; mode: Mode; billingKey: string }): Promise<string | null> {
  const wanted = Buffer.from(input.billingKey, 'utf8');
  const candidates = await repo.subscriptionsHoldingBillingKey(deps.db, input.storeId, input.mode);
  const match = candidates.find((c) => c.billing_key_sealed && sameKey(c.billing_key_sealed, wanted, deps.config.masterKey));
  if (!match?.billing_key_sealed) return null;
  const marked = await repo.markCardReportedDeleted(deps.db, match.id, match.billing_key_sealed, deps.clock.now());
  if (marked) deps.log.info({ subscriptionId: match.id }, 'Toss reports the billing key deleted; the next charge will tell');
  return marked ? match.id : null;
}

/**
 * A charge was refused because the gateway no longer holds the billing key (Toss's NOT_FOUND_BILLING: Toss's own API
 * proves it). The subscription's billing key and card are cleared and `subscription.updated` (`card_removed`) goes out
 * in one transaction; renewals then fail with NO_BILLING_KEY and dunning asks the buyer for a new card (portal), as for
 * any declined card. `sealedUsed` is the key the charge used: a card registered meanwhile is a new key and stays.
 * Returns whether the card was removed.
 */
export async function removeGoneCard(deps: Deps, subscriptionId: string, sealedUsed: string): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const sub = await repo.lockSubscription(trx, subscriptionId);
    if (!sub || sub.status === 'ended' || sub.billing_key_sealed !== sealedUsed) return false;
    const now = deps.clock.now();
    const updated = await repo.updateSubscription(trx, sub.id, { billing_key_sealed: null, card_brand: null, card_last4: null, card_reported_deleted_at: null, updated_at: now });
    await writeSubscriptionUpdated(trx, deps.clock, updated, { kind: 'card_removed', card: null });
    deps.log.info({ subscriptionId: sub.id }, 'the gateway no longer holds the billing key; card cleared');
    return true;
  });
}
