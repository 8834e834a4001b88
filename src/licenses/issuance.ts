import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { enqueueJob } from '../jobs/queue';
import { newId } from '../platform/ids';
import type { Mode } from '../platform/tables';
import { generateLicenseKey, keyColumns } from './keys';
import { insertLicense, keyTaken } from './repo';
import type { LicenseIssuer } from './tables';

export const LICENSE_ISSUE_JOB = 'license.issue';
export const issueDedupeKey = (licenseId: string) => `license.issue:${licenseId}`;

export interface NewLicense {
  storeId: string;
  mode: Mode;
  productId: string;
  orderId: string;
  subscriptionId: string | null;
  buyerEmail: string;
  buyerName: string;
  maxActivations: number | null;
  expiresAt: Date | null;
  issuer: LicenseIssuer;
  rotatedFrom: string | null;
}

/**
 * Creates one license inside the caller's transaction. Service-issued: a fresh key, active now. Seller-issued:
 * pending without a key, and a license.issue job enqueued in the same transaction, so the request to the seller
 * exists exactly when the license does.
 */
export async function createLicense(trx: Db, deps: Pick<AppDeps, 'clock' | 'config'>, input: NewLicense): Promise<string> {
  const { clock, config } = deps;
  const now = clock.now();
  const id = newId('lic', clock);
  let keyFields: { key_hash: string | null; key_sealed: string | null } = { key_hash: null, key_sealed: null };
  if (input.issuer === 'service') {
    // 125 random bits never collide in practice; the check costs one index probe and makes it certain.
    let key = generateLicenseKey();
    while (await keyTaken(trx, keyColumns(config.masterKey, key).key_hash, input.productId)) key = generateLicenseKey();
    keyFields = keyColumns(config.masterKey, key);
  }
  await insertLicense(trx, {
    id,
    store_id: input.storeId,
    mode: input.mode,
    product_id: input.productId,
    order_id: input.orderId,
    order_item_id: null,
    subscription_id: input.subscriptionId,
    issuer: input.issuer,
    ...keyFields,
    buyer_email: input.buyerEmail,
    buyer_name: input.buyerName,
    status: input.issuer === 'service' ? 'active' : 'pending',
    max_activations: input.maxActivations,
    issued_at: now,
    expires_at: input.expiresAt,
    revoked_at: null,
    revoke_reason: null,
    rotated_from: input.rotatedFrom,
    issue_event_id: input.issuer === 'seller' ? newId('evt', clock) : null,
    created_at: now,
    updated_at: now,
  });
  if (input.issuer === 'seller') {
    await enqueueJob(trx, clock, { name: LICENSE_ISSUE_JOB, payload: { licenseId: id }, dedupeKey: issueDedupeKey(id) });
  }
  return id;
}
