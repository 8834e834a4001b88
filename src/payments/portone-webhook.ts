/**
 * Webhooks from PortOne (version 2024-04-25, https://developers.portone.io/opi/ko/integration/webhook/readme-v2):
 * Standard Webhooks signatures (`webhook-id`, `webhook-timestamp`, `webhook-signature`), checked with the SDK's
 * `Webhook.verify` and the mode's webhook secret (콘솔 › 결제 연동 › 연동 정보 › 웹훅, one per 테스트 / 실연동).
 *
 * A verified webhook is still only a hint: its body names a paymentId (or billingKey) and an event type, never an
 * amount we act on. `believePortOneWebhook` reads the payment back through the provider, and only that read is the
 * payment's state. Redeliveries carry the same `webhook-id` (and `timestamp`), the key to coalesce them on.
 */
import * as Webhook from '@portone/server-sdk/webhook';
import type { Outcome, PaymentLookup, PaymentProvider } from './provider';

/** The payment events we act on; others (Ready, DisputeCreated …) and unknown types are acknowledged and ignored. */
const TRANSACTION_TYPES = new Set([
  'Transaction.Paid',
  'Transaction.VirtualAccountIssued',
  'Transaction.PartialCancelled',
  'Transaction.Cancelled',
  'Transaction.Failed',
  'Transaction.PayPending',
  'Transaction.CancelPending',
]);

export type PortOneWebhookHint =
  /** A payment changed: read `paymentId` back before believing anything. */
  | { kind: 'payment'; webhookId: string; type: string; paymentId: string; storeId: string | null }
  /** A billing key changed (issued, deleted …): read it back before believing anything. */
  | { kind: 'billing_key'; webhookId: string; type: string; billingKey: string; storeId: string | null }
  /** Verified, but nothing we act on (PortOne: "알지 못하는 type … 메시지 전체를 무시해 주세요"). */
  | { kind: 'ignored'; webhookId: string; type: string };

export type PortOneWebhookCheck = { ok: true; hint: PortOneWebhookHint } | { ok: false; code: 'INVALID_SIGNATURE' | 'INVALID_PAYLOAD'; message: string };

/**
 * Verifies one delivery: `rawBody` exactly as received (the signature covers the bytes), `headers` as received.
 * Refused: missing headers, no matching signature, a timestamp outside PortOne's SDK tolerance (replays), a secret that
 * is not the mode's, a body that is not a webhook. The reason is ours to log; the sender is told only "refused".
 */
export async function verifyPortOneWebhook(secret: string, rawBody: string, headers: Record<string, string | string[] | undefined>): Promise<PortOneWebhookCheck> {
  let body: unknown;
  try {
    body = await Webhook.verify(secret, rawBody, headers);
  } catch (err) {
    if (err instanceof Webhook.WebhookVerificationError) return { ok: false, code: 'INVALID_SIGNATURE', message: `웹훅 서명 검증 실패 (${err.reason})` };
    return { ok: false, code: 'INVALID_SIGNATURE', message: '웹훅 서명 검증 실패' };
  }
  const id = headerOf(headers, 'webhook-id') ?? '';
  if (body === null || typeof body !== 'object') return { ok: false, code: 'INVALID_PAYLOAD', message: '웹훅 본문 형식 오류' };
  const b = body as { type?: unknown; data?: { paymentId?: unknown; billingKey?: unknown; storeId?: unknown } };
  if (typeof b.type !== 'string') return { ok: false, code: 'INVALID_PAYLOAD', message: '웹훅 본문 형식 오류' };
  const storeId = typeof b.data?.storeId === 'string' ? b.data.storeId : null;
  if (TRANSACTION_TYPES.has(b.type)) {
    if (typeof b.data?.paymentId !== 'string' || !b.data.paymentId) return { ok: false, code: 'INVALID_PAYLOAD', message: '웹훅에 결제 번호가 없습니다.' };
    return { ok: true, hint: { kind: 'payment', webhookId: id, type: b.type, paymentId: b.data.paymentId, storeId } };
  }
  if (b.type.startsWith('BillingKey.') && typeof b.data?.billingKey === 'string') {
    return { ok: true, hint: { kind: 'billing_key', webhookId: id, type: b.type, billingKey: b.data.billingKey, storeId } };
  }
  return { ok: true, hint: { kind: 'ignored', webhookId: id, type: b.type } };
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
  return null;
}

/**
 * What a verified payment webhook means: the payment as PortOne's API reports it now (never the webhook's word).
 * A hint for another PortOne store than the provider's is refused without a read.
 */
export async function believePortOneWebhook(provider: Pick<PaymentProvider, 'lookupPayment'>, hint: Extract<PortOneWebhookHint, { kind: 'payment' }>, storeId: string): Promise<Outcome<PaymentLookup>> {
  if (hint.storeId !== null && hint.storeId !== storeId) return { status: 'failed', code: 'STORE_MISMATCH', message: '다른 포트원 상점의 웹훅입니다.' };
  return provider.lookupPayment(hint.paymentId);
}
