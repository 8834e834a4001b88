import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, getSubscription, subscribe } from './factory';
import { simulatorFor } from '../../src/payments';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { cancelSubscription, previewCancel } from '../../src/subscriptions/cancel/service';
import { ApiError } from '../../src/platform/errors';

// A renewal and an immediate cancellation meeting in each other's window, in both orders. The gateway call of the
// one that goes first is where the other runs (direct calls under the injected clock; nothing sleeps).

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const scope = () => ({ storeId: s.storeId, mode: 'test' as const, productIds: null });
const renewals = (id: string) => t.db.selectFrom('orders').select(['id', 'status', 'refunded_amount']).where('subscription_id', '=', id).where('subscription_event', '=', 'renewal').execute();
const chargesOf = (id: string) => t.db.selectFrom('subscription_charges').select(['status', 'kind']).where('subscription_id', '=', id).execute();

test('a renewal that comes due while an immediate cancel is refunding charges nothing; the cancel ends the subscription with exactly its preview', async () => {
  t.clock.set('2026-11-02T01:00:00.000Z');
  const product = await createSubscriptionProduct(t, s);
  const { subscriptionId, orderId } = await subscribe(t, s, { productId: product.id });
  const sub = await getSubscription(t, s.key, subscriptionId);
  t.clock.set('2026-11-03T01:00:00.000Z');
  const preview = await previewCancel(t.deps, scope(), subscriptionId);
  assert.equal(preview.immediate.refundAmount, 9_900);

  const sim = simulatorFor(t.clock);
  const refund = sim.refund;
  const charge = sim.chargeBillingKey;
  let charged = 0;
  sim.chargeBillingKey = async function (input) {
    charged++;
    return charge.call(this, input);
  };
  let ran = 0;
  sim.refund = async function (input) {
    // Inside the cancel's claim window: the clock passes the period end and the billing run comes round.
    t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 60_000));
    ran = await runBilling(t.deps, t.clock.now());
    return refund.call(this, input);
  };
  try {
    const r = await cancelSubscription(t.deps, scope(), subscriptionId, { timing: 'immediate' });
    assert.equal(r.refundAmount, 9_900);
    assert.deepEqual(r.refundedOrderIds, [orderId]);
  } finally {
    sim.refund = refund;
    sim.chargeBillingKey = charge;
  }
  assert.equal(charged, 0, 'no renewal charge reached the gateway');
  assert.equal((await chargesOf(subscriptionId)).length, 0, 'no charge was even claimed');
  assert.equal((await renewals(subscriptionId)).length, 0);
  const after = await getSubscription(t, s.key, subscriptionId);
  assert.equal(after.status, 'ended');
  assert.equal(after.currentPeriodStart, sub.currentPeriodStart, 'the period never moved');
  // Once ended, later runs charge nothing either.
  await runBilling(t.deps, t.clock.now());
  assert.equal((await renewals(subscriptionId)).length, 0);
  assert.equal(ran, 0);
});

test('an immediate cancel while a renewal charge is with the gateway is refused (REFUND_IN_PROGRESS, preview blocked); after the answer it refunds the new period', async () => {
  t.clock.set('2026-11-02T01:00:00.000Z');
  const product = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: product.id });
  const sub = await getSubscription(t, s.key, subscriptionId);
  t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 60_000));

  const sim = simulatorFor(t.clock);
  const charge = sim.chargeBillingKey;
  let refused: unknown = null;
  let blocked: unknown = null;
  sim.chargeBillingKey = async function (input) {
    // Inside the renewal's window: the charge row is `charging`, the gateway has not answered yet.
    blocked = (await previewCancel(t.deps, scope(), subscriptionId)).immediate.blockedReason;
    refused = await cancelSubscription(t.deps, scope(), subscriptionId, { timing: 'immediate' }).then(
      () => null,
      (e) => e,
    );
    return charge.call(this, input);
  };
  try {
    await runBilling(t.deps, t.clock.now());
  } finally {
    sim.chargeBillingKey = charge;
  }
  assert.ok(refused instanceof ApiError, 'the cancel was refused');
  assert.equal((refused as ApiError).code, 'REFUND_IN_PROGRESS');
  assert.equal((refused as ApiError).details?.reason, 'charge_in_progress');
  assert.equal((blocked as { code: string } | null)?.code, 'REFUND_REQUEST_PENDING');

  const renewed = await getSubscription(t, s.key, subscriptionId);
  assert.equal(renewed.status, 'active');
  const [order] = await renewals(subscriptionId);
  assert.ok(order);
  // The renewal is recorded; the cancel now sees the new period and refunds exactly its preview (in the window, unused).
  const preview = await previewCancel(t.deps, scope(), subscriptionId);
  assert.deepEqual(preview.immediate.breakdown.map((b) => b.orderId), [order.id]);
  const r = await cancelSubscription(t.deps, scope(), subscriptionId, { timing: 'immediate' });
  assert.equal(r.refundAmount, preview.immediate.refundAmount);
  assert.equal(r.refundAmount, 9_900);
  assert.equal((await getSubscription(t, s.key, subscriptionId)).status, 'ended');
});
