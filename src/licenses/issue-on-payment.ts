import type { Db } from '../db';
import type { AppDeps } from '../deps';
import { createLicense } from './issuance';
import { expiryAtIssue, normalizeMaxActivations } from './model';

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
  const order = await trx
    .selectFrom('orders')
    .select(['id', 'store_id', 'mode', 'product_id', 'status', 'buyer_email', 'buyer_name', 'paid_at', 'period_end', 'subscription_id'])
    .where('id', '=', orderId)
    .executeTakeFirst();
  if (!order) throw new Error(`issueLicensesForOrder: order ${orderId} not found`);
  const product = await trx
    .selectFrom('products')
    .select(['id', 'type', 'license_mode', 'license_max_activations', 'license_validity_days'])
    .where('id', '=', order.product_id)
    .executeTakeFirstOrThrow();
  if (product.license_mode === 'none') return;

  const now = deps.clock.now();
  const subscription = product.type === 'subscription' || order.subscription_id !== null;

  if (order.subscription_id) {
    const subscriptionId = order.subscription_id;
    // The first order may have been paid before its subscription id was recorded on the license, so its
    // licenses are also found through the subscription's other orders.
    const existing = await trx
      .selectFrom('licenses')
      .select(['id', 'expires_at'])
      .where((eb) =>
        eb.or([
          eb('subscription_id', '=', subscriptionId),
          eb('order_id', 'in', eb.selectFrom('orders').select('orders.id').where('orders.subscription_id', '=', subscriptionId).where('orders.id', '<>', order.id)),
        ]),
      )
      .where('status', '<>', 'revoked')
      .execute();
    if (existing.length > 0) {
      if (order.period_end) {
        const periodEnd = order.period_end;
        // Only ever forward: a late or replayed order of an earlier period must not shorten the license.
        await trx
          .updateTable('licenses')
          .set({ expires_at: periodEnd, subscription_id: subscriptionId, updated_at: now })
          .where('id', 'in', existing.map((l) => l.id))
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '<', periodEnd)]))
          .execute();
      }
      return;
    }
  }

  const already = await trx.selectFrom('licenses').select('id').where('order_id', '=', order.id).where('rotated_from', 'is', null).executeTakeFirst();
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
