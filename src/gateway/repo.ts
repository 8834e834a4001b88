import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { PaymentProviderName } from '../payments/provider';

// What a gateway notification may name, read to decide whether it names anything of ours (src/gateway/subject.ts).
// Each is one index probe: orders' primary key, orders_payment_key_idx (migration 090), checkout_sessions'
// unique pending_order_id. Hundreds of these a second in a flood of forged notifications must stay cheap.

/** An order of the store and mode paid through one of `providers`, by its id (the orderId the gateway was given), with the payment key we recorded. */
export function findGatewayOrderById(db: Db, storeId: string, mode: Mode, providers: readonly PaymentProviderName[], id: string): Promise<{ id: string; provider_payment_key: string | null } | undefined> {
  return db
    .selectFrom('orders')
    .select(['id', 'provider_payment_key'])
    .where('id', '=', id)
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('provider', 'in', providers)
    .executeTakeFirst();
}

/** An order of the store and mode paid through one of `providers`, by the payment key the gateway gave it. */
export function findGatewayOrderByPaymentKey(db: Db, storeId: string, mode: Mode, providers: readonly PaymentProviderName[], paymentKey: string): Promise<{ id: string; provider_payment_key: string | null } | undefined> {
  return db
    .selectFrom('orders')
    .select(['id', 'provider_payment_key'])
    .where('provider_payment_key', '=', paymentKey)
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('provider', 'in', providers)
    .executeTakeFirst();
}

/** Whether a checkout session of the store and mode reserved this order id (a payment may be in flight under it). */
export async function sessionReservedOrderId(db: Db, storeId: string, mode: Mode, orderId: string): Promise<boolean> {
  const row = await db.selectFrom('checkout_sessions').select('id').where('pending_order_id', '=', orderId).where('store_id', '=', storeId).where('mode', '=', mode).executeTakeFirst();
  return row !== undefined;
}

/** Whether any subscription of the store and mode holds a billing key (else a BILLING_DELETED can name nothing of ours). */
export async function anyBillingKeyHeld(db: Db, storeId: string, mode: Mode): Promise<boolean> {
  const row = await db.selectFrom('subscriptions').select('id').where('store_id', '=', storeId).where('mode', '=', mode).where('status', '<>', 'ended').where('billing_key_sealed', 'is not', null).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Records that a store and mode took a gateway's webhook message (its delivery id, the same on every retry; migration
 * 130). True the first time; false when it was taken before, and the delivery is a retry to acknowledge and ignore.
 */
export async function takeWebhookDelivery(db: Db, storeId: string, mode: Mode, deliveryId: string, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('gateway_webhook_deliveries')
    .values({ store_id: storeId, mode, delivery_id: deliveryId, received_at: now })
    .onConflict((oc) => oc.columns(['store_id', 'mode', 'delivery_id']).doNothing())
    .returning('delivery_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the delivery ids taken before `before` (hourly: about an hour's deliveries a run); returns how many went. */
export async function pruneWebhookDeliveries(db: Db, before: Date): Promise<number> {
  const r = await db.deleteFrom('gateway_webhook_deliveries').where('received_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
