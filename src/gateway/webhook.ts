import type { AppDeps } from '../deps';
import { enqueueJob } from '../jobs/queue';
import { findStoreId } from '../stores/repo';
import { markTossWebhookSeen } from '../stores/toss-state-repo';
import { markBillingKeyDeleted } from '../subscriptions/card-gone';
import { syncTossPayment, type SyncTossResult } from './sync';
import { receiveDepositCallback } from '../checkout/virtual-account';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export const TOSS_WEBHOOK_JOB = 'gateway.toss-webhook';

/**
 * The event types Toss documents for payments, cancels and billing keys
 * (https://docs.tosspayments.com/reference/using-api/webhook-events):
 * - PAYMENT_STATUS_CHANGED: `data` is the Payment object (DONE, CANCELED, PARTIAL_CANCELED, ABORTED, EXPIRED);
 * - CANCEL_STATUS_CHANGED: `data` is a Cancel object (foreign easy-pay cancels; it names the payment only when Toss
 *   includes `paymentKey`/`orderId`, which the documented Cancel object does not promise);
 * - BILLING_DELETED: `data` is `{ billingKey, reason }`.
 * DEPOSIT_CALLBACK (가상계좌 deposits) goes to src/checkout/virtual-account.ts; anything else (payouts, BrandPay) is
 * acknowledged and ignored.
 */
export const TOSS_WEBHOOK_EVENTS = ['PAYMENT_STATUS_CHANGED', 'CANCEL_STATUS_CHANGED', 'BILLING_DELETED'] as const;
type TossEvent = (typeof TOSS_WEBHOOK_EVENTS)[number];

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

export type WebhookReceipt = { status: 'accepted' | 'ignored' } | { status: 'not_found' } | { status: 'invalid' };

/**
 * Takes a webhook from Toss for a store and mode. Nothing in the body is believed: it only says which payment (or
 * billing key) to look at, and a job does the looking (Toss's API with the store's keys), so Toss gets its 200 at once
 * and a slow Toss lookup never holds the request. One job per webhook (no de-duplication): each reads Toss afresh, so
 * a second notification that arrives while the first is being handled is never lost, and repeats change nothing.
 */
export async function receiveTossWebhook(deps: Deps, storeId: string, mode: string, body: unknown): Promise<WebhookReceipt> {
  if (mode !== 'live' && mode !== 'test') return { status: 'not_found' };
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(storeId) || !(await findStoreId(deps.db, storeId))) return { status: 'not_found' };
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  // DEPOSIT_CALLBACK (가상계좌 입금): `{ createdAt, secret, orderId, status, transactionKey }` without an eventType
  // (https://docs.tosspayments.com/reference/using-api/webhook-events#deposit_callback); also taken wrapped as
  // `{ eventType: 'DEPOSIT_CALLBACK', data: {...} }`. The secret is checked here and never leaves this call.
  const deposit = b ? depositCallbackOf(b) : null;
  if (deposit) {
    const r = await receiveDepositCallback(deps, storeId, mode, deposit);
    return { status: r === 'accepted' ? 'accepted' : 'ignored' };
  }
  const eventType = b && typeof b.eventType === 'string' ? b.eventType : null;
  if (!eventType) return { status: 'invalid' };
  if (!(TOSS_WEBHOOK_EVENTS as readonly string[]).includes(eventType)) return { status: 'ignored' };
  const data = b!.data && typeof b!.data === 'object' ? (b!.data as Record<string, unknown>) : {};
  const payload = { storeId, mode, eventType, paymentKey: str(data.paymentKey), orderId: str(data.orderId), billingKey: str(data.billingKey) };
  if (!payload.paymentKey && !payload.orderId && !payload.billingKey) {
    // A Cancel object without the payment it belongs to: nothing to look up; the daily reconciliation covers it.
    deps.log.info({ storeId, mode, eventType }, 'Toss webhook names no payment; ignored');
    return { status: 'ignored' };
  }
  await enqueueJob(deps.db, deps.clock, { name: TOSS_WEBHOOK_JOB, payload });
  return { status: 'accepted' };
}

/** What Toss's API proved about a webhook: anything but these means the body named nothing Toss knows under the store's keys. */
const CONFIRMED: SyncTossResult['kind'][] = ['unknown_here', 'in_sync', 'refunds_recorded', 'session_settled', 'differs'];

/** The job: apply what Toss says; a webhook Toss's API confirmed counts as an arrival for the go-live checklist. */
export async function handleTossWebhook(deps: Deps, payload: Record<string, unknown>): Promise<void> {
  const storeId = String(payload.storeId);
  const mode = payload.mode === 'live' ? 'live' : 'test';
  const eventType = String(payload.eventType) as TossEvent;
  let confirmed = false;
  if (eventType === 'BILLING_DELETED') {
    const billingKey = typeof payload.billingKey === 'string' ? payload.billingKey : null;
    const subscriptionId = billingKey ? await markBillingKeyDeleted(deps, { storeId, mode, billingKey }) : null;
    confirmed = subscriptionId !== null;
    deps.log.info({ storeId, mode, eventType, subscriptionId }, 'Toss webhook handled');
  } else {
    const paymentKey = typeof payload.paymentKey === 'string' ? payload.paymentKey : null;
    const orderId = typeof payload.orderId === 'string' ? payload.orderId : null;
    const result = await syncTossPayment(deps, { storeId, mode, paymentKey, orderId });
    confirmed = CONFIRMED.includes(result.kind);
    const level = result.kind === 'differs' || result.kind === 'mismatch' ? 'warn' : 'info';
    deps.log[level]({ storeId, mode, eventType, result }, 'Toss webhook handled');
  }
  if (confirmed) await markTossWebhookSeen(deps.db, storeId, mode, deps.clock.now());
}

export function registerTossWebhookJob(deps: Deps & Pick<AppDeps, 'worker'>): void {
  deps.worker.registerJob(TOSS_WEBHOOK_JOB, (payload) => handleTossWebhook(deps, payload));
}
