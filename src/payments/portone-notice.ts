/**
 * What a PortOne webhook delivery claims, read into the provider-neutral GatewayNotice (provider.ts), like
 * toss-notice.ts does for Toss. Unlike Toss's, PortOne's deliveries are signed (Standard Webhooks): a delivery whose
 * signature does not verify with the mode's webhook secret is `invalid` and names nothing. A verified one is still only a
 * hint of which payment to read back from PortOne's API (our order id is PortOne's paymentId, so it is both the
 * notice's payment key and order id); a delivery for another PortOne store than the mode's is ignored.
 */
import type { GatewayNotice } from './provider';
import { verifyPortOneWebhook } from './portone-webhook';

export async function readPortOneNotice(
  secret: string,
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
  portoneStoreId: string | null,
): Promise<GatewayNotice> {
  const check = await verifyPortOneWebhook(secret, rawBody, headers);
  if (!check.ok) return { kind: 'invalid' };
  const hint = check.hint;
  // Billing-key events are not acted on yet (PortOne's billing keys are not wired to subscriptions): acknowledged.
  if (hint.kind !== 'payment') return { kind: 'ignored' };
  if (hint.storeId !== null && portoneStoreId !== null && hint.storeId !== portoneStoreId) return { kind: 'ignored' };
  if (!/^[A-Za-z0-9_\-=.:]{1,200}$/.test(hint.paymentId)) return { kind: 'ignored' };
  return { kind: 'payment', eventType: hint.type, paymentKey: hint.paymentId, orderId: hint.paymentId, ...(hint.webhookId ? { deliveryId: hint.webhookId } : {}) };
}
