import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, eventsOf, getSubscription, subscribe } from './factory';
import { simulatorFor } from '../../src/payments';
import { recordCharge, runBilling } from '../../src/subscriptions/renewal/service';
import { UNKNOWN_GIVE_UP_MS, UNKNOWN_RETRY_DELAYS_MS, afterUnknownAnswer } from '../../src/subscriptions/model';

// An unknown renewal answer is retried on a bounded schedule, then left to the seller, who settles it in the console.

let t: TestApp;
let s: TestStore;
let owner: Record<string, string>;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  owner = { authorization: `Bearer ${s.ownerToken}` };
});
after(async () => {
  await t.close();
});

const chargeOf = (subscriptionId: string) => t.db.selectFrom('subscription_charges').selectAll().where('subscription_id', '=', subscriptionId).executeTakeFirstOrThrow();
const renewalOrders = (id: string) => t.db.selectFrom('orders').select('id').where('subscription_id', '=', id).where('subscription_event', '=', 'renewal').execute();

/** A subscription whose renewal charge the gateway never answers, run until it is left to the seller. */
async function unanswered() {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const product = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: product.id });
  const sub = await getSubscription(t, s.key, subscriptionId);
  const sim = simulatorFor(t.clock);
  const original = sim.chargeBillingKey;
  const callTimes: number[] = [];
  const errors: unknown[][] = [];
  const logError = t.deps.log.error;
  t.deps.log.error = ((...args: unknown[]) => void errors.push(args)) as typeof logError;
  sim.chargeBillingKey = async (input) => {
    if (input.customerKey === subscriptionId) {
      callTimes.push(t.clock.now().getTime());
      return { status: 'unknown', message: 'simulated timeout' };
    }
    return original.call(sim, input);
  };
  try {
    t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1_000));
    await runBilling(t.deps, t.clock.now());
    // Each time the worker comes round exactly when the charge may be asked again, and a few times in between.
    for (let i = 0; i < 20; i++) {
      const c = await chargeOf(subscriptionId);
      if (c.status !== 'charging') break;
      t.clock.set(new Date(c.locked_until!.getTime() - 1_000));
      await runBilling(t.deps, t.clock.now());
      t.clock.set(c.locked_until!);
      await runBilling(t.deps, t.clock.now());
    }
    // Days later nothing has asked again.
    t.clock.advance(7 * 86_400_000);
    await runBilling(t.deps, t.clock.now());
    await runBilling(t.deps, t.clock.now());
  } finally {
    sim.chargeBillingKey = original;
    t.deps.log.error = logError;
  }
  return { subscriptionId, sub, callTimes, errors };
}

test('the schedule: 5 min, 15 min, 1 h, 3 h, 6 h, 12 h, then give up; 24 h after the first unknown answer gives up too', () => {
  const t0 = new Date('2026-11-01T00:00:00Z');
  const delays = UNKNOWN_RETRY_DELAYS_MS.map((_, i) => (afterUnknownAnswer(i + 1, t0, t0) as { retryAt: Date }).retryAt.getTime() - t0.getTime());
  assert.deepEqual(delays, [300_000, 900_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000]);
  assert.deepEqual(afterUnknownAnswer(7, t0, t0), { giveUp: true });
  assert.deepEqual(afterUnknownAnswer(2, t0, new Date(t0.getTime() + UNKNOWN_GIVE_UP_MS)), { giveUp: true });
  assert.ok('retryAt' in afterUnknownAnswer(2, t0, new Date(t0.getTime() + UNKNOWN_GIVE_UP_MS - 1)));
});

test('an unknown renewal answer is retried on the schedule, then needs attention: no more calls, logged at error, nothing announced', async () => {
  const { subscriptionId, sub, callTimes, errors } = await unanswered();
  assert.equal(callTimes.length, 7, 'seven calls in all');
  const gaps = callTimes.slice(1).map((x, i) => x - callTimes[i]);
  assert.deepEqual(gaps, [...UNKNOWN_RETRY_DELAYS_MS]);
  const c = await chargeOf(subscriptionId);
  assert.equal(c.status, 'needs_attention');
  assert.equal(c.unknown_attempts, 7);
  assert.equal(c.error_code, 'GATEWAY_NO_ANSWER');
  assert.equal(errors.filter((e) => (e[0] as any)?.chargeId === c.id).length, 1, 'logged at error once');
  // Nothing false was said: no order, no payment_failed, no period moved, still active.
  assert.equal((await renewalOrders(subscriptionId)).length, 0);
  assert.ok(!(await eventsOf(t, 'subscription.updated')).some((e) => e.id === subscriptionId && e.change.kind === 'payment_failed'));
  assert.ok(!(await eventsOf(t, 'order.paid')).some((e) => e.subscriptionId === subscriptionId && e.subscriptionEvent === 'renewal'));
  const now = await getSubscription(t, s.key, subscriptionId);
  assert.equal(now.status, 'active');
  assert.equal(now.currentPeriodStart, sub.currentPeriodStart);

  // The console lists it.
  const listed = await t.app.inject({ url: `/admin/v1/subscription-charges?status=needs_attention&subscriptionId=${subscriptionId}`, headers: owner });
  assert.equal(listed.statusCode, 200, listed.body);
  assert.equal(listed.json().total, 1);
  assert.equal(listed.json().data[0].id, c.id);
  assert.equal(listed.json().data[0].orderId, c.order_id);
  assert.equal(listed.json().data[0].unknownAttempts, 7);
});

test('a late answer (asking again from the console) records it exactly once; a second settle is refused', async () => {
  const { subscriptionId, sub } = await unanswered();
  const c = await chargeOf(subscriptionId);
  // The gateway answers now (the simulator charges for the same idempotency key once).
  const res = await t.app.inject({ method: 'POST', url: `/admin/v1/subscription-charges/${c.id}/retry`, headers: owner });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().status, 'succeeded');
  // The same late answer arriving again (the original call's, say) records nothing more.
  await recordCharge(t.deps, c.id, { status: 'succeeded', value: { paymentKey: 'late', approvedAt: t.clock.now(), method: 'card' } }, 'simulator');
  const again = await t.app.inject({ method: 'POST', url: `/admin/v1/subscription-charges/${c.id}/retry`, headers: owner });
  assert.equal(again.json().code, 'SUBSCRIPTION_CHARGE_NOT_UNKNOWN');
  const resolve = await t.app.inject({ method: 'POST', url: `/admin/v1/subscription-charges/${c.id}/resolve`, headers: owner, payload: { status: 'failed', note: 'x' } });
  assert.equal(resolve.statusCode, 409);
  assert.equal((await renewalOrders(subscriptionId)).length, 1);
  assert.equal((await eventsOf(t, 'order.paid')).filter((e) => e.subscriptionId === subscriptionId && e.subscriptionEvent === 'renewal').length, 1);
  const renewed = await getSubscription(t, s.key, subscriptionId);
  assert.equal(renewed.status, 'active');
  assert.equal(renewed.currentPeriodStart, sub.currentPeriodEnd);
});

test('the seller settles by hand: succeeded records the renewal once (another store cannot), failed sends it into dunning', async () => {
  const a = await unanswered();
  const ca = await chargeOf(a.subscriptionId);
  const other = await createTestStore(t);
  const foreign = await t.app.inject({ method: 'POST', url: `/admin/v1/subscription-charges/${ca.id}/resolve`, headers: { authorization: `Bearer ${other.ownerToken}` }, payload: { status: 'succeeded', note: 'x' } });
  assert.equal(foreign.json().code, 'SUBSCRIPTION_CHARGE_NOT_FOUND');
  const ok = await t.app.inject({ method: 'POST', url: `/admin/v1/subscription-charges/${ca.id}/resolve`, headers: owner, payload: { status: 'succeeded', note: '대시보드에서 승인 확인', paymentKey: 'pk_from_dashboard' } });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(ok.json().status, 'succeeded');
  const order = await t.db.selectFrom('orders').select(['id', 'provider_payment_key', 'status']).where('id', '=', ca.order_id).executeTakeFirstOrThrow();
  assert.deepEqual(order, { id: ca.order_id, provider_payment_key: 'pk_from_dashboard', status: 'paid' });
  // A late gateway answer after the seller's decision records nothing more.
  await recordCharge(t.deps, ca.id, { status: 'succeeded', value: { paymentKey: 'late', approvedAt: t.clock.now(), method: 'card' } }, 'simulator');
  assert.equal((await renewalOrders(a.subscriptionId)).length, 1);

  const b = await unanswered();
  const cb = await chargeOf(b.subscriptionId);
  const failed = await t.app.inject({ method: 'POST', url: `/admin/v1/subscription-charges/${cb.id}/resolve`, headers: owner, payload: { status: 'failed', note: '대시보드에 결제 없음' } });
  assert.equal(failed.statusCode, 200, failed.body);
  assert.equal(failed.json().status, 'failed');
  const past = await getSubscription(t, s.key, b.subscriptionId);
  assert.equal(past.status, 'past_due');
  assert.equal((await renewalOrders(b.subscriptionId)).length, 0);
});
