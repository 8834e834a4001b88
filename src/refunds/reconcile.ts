import type { AppDeps } from '../deps';
import { providerOfPayment } from '../payments';
import type { Outcome, RefundResult } from '../payments/provider';
import { getModeSettings } from '../stores/service';
import { askGateway, RECONCILE_JOB, settleRefund } from './service';
import * as repo from './repo';
import { MESSAGES } from '../platform/messages';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/** A refund still `pending` this long after its last write belongs to a process that died during the gateway call. */
export const STALE_PENDING_MS = 5 * 60_000;

// Lookup failures that mean "the gateway has no such payment": then no refund of it can have happened either.
const NOT_FOUND_CODES = new Set(['NOT_FOUND_PAYMENT', 'NOT_FOUND']);

export type ReconcileResult = 'succeeded' | 'failed' | 'nothing';

/**
 * Settles an `unknown` refund (or a `pending` one whose process died) by looking the payment up at the gateway.
 * Only one refund of an order can be in flight (REFUND_IN_PROGRESS), so what the gateway has canceled in total
 * tells which case we are in, against the order's `refundedAmount` (the sum of our succeeded refunds):
 * - canceled = refunded + this amount → the refund went through: `succeeded` (order updated, `order.refunded`);
 * - canceled = refunded → it did not: retry with the SAME gateway idempotency key (a gateway that did receive it
 *   replays its answer instead of refunding twice) and record what that says; a new `unknown` waits for the next run;
 * - anything else (e.g. a cancel made in the gateway's dashboard) → flagged `RECONCILE_MISMATCH` on the refund for
 *   the seller, and the job throws so it runs again on the retry schedule and ends `failed` in the jobs table.
 * Safe to run twice: a refund no longer in flight is left alone.
 */
export async function reconcileRefund(deps: Deps, refundId: string): Promise<ReconcileResult> {
  const refund = await repo.findRefund(deps.db, refundId);
  if (!refund || (refund.status !== 'unknown' && refund.status !== 'pending')) return 'nothing';
  const order = await repo.getOrder(deps.db, refund.order_id);
  const now = deps.clock.now();
  await repo.countReconcileAttempt(deps.db, refund.id);

  const provider = await providerOfPayment(deps, order, async () => (await getModeSettings(deps.db, order.store_id, order.mode)).raw);
  if (!provider || !order.provider_payment_key) throw new Error(`refund ${refund.id}: the order's payment provider ${order.provider} is not configured`);

  const look = await provider.lookupPayment(order.provider_payment_key);
  let outcome: Outcome<RefundResult>;
  if (look.status === 'unknown') throw new Error(`refund ${refund.id}: lookup unknown: ${look.message}`);
  if (look.status === 'failed') {
    if (!NOT_FOUND_CODES.has(look.code)) throw new Error(`refund ${refund.id}: lookup failed: ${look.code}`);
    outcome = { status: 'failed', code: look.code, message: look.message };
  } else {
    const canceled = look.value.totalAmount - look.value.balanceAmount;
    // A PayPal order is canceled in US cents at the gateway: compared in cents (issue 41).
    const usd = order.presentment_currency !== null && refund.presentment_amount !== null;
    const ours = usd ? await repo.presentmentRefunded(deps.db, order.id) : order.refunded_amount ?? 0;
    const thisOne = usd ? refund.presentment_amount! : refund.amount;
    if (canceled === ours + thisOne) {
      outcome = { status: 'succeeded', value: { refundedAt: now, balanceAmount: look.value.balanceAmount } };
    } else if (canceled === ours) {
      outcome = await askGateway(deps, order, refund);
      if (outcome.status === 'unknown') {
        // Stays unknown (and, if it was a stale pending, becomes unknown with its job) until the next run.
        await settleRefund(deps, refund.id, outcome);
        throw new Error(`refund ${refund.id}: retry still unknown: ${outcome.message}`);
      }
    } else {
      await repo.flagReconcileMismatch(
        deps.db,
        refund.id,
        MESSAGES.refunds.gatewayTotalMismatch(canceled, ours, thisOne),
        now,
      );
      throw new Error(`refund ${refund.id}: gateway canceled ${canceled}, we recorded ${ours} + ${thisOne}`);
    }
  }
  const settled = await settleRefund(deps, refund.id, outcome);
  deps.log.info({ refundId: refund.id, status: settled.status }, 'refund reconciled');
  return settled.status === 'succeeded' ? 'succeeded' : settled.status === 'failed' ? 'failed' : 'nothing';
}

/** Hands refunds stuck in `pending` to reconciliation (they read as unknown from now on). Safe to run twice. */
export async function sweepStalePending(deps: Deps, now: Date): Promise<number> {
  const stale = await repo.stalePending(deps.db, new Date(now.getTime() - STALE_PENDING_MS), 50);
  for (const r of stale) {
    await settleRefund(deps, r.id, { status: 'unknown', message: MESSAGES.refunds.interruptedChecking });
  }
  return stale.length;
}

export function registerRefundJobs(deps: Deps & Pick<AppDeps, 'worker'>): void {
  deps.worker.registerJob(RECONCILE_JOB, async (payload) => {
    await reconcileRefund(deps, String(payload.refundId));
  });
  deps.worker.addTask({ name: 'refunds.stale-pending', intervalMs: 60_000, run: (now) => sweepStalePending(deps, now) });
}
