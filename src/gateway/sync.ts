import type { AppDeps } from '../deps';
import { isBillingCharge } from '../checkout/complete';
import { recoverStaleAttempt } from '../checkout/settle';
import { findSessionByPendingOrderId } from '../checkout/complete-repo';
import { reconcileSession } from '../checkout/reconcile';
import { billingSetProviderFor, providerFor, providerTraits, type PaymentProviderName } from '../payments';
import type { PaymentLookup, Outcome } from '../payments/provider';
import type { Mode } from '../platform/tables';
import { recordGatewayCancels } from '../refunds/gateway';
import { findOrderInStore } from '../refunds/repo';
import { getModeSettings } from '../stores/service';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export interface SyncTossInput {
  storeId: string;
  mode: Mode;
  /** What the caller was told (a webhook body, a transactions page). Only used to ask Toss; never believed. */
  paymentKey?: string | null;
  orderId?: string | null;
  /** The gateway to ask (a reconciliation's ledger of a rail the mode has left); the mode's current one when absent. */
  provider?: PaymentProviderName;
}

export type SyncTossResult =
  /** The store and mode do not take payments through Toss (no keys, or the simulator): nothing can be asked. */
  | { kind: 'not_toss' }
  /** Toss does not know this payment under the store's keys (a forged or misdirected notification). */
  | { kind: 'not_found' }
  /** Toss knows a payment, but not the one named (its paymentKey or orderId differ from what the caller said). */
  | { kind: 'mismatch' }
  /** Toss confirms the payment, but it belongs to no order or checkout session of this store and mode. */
  | { kind: 'unknown_here'; payment: PaymentLookup }
  /** Our records already say what Toss says. */
  | { kind: 'in_sync'; orderId: string | null }
  /** Cancels made at Toss were recorded as refunds (source `gateway`). */
  | { kind: 'refunds_recorded'; orderId: string; refundIds: string[] }
  /** A checkout session we still showed as pending was settled from Toss: paid, or released when Toss never approved it. */
  | { kind: 'session_settled'; sessionId: string; result: 'paid' | 'released' | 'nothing' }
  /** Toss and we disagree in a way this function does not change (left for the reconciliation report). */
  | { kind: 'differs'; orderId: string | null; detail: string };

/** Thrown when Toss's answer is not known yet (timeout, outage) or one of our own operations on the payment is in flight: retry later. */
export class SyncRetryLater extends Error {}

// Toss's lookup failures that mean "no such payment under these keys".
const NOT_FOUND_CODES = new Set(['NOT_FOUND_PAYMENT', 'NOT_FOUND', 'NOT_FOUND_PAYMENT_SESSION', 'FORBIDDEN_REQUEST']);

/**
 * Applies what Toss says about one payment of a store and mode, trusting nothing but Toss's own API read with the
 * store's keys (by payment key, else by order id):
 * - an order of ours → cancels made at Toss become refunds (`recordGatewayCancels`: same events, licences and totals
 *   as any refund; each keyed by Toss's cancel transactionKey, so nothing is recorded twice);
 * - a checkout session still pending (its confirm answer lost, or its process gone) → settled through the checkout's
 *   own lost-confirm reconciliation (`reconcileSession`: paid when Toss approved it, released when it never did);
 * - anything else changes nothing.
 * Safe to run any number of times, in any order, for the same payment: each run reads Toss afresh and writes only the
 * difference. Called by the Toss webhook job, and by the reconciliation for what a Toss lookup proves.
 */
export async function syncTossPayment(deps: Deps, input: SyncTossInput): Promise<SyncTossResult> {
  const paymentKey = input.paymentKey || null;
  const orderId = input.orderId || null;
  if (!paymentKey && !orderId) return { kind: 'not_found' };
  const settings = await getModeSettings(deps.db, input.storeId, input.mode);
  const raw = input.provider ? { ...settings.raw, payment_provider: input.provider } : settings.raw;
  const provider = providerFor(deps, raw);
  // Only a provider that notifies has notices to sync (the simulator's test payments are settled in process).
  if (!provider || !providerTraits(provider.name).notifies) return { kind: 'not_toss' };
  // A mode may hold a second pair for its 자동결제 MID (issue 32): a payment unknown under the first is asked there too.
  const billing = billingSetProviderFor(deps, raw);

  let look: Outcome<PaymentLookup> = { status: 'failed', code: 'NOT_FOUND_PAYMENT', message: '' };
  for (const p of billing ? [provider, billing] : [provider]) {
    try {
      look = paymentKey ? await p.lookupPayment(paymentKey) : await p.lookupPaymentByOrderId(orderId!);
    } catch (err) {
      throw new SyncRetryLater(`Toss lookup threw: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (look.status === 'unknown') throw new SyncRetryLater(`Toss lookup unknown: ${look.message}`);
    if (look.status === 'succeeded') break;
    if (!NOT_FOUND_CODES.has(look.code)) throw new SyncRetryLater(`Toss lookup failed: ${look.code}`);
  }
  if (look.status === 'failed') return { kind: 'not_found' };
  const payment = look.value;
  if ((paymentKey && payment.paymentKey !== paymentKey) || (orderId && payment.orderId !== orderId) || !payment.orderId) return { kind: 'mismatch' };

  const order = await findOrderInStore(deps.db, input.storeId, input.mode, payment.orderId);
  if (order) {
    if (order.provider !== provider.name || order.provider_payment_key !== payment.paymentKey) {
      return { kind: 'differs', orderId: order.id, detail: 'the order was paid with another payment key' };
    }
    if (order.amount !== payment.totalAmount) {
      return { kind: 'differs', orderId: order.id, detail: `Toss total ${payment.totalAmount} differs from the order amount ${order.amount}` };
    }
    const r = await recordGatewayCancels(deps, order.id, payment.cancels);
    if (r.kind === 'refund_in_flight') throw new SyncRetryLater(`order ${order.id}: a refund is in flight`);
    if (r.kind === 'recorded') return { kind: 'refunds_recorded', orderId: order.id, refundIds: r.refunds.map((x) => x.id) };
    if (r.kind === 'differs') return { kind: 'differs', orderId: order.id, detail: `Toss canceled ${r.gatewayCanceled}, our refunds total ${r.ourRefunded}` };
    return { kind: 'in_sync', orderId: order.id };
  }

  const session = await findSessionByPendingOrderId(deps.db, input.storeId, input.mode, payment.orderId);
  const p = session?.payment;
  if (!session || session.status === 'completed' || !p || (p.paymentKey !== payment.paymentKey && !isBillingCharge(p.paymentKey))) {
    // Approved at Toss with no attempt of ours in flight: nothing here can be completed from it safely.
    return { kind: 'unknown_here', payment };
  }
  if (p.state === 'confirming') {
    if (session.attempt_locked_until && session.attempt_locked_until > deps.clock.now()) {
      throw new SyncRetryLater(`session ${session.id}: the confirm is still in flight`);
    }
    await recoverStaleAttempt(deps, session.id);
  }
  const result = await reconcileSession(deps, session.id);
  return { kind: 'session_settled', sessionId: session.id, result };
}
