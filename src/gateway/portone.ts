/**
 * PortOne's webhooks (issue 42): `POST /gateway/portone/webhook/{storeId}/{mode}`, the URL a store registers in PortOne's
 * console (결제 연동 › 연동 정보 › 웹훅, version 2024-04-25) for that mode. Each delivery is verified with the mode's
 * webhook secret over the raw body (payments/ reads it into a GatewayNotice); a forged or unsigned one is refused (400)
 * and writes nothing. A verified one is still only a hint: it names a payment, which a job reads back from PortOne's API
 * with the store's credentials — a 가상계좌 waiting for its deposit through the deposit job (paid only when PortOne says
 * PAID for the order's amount), any other order or pending checkout through the same sync as Toss's notices.
 * Each message is taken once: PortOne retries one with the same `webhook-id` (Standard Webhooks), and a retry of an id
 * this store and mode already took queues nothing (migration 130); messages with other ids about the same payment
 * coalesce into its one pending read-back, as Toss's notices do.
 */
import type { AppDeps } from '../deps';
import { findStoreId } from '../stores/repo';
import { getModeSettings } from '../stores/service';
import { portoneWebhookSecretOf, readPortOneNotice } from '../payments';
import { queueDepositCheck } from '../checkout/virtual-account';
import { findPaymentSubject } from './subject';
import { takeWebhookDelivery } from './repo';
import { queuePaymentSync, type WebhookReceipt } from './webhook';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/** How long a taken webhook-id is remembered (migration 130): a week, well past the retries of one message. */
export const WEBHOOK_DELIVERY_RETENTION_MS = 7 * 86_400_000;

export async function receivePortOneWebhook(deps: Deps, storeId: string, mode: string, rawBody: string, headers: Record<string, string | string[] | undefined>): Promise<WebhookReceipt> {
  if (mode !== 'live' && mode !== 'test') return { status: 'not_found' };
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(storeId) || !(await findStoreId(deps.db, storeId))) return { status: 'not_found' };
  const settings = (await getModeSettings(deps.db, storeId, mode)).raw;
  const secret = portoneWebhookSecretOf(deps, settings);
  // No webhook secret saved: nothing can be verified, so nothing is believed.
  if (!secret) return { status: 'not_found' };
  const notice = await readPortOneNotice(secret, rawBody, headers, settings.portone_store_id);
  if (notice.kind === 'invalid') {
    deps.log.warn({ storeId, mode }, 'PortOne webhook refused: signature does not verify');
    return { status: 'invalid' };
  }
  if (notice.kind !== 'payment' || !notice.orderId) return { status: 'ignored' };
  const ours = await findPaymentSubject(deps.db, storeId, mode, { paymentKey: notice.paymentKey, orderId: notice.orderId });
  if (!ours) return { status: 'ignored' };
  const deliveryId = notice.deliveryId && notice.deliveryId.length <= 200 ? notice.deliveryId : null;
  // A retry of a message already taken (the same webhook-id) queues nothing: its read-back is queued or done. The id is
  // recorded in the transaction that queues the read-back, so a crash between the two loses neither.
  const taken = await deps.db.transaction().execute(async (trx) => {
    if (deliveryId && !(await takeWebhookDelivery(trx, storeId, mode, deliveryId, deps.clock.now()))) return false;
    const tx = { ...deps, db: trx };
    if (!(await queueDepositCheck(tx, storeId, mode, ours.orderId))) await queuePaymentSync(tx, storeId, mode, notice.eventType, ours);
    return true;
  });
  if (!taken) deps.log.info({ storeId, mode, deliveryId }, 'PortOne webhook redelivered; already taken');
  return { status: 'accepted' };
}
