import { timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../deps';
import { decryptSecret } from '../platform/crypto';
import type { Mode } from '../platform/tables';
import { writeSubscriptionUpdated } from './events';
import * as repo from './repo';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

function sameKey(sealed: string, billingKey: Buffer, masterKey: Buffer): boolean {
  const ours = decryptSecret(masterKey, sealed);
  return ours.length === billingKey.length && timingSafeEqual(ours, billingKey);
}

/**
 * The gateway deleted a billing key (Toss's BILLING_DELETED webhook): the subscription holding it has no card any
 * more. Its billing key and card are cleared and `subscription.updated` (`card_removed`) goes out in one transaction;
 * renewals then fail with NO_BILLING_KEY and dunning asks the buyer for a new card (portal), as for any declined card.
 *
 * Toss has no API to read a billing key back, so the key itself is the proof: it is a secret only Toss and this
 * service hold (stored sealed, never shown), and a body naming a key no live subscription of this store and mode holds
 * changes nothing. Keys are sealed with a random nonce, so the store's subscriptions holding one are unsealed and
 * compared here (a few thousand a second). Returns the subscription whose card was cleared, or null.
 */
export async function markBillingKeyDeleted(deps: Deps, input: { storeId: string; mode: Mode; billingKey: string }): Promise<string | null> {
  const wanted = Buffer.from(input.billingKey, 'utf8');
  const candidates = await repo.subscriptionsHoldingBillingKey(deps.db, input.storeId, input.mode);
  const match = candidates.find((c) => c.billing_key_sealed && sameKey(c.billing_key_sealed, wanted, deps.config.masterKey));
  if (!match) return null;
  return deps.db.transaction().execute(async (trx) => {
    const sub = await repo.lockSubscription(trx, match.id);
    // Re-checked under the lock: a card registered meanwhile is a new key and stays.
    if (!sub || sub.status === 'ended' || !sub.billing_key_sealed || !sameKey(sub.billing_key_sealed, wanted, deps.config.masterKey)) return null;
    const now = deps.clock.now();
    const updated = await repo.updateSubscription(trx, sub.id, { billing_key_sealed: null, card_brand: null, card_last4: null, updated_at: now });
    await writeSubscriptionUpdated(trx, deps.clock, updated, { kind: 'card_removed', card: null });
    deps.log.info({ subscriptionId: sub.id }, 'billing key deleted at the gateway; card cleared');
    return sub.id;
  });
}
