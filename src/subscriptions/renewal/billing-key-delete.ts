import { createHash } from 'node:crypto';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { enqueueJob } from '../../jobs/queue';
import { providerOfPayment, type PaymentProviderName } from '../../payments';
import type { Mode, TossKeyPair } from '../../platform/tables';
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

/**
 * A card change replaces the subscription's billing key; the replaced key would stay chargeable at the gateway that
 * issued it (a card change across rails leaves it on the rail the subscription left, where nothing of ours points at
 * it any more). So it is deleted there, as an ended subscription's is: a job enqueued in the transaction that records
 * the new key, carrying the old key sealed and where it was issued (provider, mode, credential set), run after the
 * commit and retried on the queue's schedule while the gateway refuses or does not answer. Deleting is idempotent at
 * the gateway, so a retry is harmless. Toss: the API reference we hold (2022-11-16) documents no removal of a billing
 * key; the adapter's DELETE /v1/billing/{billingKey} (the one ended subscriptions use) is called, and a key Toss does
 * not know reads as deleted.
 */
export const REPLACED_BILLING_KEY_DELETE_JOB = 'subscriptions.replaced-billing-key.delete';

export interface ReplacedBillingKey {
  subscriptionId: string;
  storeId: string;
  mode: Mode;
  provider: PaymentProviderName;
  tossKeyPair: TossKeyPair;
  /** The old key as the subscription held it (sealed with the master key; never in clear in the jobs table). */
  keySealed: string;
}

/** Call inside the transaction that records the new billing key. */
export async function enqueueReplacedKeyDeletion(trx: Db, deps: Pick<AppDeps, 'clock'>, old: ReplacedBillingKey): Promise<void> {
  const tag = createHash('sha256').update(old.keySealed).digest('hex').slice(0, 16);
  await enqueueJob(trx, deps.clock, { name: REPLACED_BILLING_KEY_DELETE_JOB, payload: { ...old }, dedupeKey: `${REPLACED_BILLING_KEY_DELETE_JOB}:${old.subscriptionId}:${tag}` });
}

/** Deletes a replaced billing key at the gateway that issued it; throws (the queue retries) unless the gateway confirms. */
export async function deleteReplacedBillingKey(deps: Pick<AppDeps, 'db' | 'clock' | 'config'>, old: ReplacedBillingKey): Promise<'deleted'> {
  const provider = await providerOfPayment(deps, { mode: old.mode, provider: old.provider, toss_key_pair: old.tossKeyPair }, async () => (await getModeSettings(deps.db, old.storeId, old.mode)).raw);
  if (!provider) throw new Error(`subscription ${old.subscriptionId}: no ${old.provider} credentials left to delete its replaced billing key`);
  const outcome = await provider.deleteBillingKey({ billingKey: decryptSecret(deps.config.masterKey, old.keySealed).toString('utf8'), why: 'replaced' });
  if (outcome.status === 'unknown') throw new Error(`replaced billing key delete for ${old.subscriptionId}: ${outcome.message}`);
  if (outcome.status === 'failed') throw new Error(`replaced billing key delete for ${old.subscriptionId} refused: ${outcome.code} ${outcome.message}`);
  return 'deleted';
}

export function registerBillingKeyDeletion(deps: Pick<AppDeps, 'db' | 'clock' | 'config' | 'worker'>): void {
  deps.worker.registerJob(BILLING_KEY_DELETE_JOB, async (payload) => {
    await deleteEndedBillingKey(deps, String(payload.subscriptionId));
  });
  deps.worker.registerJob(REPLACED_BILLING_KEY_DELETE_JOB, async (payload) => {
    await deleteReplacedBillingKey(deps, payload as unknown as ReplacedBillingKey);
  });
}
