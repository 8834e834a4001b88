import type { AppDeps } from '../deps';
import { getModeSettings } from '../stores/service';
import { providerOfPayment } from '../payments';
import type { ConfirmResult, Outcome } from '../payments/provider';
import { registerVirtualAccountJobs } from './virtual-account';
import { registerSellerCashReceiptJobs } from './seller-cash-receipt';
import { chargeFirstPayment, confirmIdempotencyKey, isBillingCharge } from './complete';
import { settle, sweepStaleAttempts, RECONCILE_JOB } from './settle';
import { findProductName, findSession } from './complete-repo';
import { decryptSecret } from '../platform/crypto';
import { subscriptionIdForSession } from '../subscriptions/model';
import { MESSAGES } from '../platform/messages';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

// Lookup failures that mean "the gateway has no such payment", i.e. nothing was charged. Any other failure (a bad
// key, a gateway outage) says nothing about the payment, so the job retries instead of releasing.
const NOT_FOUND_CODES = new Set(['NOT_FOUND_PAYMENT', 'NOT_FOUND', 'NOT_FOUND_PAYMENT_SESSION']);

/**
 * Settles a payment whose confirm answer was lost (`payment.state = 'unknown'`). Runs as the `checkout.reconcile`
 * job, RECONCILE_DELAY_MS after the loss, then on the job retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h):
 * - the gateway shows it paid or still awaiting confirmation → confirm again (idempotent: same payment key and
 *   orderId; Toss answers ALREADY_PROCESSED_PAYMENT, which the adapter turns into a lookup) and record the result;
 * - the gateway shows it failed/canceled, or does not know it → release the stock and coupon; the buyer may pay again;
 * - anything else → throw, so the job runs again later. When the retries run out the job stays `failed` in the
 *   jobs table and the session keeps its reservation, for the seller to resolve with the gateway's dashboard.
 */
export async function reconcileSession(deps: Deps, sessionId: string): Promise<'paid' | 'released' | 'nothing'> {
  const s = await findSession(deps.db, sessionId);
  if (!s || s.status === 'completed' || s.payment?.state !== 'unknown') return 'nothing';
  const p = s.payment;
  // The rail the attempt was made on, with the credential set (a subscription's may be Toss's 자동결제 pair) it was made
  // under: its payment is only known there, even after the seller switched the mode to another provider.
  const provider = await providerOfPayment(deps, { mode: s.mode, provider: p.provider, toss_key_pair: p.tossKeyPair ?? 'payments' }, async () => (await getModeSettings(deps.db, s.store_id, s.mode)).raw);
  if (!provider) throw new Error(`session ${s.id}: payment provider ${p.provider} is no longer configured`);

  if (isBillingCharge(p.paymentKey) && p.billing) {
    // A first payment charged to a billing key: ask again with the same idempotency key and orderId (the gateway
    // replays its first answer, or finds the order already charged), never a new charge.
    const product = await findProductName(deps.db, s.product_id);
    const again = await chargeFirstPayment(provider, {
      billingKey: decryptSecret(deps.config.masterKey, p.billing.keySealed).toString('utf8'),
      customerKey: subscriptionIdForSession(s.id),
      amount: p.amount,
      orderId: s.pending_order_id,
      orderName: product.name,
      marker: p.paymentKey,
    });
    if (again.status === 'unknown') throw new Error(`session ${s.id}: billing charge still unknown: ${again.message}`);
    const r = await settle(deps, s.id, p.paymentKey, again);
    deps.log.info({ sessionId: s.id, result: r.kind }, 'checkout billing payment reconciled');
    return r.kind === 'paid' ? 'paid' : r.kind === 'refused' ? 'released' : 'nothing';
  }

  const look = await provider.lookupPayment(p.paymentKey);
  let outcome: Outcome<ConfirmResult>;
  if (look.status === 'unknown') throw new Error(`session ${s.id}: lookup unknown: ${look.message}`);
  if (look.status === 'failed') {
    if (!NOT_FOUND_CODES.has(look.code)) throw new Error(`session ${s.id}: lookup failed: ${look.code}`);
    outcome = { status: 'failed', code: look.code, message: look.message };
  } else if (look.value.status === 'failed' || look.value.status === 'canceled') {
    outcome = { status: 'failed', code: 'PAYMENT_NOT_APPROVED', message: MESSAGES.checkout.paymentNotApproved };
  } else if (look.value.status === 'paid' || look.value.status === 'partially_canceled' || look.value.status === 'pending') {
    outcome = await provider.confirmPayment({
      paymentKey: p.paymentKey,
      orderId: s.pending_order_id,
      amount: p.amount,
      idempotencyKey: confirmIdempotencyKey(p.paymentKey),
      installmentMonths: s.attempt?.installmentMonths,
      // 현금영수증: the window was told 미발행; the receipt asked is issued on its own afterwards (src/checkout/cash-receipt.ts).
      cashReceipt: null,
      // PayPal: the same USD amount the first confirm asked for (recorded with the attempt before the call).
      presentment: p.presentment ?? null,
    });
    if (outcome.status === 'unknown') throw new Error(`session ${s.id}: confirm still unknown: ${outcome.message}`);
    // Money was taken but the gateway refuses to confirm it for this order: never release silently, leave it flagged.
    if (outcome.status === 'failed' && look.value.status !== 'pending') throw new Error(`session ${s.id}: paid at the gateway but confirm failed: ${outcome.code}`);
  } else {
    throw new Error(`session ${s.id}: gateway status ${look.value.status}`);
  }
  const r = await settle(deps, s.id, p.paymentKey, outcome);
  deps.log.info({ sessionId: s.id, result: r.kind }, 'checkout payment reconciled');
  return r.kind === 'paid' ? 'paid' : r.kind === 'refused' ? 'released' : 'nothing';
}

export function registerReconcileJob(deps: Deps & Pick<AppDeps, 'worker'>): void {
  deps.worker.registerJob(RECONCILE_JOB, async (payload) => {
    await reconcileSession(deps, String(payload.sessionId));
  });
  deps.worker.addTask({ name: 'checkout.stale-attempts', intervalMs: 60_000, run: (now) => sweepStaleAttempts(deps, now) });
  registerVirtualAccountJobs(deps);
  registerSellerCashReceiptJobs(deps);
}
