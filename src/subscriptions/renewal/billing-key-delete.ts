import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { enqueueJob } from '../../jobs/queue';
import { providerOfPayment } from '../../payments';
import { decryptSecret } from '../../platform/crypto';
import { getModeSettings } from '../../stores/service';
import type { SubscriptionRow } from '../model';
import * as repo from '../repo';

/**
 * When a subscription ends, its billing key is deleted at the gateway (Toss: DELETE /v1/billing/{billingKey}), so a
 * card the buyer left can never be charged again, whatever happens to our copy of the key.
 *
 * The call is a job, enqueued in the transaction that ends the subscription and run after it commits: never a
 * gateway call inside a transaction, and retried on the queue's schedule (5 s, 5 min, 30 min, ...) when the gateway
 * does not answer. Deleting is idempotent at the gateway (an unknown key reads as deleted), so a retry is harmless.
 */
export const BILLING_KEY_DELETE_JOB = 'subscriptions.billing-key.delete';

/** Call inside the transaction that ends the subscription. A subscription without a billing key needs nothing. */
export async function enqueueBillingKeyDeletion(trx: Db, deps: Pick<AppDeps, 'clock'>, sub: Pick<SubscriptionRow, 'id' | 'billing_key_sealed'>): Promise<void> {
  if (!sub.billing_key_sealed) return;
  await enqueueJob(trx, deps.clock, { name: BILLING_KEY_DELETE_JOB, payload: { subscriptionId: sub.id }, dedupeKey: `${BILLING_KEY_DELETE_JOB}:${sub.id}` });
}

/**
 * Deletes an ended subscription's billing key at its gateway and forgets our sealed copy. Throws (so the queue retries)
 * when the gateway's answer is unknown or a refusal; done when there is nothing left to delete.
 */
export async function deleteEndedBillingKey(deps: Pick<AppDeps, 'db' | 'clock' | 'config'>, subscriptionId: string): Promise<'deleted' | 'nothing'> {
  const sub = await repo.getSubscription(deps.db, subscriptionId);
  if (!sub || sub.status !== 'ended' || !sub.billing_key_sealed) return 'nothing';
  const sealed = sub.billing_key_sealed;
  // A billing key is only known to the gateway and MID that issued it (issues 32, 42), whatever the mode uses now.
  const provider = await providerOfPayment(deps, sub, async () => (await getModeSettings(deps.db, sub.store_id, sub.mode)).raw);
  if (!provider) throw new Error(`subscription ${sub.id}: no payment provider configured to delete its billing key`);
  const outcome = await provider.deleteBillingKey({ billingKey: decryptSecret(deps.config.masterKey, sealed).toString('utf8') });
  if (outcome.status === 'unknown') throw new Error(`billing key delete for ${sub.id}: ${outcome.message}`);
  if (outcome.status === 'failed') throw new Error(`billing key delete for ${sub.id} refused: ${outcome.code} ${outcome.message}`);
  await repo.clearBillingKey(deps.db, sub.id, sealed, deps.clock.now());
  return 'deleted';
}

export function registerBillingKeyDeletion(deps: Pick<AppDeps, 'db' | 'clock' | 'config' | 'worker'>): void {
  deps.worker.registerJob(BILLING_KEY_DELETE_JOB, async (payload) => {
    await deleteEndedBillingKey(deps, String(payload.subscriptionId));
  });
}
