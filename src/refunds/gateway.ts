import type { AppDeps } from '../deps';
import type { PaymentCancel } from '../payments/provider';
import { newId } from '../platform/ids';
import type { RefundRow } from './model';
import { countRefund, recordSucceeded } from './service';
import * as repo from './repo';
import { wonShareOfCents } from '../payments/foreign';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export type GatewayCancelsResult =
  /** Refunds recorded now, one per gateway cancel we did not know (source `gateway`). */
  | { kind: 'recorded'; refunds: RefundRow[] }
  /** The gateway has canceled exactly what our refunds say: nothing to do (a repeated or late webhook lands here). */
  | { kind: 'in_sync' }
  /** One of our own refunds of the order is with the gateway right now; its outcome decides the totals. Try again later. */
  | { kind: 'refund_in_flight' }
  /** The totals differ in a way no set of unknown cancels explains (e.g. we recorded more than the gateway canceled). */
  | { kind: 'differs'; gatewayCanceled: number; ourRefunded: number };

/**
 * Records the cancels the gateway made on its own (Toss's merchant admin, 상점관리자) as refunds of the order, through
 * the same recording as any refund (`recordSucceeded`: the order's `refundedAmount` and status, licences revoked on a
 * full refund unless kept, `order.refunded` in the outbox), all in one transaction under the order's lock.
 *
 * Which cancels are new: the gateway's canceled total (its finished cancels) minus our refunded total is what we miss.
 * Our own refunds do not carry the gateway's transaction key, so the missing amount is taken from the cancels whose key
 * is not recorded yet, newest first (a cancel made at the gateway is newer than our refunds it follows); each becomes a
 * refund keyed by its transaction key (unique per store and mode), so the same cancel is never recorded twice, however
 * often or late the webhook comes. When those cancels cannot make up exactly the missing amount nothing is written and
 * the difference is reported (the daily reconciliation lists it for the seller).
 */
export async function recordGatewayCancels(deps: Deps, orderId: string, cancels: PaymentCancel[]): Promise<GatewayCancelsResult> {
  const result = await recordInTransaction(deps, orderId, cancels);
  if (result.kind === 'recorded') for (const r of result.refunds) countRefund(r);
  return result;
}

function recordInTransaction(deps: Deps, orderId: string, cancels: PaymentCancel[]): Promise<GatewayCancelsResult> {
  return deps.db.transaction().execute(async (trx): Promise<GatewayCancelsResult> => {
    let order = await repo.lockOrderById(trx, orderId);
    if (!order) throw new Error(`order ${orderId} not found`);
    const { refundInFlight } = await repo.refundBlockers(trx, order.id, null);
    if (refundInFlight) return { kind: 'refund_in_flight' };
    const done = cancels.filter((c) => c.status === 'done');
    const gatewayCanceled = done.reduce((a, c) => a + c.amount, 0);
    // A PayPal order's cancels are in US cents (issue 41): compared with the cents our refunds gave back.
    const usd = order.presentment_currency !== null && order.presentment_amount !== null;
    const ours = usd ? await repo.presentmentRefunded(trx, order.id) : order.refunded_amount ?? 0;
    const missing = gatewayCanceled - ours;
    if (missing === 0) return { kind: 'in_sync' };
    if (missing < 0) return { kind: 'differs', gatewayCanceled, ourRefunded: ours };
    const known = await repo.gatewayTransactionKeys(trx, order.id);
    const picked: PaymentCancel[] = [];
    let sum = 0;
    for (const c of [...done].reverse()) {
      if (!c.transactionKey || known.has(c.transactionKey) || sum + c.amount > missing) continue;
      picked.unshift(c);
      sum += c.amount;
      if (sum === missing) break;
    }
    if (sum !== missing) return { kind: 'differs', gatewayCanceled, ourRefunded: ours };
    const refunds: RefundRow[] = [];
    let centsSoFar = ours;
    for (const c of picked) {
      const now = deps.clock.now();
      const id = newId('rf', deps.clock);
      // PayPal: the won share of a cancel made in dollars, by the same rule as our own refunds, the other way round
      // (src/payments/foreign.ts): the cancel that completes the dollars completes the won, else the same fraction.
      const won = usd ? wonShareOfCents({ krw: order.amount, cents: order.presentment_amount! }, { krw: order.refunded_amount ?? 0, cents: centsSoFar }, c.amount) : c.amount;
      centsSoFar += usd ? c.amount : 0;
      const row = await repo.insertRefund(trx, {
        id,
        order_id: order.id,
        store_id: order.store_id,
        mode: order.mode,
        amount: won,
        presentment_amount: usd ? c.amount : null,
        reason: c.reason ?? null,
        status: 'pending',
        // Never sent anywhere (the gateway already did it); kept unique like every refund's key.
        provider_idempotency_key: `gateway-${id}`,
        error: null,
        refund_request_id: null,
        keep_licenses: false,
        source: 'gateway',
        request_key: null,
        gateway_transaction_key: c.transactionKey,
        created_at: now,
        refunded_at: null,
        updated_at: now,
      });
      // Dated when Toss canceled (what the daily reconciliation compares by KST day), not when we learned of it.
      const { row: settled } = await recordSucceeded(trx, deps, order, row, c.canceledAt ?? now);
      refunds.push(settled);
      order = (await repo.lockOrderById(trx, order.id))!;
    }
    deps.log.info({ orderId: order.id, refunds: refunds.map((r) => r.id) }, 'gateway cancels recorded as refunds');
    return { kind: 'recorded', refunds };
  });
}
