import type { Db } from '../db';
import type { AppDeps } from '../deps';
import { createLicense } from './issuance';
import { expiryAtIssue, normalizeMaxActivations } from './model';
import { extendLicenses, findOrderForLicense, findOriginalLicenseOfOrder, findProductLicenseSettings, subscriptionLicenses } from './issue-repo';

/**
 * Called by the checkout module inside the transaction that marks an order paid. Issues the order's license by the
 * product's license settings (service-issued: a key now; seller-issued: a pending license and a `license.issue`
 * job). Must only use `trx`, never `deps.db`.
 *
 * Safe to call twice for one order (one original license per order, enforced by a unique index too). A paid order
 * of a subscription that already has a license (a renewal or a difference payment) extends that license to the
 * order's period end instead of issuing another key.
 */
export async function issueLicensesForOrder(trx: Db, deps: Pick<AppDeps, 'clock' | 'config'>, orderId: string): Promise<void> {
  const order = await findOrderForLicense(trx, orderId);
  if (!order) throw new Error(`issueLicensesForOrder: order ${orderId} not found`);
  const product = await findProductLicenseSettings(trx, order.product_id);
  if (product.license_mode === 'none') return;

  const now = deps.clock.now();
  const subscription = product.type === 'subscription' || order.subscription_id !== null;

  if (order.subscription_id) {
    const subscriptionId = order.subscription_id;
    // The first order may have been paid before its subscription id was recorded on the license, so its
    // licenses are also found through the subscription's other orders.
    const existing = await subscriptionLicenses(trx, subscriptionId, order.id);
    if (existing.length > 0) {
      if (order.period_end) {
        const periodEnd = order.period_end;
        // Only ever forward: a late or replayed order of an earlier period must not shorten the license.
        await extendLicenses(trx, existing.map((l) => l.id), periodEnd, subscriptionId, now);
      }
      return;
    }
  }

  const already = await findOriginalLicenseOfOrder(trx, order.id);
  if (already) return;

  await createLicense(trx, deps, {
    storeId: order.store_id,
    mode: order.mode,
    productId: order.product_id,
    orderId: order.id,
    subscriptionId: order.subscription_id,
    buyerEmail: order.buyer_email,
    buyerName: order.buyer_name,
    maxActivations: normalizeMaxActivations(product.license_max_activations),
    expiresAt: expiryAtIssue({ subscription, periodEnd: order.period_end, paidAt: order.paid_at ?? now, validityDays: product.license_validity_days }),
    issuer: product.license_mode,
    rotatedFrom: null,
  });
}
