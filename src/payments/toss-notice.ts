/**
 * What a Toss webhook body claims, read into the provider-neutral GatewayNotice (provider.ts). Nothing here is
 * believed: the notice only says which payment (or billing key) to read back from Toss's API with the store's keys.
 */
import type { GatewayNotice } from './provider';

/**
 * The event types Toss documents for payments, cancels and billing keys
 * (https://docs.tosspayments.com/reference/using-api/webhook-events):
 * - PAYMENT_STATUS_CHANGED: `data` is the Payment object (DONE, CANCELED, PARTIAL_CANCELED, ABORTED, EXPIRED);
 * - CANCEL_STATUS_CHANGED: `data` is a Cancel object (foreign easy-pay cancels; it names the payment only when Toss
 *   includes `paymentKey`/`orderId`, which the documented Cancel object does not promise);
 * - BILLING_DELETED: `data` is `{ billingKey, reason }` (not confirmable: Toss has no billing-key lookup).
 * DEPOSIT_CALLBACK (가상계좌 deposits) is a `deposit` notice; anything else (payouts, BrandPay) is acknowledged and ignored.
 */
export const TOSS_WEBHOOK_EVENTS = ['PAYMENT_STATUS_CHANGED', 'CANCEL_STATUS_CHANGED', 'BILLING_DELETED'] as const;

// Keys and ids Toss sends are short ASCII; anything else cannot name a payment or billing key of ours.
const KEY = /^[A-Za-z0-9_\-=.:]{1,200}$/;
const str = (v: unknown): string | null => (typeof v === 'string' && KEY.test(v) ? v : null);

/** The orderId and secret of a DEPOSIT_CALLBACK body, or null when the body is not one. */
function depositCallbackOf(b: Record<string, unknown>): { orderId: string; secret: string } | null {
  const d = b.eventType === 'DEPOSIT_CALLBACK' && b.data && typeof b.data === 'object' ? (b.data as Record<string, unknown>) : b.eventType === undefined ? b : null;
  if (!d) return null;
  const orderId = str(d.orderId);
  const secret = typeof d.secret === 'string' && d.secret.length > 0 && d.secret.length <= 100 ? d.secret : null;
  return orderId && secret ? { orderId, secret } : null;
}

/**
 * A Toss webhook body as a notice. DEPOSIT_CALLBACK (가상계좌 입금): `{ createdAt, secret, orderId, status,
 * transactionKey }` without an eventType (https://docs.tosspayments.com/reference/using-api/webhook-events#deposit_callback);
 * also taken wrapped as `{ eventType: 'DEPOSIT_CALLBACK', data: {...} }`.
 */
export function readTossNotice(body: unknown): GatewayNotice {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  const deposit = b ? depositCallbackOf(b) : null;
  if (deposit) return { kind: 'deposit', ...deposit };
  const eventType = b && typeof b.eventType === 'string' ? b.eventType : null;
  if (!eventType) return { kind: 'invalid' };
  if (!(TOSS_WEBHOOK_EVENTS as readonly string[]).includes(eventType)) return { kind: 'ignored' };
  const data = b!.data && typeof b!.data === 'object' ? (b!.data as Record<string, unknown>) : {};
  if (eventType === 'BILLING_DELETED') return { kind: 'billing_key_deleted', eventType, billingKey: str(data.billingKey) };
  return { kind: 'payment', eventType, paymentKey: str(data.paymentKey), orderId: str(data.orderId) };
}
