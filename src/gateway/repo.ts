import type { Db } from '../db';
import type { Mode } from '../platform/tables';

// What a gateway notification may name, read to decide whether it names anything of ours (src/gateway/subject.ts).
// Each is one index probe: orders' primary key, orders_payment_key_idx (migration 090), checkout_sessions'
// unique pending_order_id. Hundreds of these a second in a flood of forged notifications must stay cheap.

/** A Toss order of the store and mode by its id (the orderId Toss was given), with the payment key we recorded. */
export function findTossOrderById(db: Db, storeId: string, mode: Mode, id: string): Promise<{ id: string; provider_payment_key: string | null } | undefined> {
  return db
    .selectFrom('orders')
    .select(['id', 'provider_payment_key'])
    .where('id', '=', id)
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('provider', '=', 'toss')
    .executeTakeFirst();
}

/** A Toss order of the store and mode by the payment key Toss gave it. */
export function findTossOrderByPaymentKey(db: Db, storeId: string, mode: Mode, paymentKey: string): Promise<{ id: string; provider_payment_key: string | null } | undefined> {
  return db
    .selectFrom('orders')
    .select(['id', 'provider_payment_key'])
    .where('provider_payment_key', '=', paymentKey)
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('provider', '=', 'toss')
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
