import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import { providersWith } from '../payments/registry';
import { findGatewayOrderById, findGatewayOrderByPaymentKey, sessionReservedOrderId } from './repo';

/**
 * The payment of ours a Toss notification names, and the keys its lookup will ask Toss with: OUR record's, never the
 * body's. Notices about one payment coalesce into one pending lookup (the subject is the job's dedupe key), so the
 * lookup must not depend on which notice came first: a forged notice that names our order with a made-up payment key
 * would otherwise make the one shared lookup ask Toss the wrong question, and the real notice behind it would be lost.
 */
export interface PaymentSubject {
  /** `oid:<orderId>`: one subject per payment (our order id is the orderId Toss was given, order or checkout session). */
  subject: string;
  /** The payment key we recorded on the order; null for a checkout session (Toss is asked by order id). */
  paymentKey: string | null;
  orderId: string;
}

/**
 * Resolves what a notification claims to one of this store and mode's Toss payments: an order by its id or its payment
 * key, or a checkout session that reserved the order id (a payment in flight, e.g. its confirm answer lost). Null when
 * it names nothing of ours: a forged notice, or another store's, which then costs nothing (no job row, no Toss call).
 * A payment we have no record of yet cannot be acted on anyway; the daily reconciliation reads Toss's list for those.
 */
export async function findPaymentSubject(db: Db, storeId: string, mode: Mode, claimed: { paymentKey: string | null; orderId: string | null }): Promise<PaymentSubject | null> {
  // Orders of the providers that notify (Toss): a simulated order is never the subject of a gateway's notice.
  const providers = providersWith('notifies');
  const order =
    (claimed.orderId ? await findGatewayOrderById(db, storeId, mode, providers, claimed.orderId) : undefined) ??
    (claimed.paymentKey ? await findGatewayOrderByPaymentKey(db, storeId, mode, providers, claimed.paymentKey) : undefined);
  if (order) return { subject: `oid:${order.id}`, paymentKey: order.provider_payment_key, orderId: order.id };
  if (claimed.orderId && (await sessionReservedOrderId(db, storeId, mode, claimed.orderId))) {
    return { subject: `oid:${claimed.orderId}`, paymentKey: null, orderId: claimed.orderId };
  }
  return null;
}
