import type { AppDeps } from '../deps';
import { enqueueJob, releaseDedupeKey } from '../jobs/queue';
import type { JobHandler } from '../platform/background';
import { decryptSecret, encryptSecret, sha256Hex } from '../platform/crypto';
import { findStoreId } from '../stores/repo';
import { markTossWebhookSeen, spendTossLookup } from '../stores/toss-state-repo';
import { markBillingKeyReportedDeleted } from '../subscriptions/renewal/card-gone';
import { syncTossPayment, type SyncTossResult } from './sync';
import { anyBillingKeyHeld } from './repo';
import { findPaymentSubject } from './subject';
import { receiveDepositCallback } from '../checkout/virtual-account';
import { readTossNotice } from '../payments';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export const TOSS_WEBHOOK_JOB = 'gateway.toss-webhook';

/** The events a queued job may carry (Toss's names; see payments/toss-notice.ts). */
type TossEvent = 'PAYMENT_STATUS_CHANGED' | 'CANCEL_STATUS_CHANGED' | 'BILLING_DELETED';

export type WebhookReceipt = { status: 'accepted' | 'ignored' } | { status: 'not_found' } | { status: 'invalid' };

/**
 * Toss lookups (or, for BILLING_DELETED, billing-key comparisons) one store and mode's webhooks may cost per minute.
 * Over it, a webhook's job waits for the next minute: the notification is kept, never refused. Only notices naming a
 * payment of ours get a job at all (one per payment), so a flood reaches this budget only by naming many real orders;
 * it then bounds what that costs at Toss, and other stores' lookups are not held behind it (each store and mode is its
 * own lane of the queue).
 */
export const TOSS_LOOKUPS_PER_MINUTE = 600;
const WINDOW_MS = 60_000;

/** The queue lane of a store and mode's notification lookups: lanes take turns when jobs are claimed. */
const laneOf = (storeId: string, mode: string) => `toss-webhook:${storeId}:${mode}`;
const dedupeKeyOf = (storeId: string, mode: string, subject: string) => `${TOSS_WEBHOOK_JOB}:${storeId}:${mode}:${subject}`;

/**
 * Takes a webhook from Toss for a store and mode. Nothing in the body is believed: it only says which payment (or
 * billing key) to look at, and a job does the looking (Toss's API with the store's keys), so Toss gets its 200 at once
 * and a slow Toss lookup never holds the request. Toss signs none of these events, so anyone can post them, at any
 * rate; acceptance is therefore cheap and bounded:
 * - a notice naming no payment of this store and mode (no order, no checkout session with that payment key or order
 *   id: findPaymentSubject) writes nothing and calls no one, and is still answered 200 as Toss expects;
 * - notices about one payment of ours coalesce into one pending lookup (the jobs table's unique pending dedupe key:
 *   an insert that is a no-op when one is pending), which asks Toss with our record's keys, not the notice's;
 * - a job gives up its key as soon as it starts (see handleTossWebhook), so a notice arriving while the lookup runs gets
 *   one lookup of its own and is never lost; repeats change nothing (each reads Toss afresh, writes only the difference).
 */
export async function receiveTossWebhook(deps: Deps, storeId: string, mode: string, body: unknown): Promise<WebhookReceipt> {
  if (mode !== 'live' && mode !== 'test') return { status: 'not_found' };
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(storeId) || !(await findStoreId(deps.db, storeId))) return { status: 'not_found' };
  // What the body claims, read by Toss's adapter (payments/toss-notice.ts). A deposit's secret is checked here and
  // never leaves this call.
  const notice = readTossNotice(body);
  if (notice.kind === 'deposit') {
    const r = await receiveDepositCallback(deps, storeId, mode, { orderId: notice.orderId, secret: notice.secret });
    return { status: r === 'accepted' ? 'accepted' : 'ignored' };
  }
  if (notice.kind === 'invalid') return { status: 'invalid' };
  if (notice.kind === 'ignored') return { status: 'ignored' };
  const { eventType } = notice;
  const job = { name: TOSS_WEBHOOK_JOB, lane: laneOf(storeId, mode) };

  if (notice.kind === 'billing_key_deleted') {
    const billingKey = notice.billingKey;
    // Which subscription holds the key is found only by unsealing each one's (the job does it); a store and mode that
    // holds no billing key at all has nothing a BILLING_DELETED could name.
    if (!billingKey || !(await anyBillingKeyHeld(deps.db, storeId, mode))) return { status: 'ignored' };
    const subject = `bk:${sha256Hex(billingKey).slice(0, 32)}`;
    // A billing key is a card's credential: the queue keeps it sealed, never in the clear.
    const payload = { storeId, mode, eventType, billingKeySealed: encryptSecret(deps.config.masterKey, billingKey) };
    await enqueueJob(deps.db, deps.clock, { ...job, payload, dedupeKey: dedupeKeyOf(storeId, mode, subject) });
    return { status: 'accepted' };
  }
  const claimed = { paymentKey: notice.paymentKey, orderId: notice.orderId };
  if (!claimed.paymentKey && !claimed.orderId) {
    // A Cancel object without the payment it belongs to: nothing to look up; the daily reconciliation covers it.
    deps.log.info({ storeId, mode, eventType }, 'Toss webhook names no payment; ignored');
    return { status: 'ignored' };
  }
  const ours = await findPaymentSubject(deps.db, storeId, mode, claimed);
  // Not ours: no log line either (a flood would fill the log); Toss still gets its 200.
  if (!ours) return { status: 'ignored' };
  const payload = { storeId, mode, eventType, paymentKey: ours.paymentKey, orderId: ours.orderId };
  await enqueueJob(deps.db, deps.clock, { ...job, payload, dedupeKey: dedupeKeyOf(storeId, mode, ours.subject) });
  return { status: 'accepted' };
}

/**
 * Queues the read-back of one payment of ours a gateway's verified notice named (PortOne's route, issue 42): the same
 * coalesced job as Toss's notices, which reads the payment through the mode's provider and applies only what it says.
 */
export async function queuePaymentSync(deps: Deps, storeId: string, mode: 'live' | 'test', eventType: string, ours: { subject: string; paymentKey: string | null; orderId: string }): Promise<void> {
  const payload = { storeId, mode, eventType, paymentKey: ours.paymentKey, orderId: ours.orderId };
  await enqueueJob(deps.db, deps.clock, { name: TOSS_WEBHOOK_JOB, lane: laneOf(storeId, mode), payload, dedupeKey: dedupeKeyOf(storeId, mode, ours.subject) });
}

/**
 * What Toss's API proved about a webhook, counted for the go-live checklist: only a payment Toss confirms under the
 * store's keys that is one of this store's orders or checkout sessions. `unknown_here` (Toss knows the payment, we do
 * not: another store's, sharing keys) and everything unconfirmed do not count.
 */
const CONFIRMED: SyncTossResult['kind'][] = ['in_sync', 'refunds_recorded', 'session_settled', 'differs'];

/**
 * The job: spends one of the store's lookups (or waits for the next minute without counting an attempt), then applies
 * what Toss says. BILLING_DELETED only marks the card for its next charge (markBillingKeyReportedDeleted).
 */
export async function handleTossWebhook(deps: Deps, payload: Record<string, unknown>, job?: { id: string }): Promise<void> {
  const storeId = String(payload.storeId);
  const mode = payload.mode === 'live' ? 'live' : 'test';
  const eventType = String(payload.eventType) as TossEvent;
  const now = deps.clock.now();
  // (Jobs queued before migration 060 carry the key in the clear.)
  const billingKey =
    typeof payload.billingKeySealed === 'string' ? decryptSecret(deps.config.masterKey, payload.billingKeySealed).toString('utf8') : typeof payload.billingKey === 'string' ? payload.billingKey : null;
  const paymentKey = typeof payload.paymentKey === 'string' ? payload.paymentKey : null;
  const orderId = typeof payload.orderId === 'string' ? payload.orderId : null;
  // The subject it was queued under (jobs queued before migration 089 may name a payment by its key only).
  const subject = billingKey ? `bk:${sha256Hex(billingKey).slice(0, 32)}` : orderId ? `oid:${orderId}` : `pk:${paymentKey}`;
  if (job) await releaseDedupeKey(deps.db, job.id);

  const windowStart = new Date(Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS);
  if (!(await spendTossLookup(deps.db, storeId, mode, windowStart, TOSS_LOOKUPS_PER_MINUTE))) {
    // Over this minute's budget: wait for the next window (coalesced with any newer notice of the same payment).
    const runAt = new Date(windowStart.getTime() + WINDOW_MS);
    await enqueueJob(deps.db, deps.clock, { name: TOSS_WEBHOOK_JOB, lane: laneOf(storeId, mode), payload, runAt, dedupeKey: dedupeKeyOf(storeId, mode, subject) });
    deps.log.info({ storeId, mode, eventType, runAt }, 'Toss webhook lookup budget spent for this minute; deferred');
    return;
  }

  if (eventType === 'BILLING_DELETED') {
    const subscriptionId = billingKey ? await markBillingKeyReportedDeleted(deps, { storeId, mode, billingKey }) : null;
    deps.log.info({ storeId, mode, eventType, subscriptionId }, 'Toss webhook handled (a report only: the next charge settles it)');
    return;
  }
  const result = await syncTossPayment(deps, { storeId, mode, paymentKey, orderId });
  const level = result.kind === 'differs' || result.kind === 'mismatch' ? 'warn' : 'info';
  deps.log[level]({ storeId, mode, eventType, result: { kind: result.kind } }, 'Toss webhook handled');
  if (CONFIRMED.includes(result.kind)) await markTossWebhookSeen(deps.db, storeId, mode, now);
}

export function registerTossWebhookJob(deps: Deps & Pick<AppDeps, 'worker'>): void {
  const handler: JobHandler = (payload, ctx) => handleTossWebhook(deps, payload, ctx.job);
  deps.worker.registerJob(TOSS_WEBHOOK_JOB, handler);
}
