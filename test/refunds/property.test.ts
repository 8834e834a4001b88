import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { simulatorFor } from '../../src/payments';
import type { Outcome, RefundResult } from '../../src/payments/provider';
import { ApiError } from '../../src/platform/errors';
import { RECONCILE_DELAY_MS, refundOrder } from '../../src/refunds/service';
import { insertPaidOrder, orderRow, product, refundRows } from './factory';

let t: TestApp;
let s: TestStore;
let p: any;
/** How the gateway answers the next refund: as it should, refuse, time out before acting, or act and lose the answer. */
let gatewayMode: 'ok' | 'failed' | 'unknown' | 'lost' = 'ok';

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  p = await product(t, s);
  const sim = simulatorFor(t.clock);
  const orig = sim.refund.bind(sim);
  sim.refund = async (input): Promise<Outcome<RefundResult>> => {
    const mode = gatewayMode;
    gatewayMode = 'ok';
    if (mode === 'failed') return { status: 'failed', code: 'SIMULATED_FAILURE', message: '실패' };
    if (mode === 'unknown') return { status: 'unknown', message: '시간 초과' };
    const r = await orig(input);
    return mode === 'lost' && r.status === 'succeeded' ? { status: 'unknown', message: '응답 유실' } : r;
  };
});
after(async () => {
  await t.close();
});

type Step = { kind: 'refund'; amount: number | undefined; gateway: typeof gatewayMode } | { kind: 'reconcile' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      amount: fc.oneof(fc.constant(undefined), fc.integer({ min: -10, max: 12_000 }), fc.integer({ min: 1, max: 3_000 })),
      gateway: fc.constantFrom('ok', 'ok', 'failed', 'unknown', 'lost') as fc.Arbitrary<typeof gatewayMode>,
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reconcile' as const }) },
);

const EXPECTED_REFUSALS = new Set(['REFUND_AMOUNT_INVALID', 'REFUND_NOT_PAID', 'REFUND_IN_PROGRESS', 'REFUND_NONE_LEFT', 'REFUND_EXCEEDS', 'PG_REFUND_FAILED', 'PG_REFUND_AMBIGUOUS']);

async function gatewayCanceled(orderId: string): Promise<number> {
  const look = await simulatorFor(t.clock).lookupPayment((await orderRow(t, orderId)).provider_payment_key!);
  assert.ok(look.status === 'succeeded');
  return look.value.totalAmount - look.value.balanceAmount;
}

async function reconcileAll() {
  t.clock.advance(RECONCILE_DELAY_MS);
  await t.deps.worker.runOnce();
}

test('property: over random partial refunds, gateway failures and unknown outcomes, refundedAmount ≤ amount and = the sum of succeeded refunds', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 10_000 }), fc.array(step, { minLength: 1, maxLength: 12 }), async (amount, steps) => {
      const orderId = await insertPaidOrder(t, s.storeId, p.id, { amount });
      for (const st of steps) {
        if (st.kind === 'reconcile') await reconcileAll();
        else {
          gatewayMode = st.gateway;
          try {
            const r = await refundOrder(t.deps, { storeId: s.storeId, mode: 'test', orderId, amount: st.amount, source: 'api' });
            assert.equal(r.refund.status, 'succeeded');
            assert.equal(r.order.refundedAmount, (await orderRow(t, orderId)).refunded_amount);
          } catch (err) {
            if (!(err instanceof ApiError) || !EXPECTED_REFUSALS.has(err.code)) throw err;
          } finally {
            gatewayMode = 'ok';
          }
        }
        t.clock.advance(1000);
        const o = await orderRow(t, orderId);
        const rows = await refundRows(t, orderId);
        const succeeded = rows.filter((r) => r.status === 'succeeded').reduce((a, r) => a + r.amount, 0);
        assert.equal(o.refunded_amount ?? 0, succeeded);
        assert.ok(succeeded <= amount);
        assert.equal(o.status, succeeded === amount ? 'refunded' : 'paid');
        assert.ok(rows.filter((r) => r.status === 'pending' || r.status === 'unknown').length <= 1, 'at most one refund in flight');
        const canceled = await gatewayCanceled(orderId);
        assert.ok(canceled >= succeeded && canceled <= amount, `gateway ${canceled} between ${succeeded} and ${amount}`);
      }
      // Once reconciliation has run, the gateway and the order agree exactly and nothing is left in flight.
      await reconcileAll();
      const rows = await refundRows(t, orderId);
      assert.equal(rows.filter((r) => r.status === 'pending' || r.status === 'unknown').length, 0);
      const succeeded = rows.filter((r) => r.status === 'succeeded').reduce((a, r) => a + r.amount, 0);
      assert.equal(await gatewayCanceled(orderId), succeeded);
      assert.equal((await orderRow(t, orderId)).refunded_amount ?? 0, succeeded);
    }),
    { numRuns: 40 },
  );
});
