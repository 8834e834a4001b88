import type { Db } from '../db';
import type { LicenseRow } from './repo';

// Queries of license issuance on payment (issue-on-payment.ts) and of the seller-issued key job (issue-job.ts).

export function findOrderForLicense(trx: Db, orderId: string) {
  return trx
    .selectFrom('orders')
    .select(['id', 'store_id', 'mode', 'product_id', 'status', 'buyer_email', 'buyer_name', 'paid_at', 'period_end', 'subscription_id'])
    .where('id', '=', orderId)
    .executeTakeFirst();
}

export function findProductLicenseSettings(trx: Db, productId: string) {
  return trx
    .selectFrom('products')
    .select(['id', 'type', 'license_mode', 'license_max_activations', 'license_validity_days'])
    .where('id', '=', productId)
    .executeTakeFirstOrThrow();
}

/**
 * The subscription's licenses that are not revoked. The first order may have been paid before its subscription id
 * was recorded on the license, so its licenses are also found through the subscription's other orders.
 */
export function subscriptionLicenses(trx: Db, subscriptionId: string, exceptOrderId: string): Promise<Array<Pick<LicenseRow, 'id' | 'expires_at'>>> {
  return trx
    .selectFrom('licenses')
    .select(['id', 'expires_at'])
    .where((eb) =>
      eb.or([
        eb('subscription_id', '=', subscriptionId),
        eb('order_id', 'in', eb.selectFrom('orders').select('orders.id').where('orders.subscription_id', '=', subscriptionId).where('orders.id', '<>', exceptOrderId)),
      ]),
    )
    .where('status', '<>', 'revoked')
    .execute();
}

/** Extends the licenses to `periodEnd`, only ever forward: a license already expiring later is left alone. */
export async function extendLicenses(trx: Db, ids: string[], periodEnd: Date, subscriptionId: string, now: Date): Promise<void> {
  await trx
    .updateTable('licenses')
    .set({ expires_at: periodEnd, subscription_id: subscriptionId, updated_at: now })
    .where('id', 'in', ids)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '<', periodEnd)]))
    .execute();
}

/** The order's original license (not a re-issue), if one was issued. */
export function findOriginalLicenseOfOrder(trx: Db, orderId: string): Promise<{ id: string } | undefined> {
  return trx.selectFrom('licenses').select('id').where('order_id', '=', orderId).where('rotated_from', 'is', null).executeTakeFirst();
}

/** The license with its order's plan and interval (the license.issue request names them). */
export function findLicenseWithPlan(db: Db, licenseId: string) {
  return db
    .selectFrom('licenses')
    .innerJoin('orders', 'orders.id', 'licenses.order_id')
    .selectAll('licenses')
    .select(['orders.plan_id', 'orders.billing_interval'])
    .where('licenses.id', '=', licenseId)
    .executeTakeFirst();
}

/** Applies the seller's key to a pending license and activates it. */
export async function applyIssuedKey(
  trx: Db,
  licenseId: string,
  cols: { key_hash: string; key_sealed: string },
  answer: { expiresAt: Date | null; maxActivations: number | null },
  now: Date,
): Promise<void> {
  await trx
    .updateTable('licenses')
    .set({ ...cols, status: 'active', expires_at: answer.expiresAt, max_activations: answer.maxActivations, updated_at: now })
    .where('id', '=', licenseId)
    .execute();
}
