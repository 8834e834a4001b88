import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createTestApp, createTestStore, post, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, subscribe } from './factory';
import { runBilling } from '../../src/subscriptions/renewal';
import { refundOrder } from '../../src/refunds/service';
import { ApiError } from '../../src/platform/errors';

let t: TestApp;
let s: TestStore;
let productId: string;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  productId = (await createSubscriptionProduct(t, s)).id;
});
after(async () => {
  await t.close();
});

const DAY = 86_400_000;

type Op =
  | { kind: 'wait'; days: number }
  | { kind: 'refund'; part: number }
  | { kind: 'cancel'; timing: 'immediate' | 'period_end' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('wait' as const), days: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('refund' as const), part: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ kind: fc.constant('cancel' as const), timing: fc.constantFrom<'immediate' | 'period_end'>('immediate', 'period_end') }),
);

/** Money facts of one subscription: every order's refunds add up, and nothing is refunded beyond what was paid. */
async function checkMoney(subscriptionId: string) {
  const orders = await t.db.selectFrom('orders').select(['id', 'amount', 'refunded_amount', 'status']).where('subscription_id', '=', subscriptionId).execute();
  for (const o of orders) {
    const refunds = await t.db.selectFrom('order_refunds').select(['amount', 'status']).where('order_id', '=', o.id).execute();
    const succeeded = refunds.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + Number(r.amount), 0);
    const possible = refunds.filter((r) => r.status !== 'failed').reduce((sum, r) => sum + Number(r.amount), 0);
    assert.ok(possible <= Number(o.amount), `order ${o.id}: refunds ${possible} > paid ${o.amount}`);
    assert.equal(Number(o.refunded_amount ?? 0), succeeded);
    assert.equal(o.status, succeeded === Number(o.amount) && succeeded > 0 ? 'refunded' : 'paid');
  }
}

test('property: no sequence of renewals, refunds and cancels refunds more than was paid, and an executed cancel refunds its preview', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 7 }), async (ops) => {
      t.clock.set(new Date(Date.UTC(2027, 2, 3, 1)));
      const sub = await subscribe(t, s, { productId });
      for (const op of ops) {
        if (op.kind === 'wait') {
          t.clock.advance(op.days * DAY);
          await runBilling(t.deps, t.clock.now());
        } else if (op.kind === 'refund') {
          const latest = await t.db
            .selectFrom('orders')
            .select(['id', 'amount', 'refunded_amount'])
            .where('subscription_id', '=', sub.subscriptionId)
            .orderBy('created_at', 'desc')
            .executeTakeFirstOrThrow();
          const left = Number(latest.amount) - Number(latest.refunded_amount ?? 0);
          const amount = Math.max(1, Math.floor((left * op.part) / 100));
          try {
            await refundOrder(t.deps, { storeId: s.storeId, mode: 'test', orderId: latest.id, amount, source: 'api' });
          } catch (err) {
            assert.ok(err instanceof ApiError && err.statusCode < 500, String(err));
          }
        } else {
          const preview = (await t.app.inject({ url: `/v1/subscriptions/${sub.subscriptionId}/cancel-preview`, headers: bearer(s.key) })).json();
          const res = await t.app.inject({ method: 'POST', url: `/v1/subscriptions/${sub.subscriptionId}/cancel`, headers: post(s.key), payload: { timing: op.timing } });
          if (res.statusCode === 200) {
            if (op.timing === 'immediate') assert.equal(res.json().refundAmount, preview.immediate.refundAmount);
          } else {
            assert.equal(res.statusCode, 409, res.body);
            const code = res.json().code;
            if (op.timing === 'immediate' && preview.immediate.blockedReason) assert.ok(['ALREADY_ENDED', 'REFUND_REQUEST_PENDING', 'REFUND_IN_PROGRESS', 'SUBSCRIPTION_REFUND_SETTLED'].includes(code), code);
            else assert.ok(['ALREADY_ENDED', 'ALREADY_CANCELED', 'SUBSCRIPTION_REFUND_NONE_LEFT'].includes(code), code);
          }
        }
        await checkMoney(sub.subscriptionId);
      }
    }),
    { numRuns: 15 },
  );
});
